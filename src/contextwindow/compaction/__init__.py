"""In-flight compaction: layered strategies over keyed message views (pure)."""

from .mask import MaskConfig
from .policy import STRATEGIES, CompactionConfig, CompactionResult, compact
from .summarize import FoldDecision
from .truncate import TruncateConfig
from .view import ViewItem, make_items, total

__all__ = [
    "STRATEGIES",
    "CompactionConfig",
    "CompactionResult",
    "FoldDecision",
    "MaskConfig",
    "TruncateConfig",
    "ViewItem",
    "compact",
    "make_items",
    "total",
]
