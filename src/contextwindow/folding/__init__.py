"""Folding: checkpoints, summary prompts, flat transcripts, the extractive brief, the constraint ledger."""

from .base import Summarizer, SummaryOutcome, SummaryRequest, fold_message, summary_text
from .extractive import ExtractiveSummarizer
from .llm_summarizer import LLMSummarizer
from .transcript import render_flat

__all__ = [
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "SummaryOutcome",
    "SummaryRequest",
    "fold_message",
    "render_flat",
    "summary_text",
]
