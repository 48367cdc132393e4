"""The structured summary prompt (a brief a fresh model can continue from)."""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM = (
    "You write handoff briefs for a coding/agent session that is being folded to fit a context window. "
    "You are given the conversation as a flat transcript document. Do not continue the conversation and "
    "do not call tools: write the brief only."
)

BRIEF = """Write a brief that lets an assistant with no other context continue this session exactly where it stopped.
Use these sections, in this order, with these headings:

## Goal
The user's task, in their words where possible. Blocks an agent harness injected into user
messages (<environment_context>, <approval_policy>, <system-reminder>, AGENTS.md instructions)
are not the task: put them, one short line each, under "## Environment" after the goal.
## Progress
What is done, with real file paths, ids, commands, numbers and results. No vague claims.
## Remaining
The exact open items and the very next step.
## Data
Names, ids, values, URLs, error messages and anything else needed later, verbatim.
## Decisions
Choices made and why, including approaches rejected.
## Constraints & preferences
Every rule, limit, deadline, preference and fact the user stated, copied verbatim (except those the
harness says below it carries). When the user later changed a value, give only the newest one.

The harness itself puts in the user's own words: the "## Latest user request" and "## User messages"
sections and the memory block of the user's rules. Do not write those sections.

Be dense and specific; prefer lists. Stay under {budget} tokens."""

PRIOR = "\n\nAn earlier brief of the part before this transcript follows. Re-write it as ONE brief with the same sections, updated by the transcript, but without the sections the harness writes (Latest user request, User messages, the memory block) (never nest it under a heading of its own; it stays true unless the transcript changes it):\n<earlier-summary>\n{prior}\n</earlier-summary>"
PART = "\n\nThis transcript is part {i} of {n} of the session; summarize this part only."
MERGE = "The following are briefs of consecutive parts of one session, oldest first. Merge them into ONE brief with the same sections; later parts win where they disagree.\n\n{parts}"
INSTRUCTIONS = "\n\nAdditional instructions for this summary:\n{instructions}"
# the user's rules the ledger holds are appended to the brief by the harness, verbatim
# (base.ensure_constraints): the model is told which, so it does not write them again as output
CARRIED = (
    "\n\nThe harness appends these rules of the user to your brief verbatim, as its memory block; do not copy "
    "them (under Constraints & preferences write only what the user stated that is not among them):\n{rules}"
)


def carried(constraints: Sequence[str]) -> str:
    """The words that tell the summarizer which rules the harness carries (nothing when none)."""
    return CARRIED.format(rules="\n".join(f"- {c}" for c in constraints)) if constraints else ""


def brief_prompt(
    transcript: str, *, budget: int, prior: str | None, instructions: str | None, part: tuple[int, int] | None = None, constraints: Sequence[str] = ()
) -> str:
    text = BRIEF.format(budget=budget)
    if prior:
        text += PRIOR.format(prior=prior)
    if part and part[1] > 1:
        text += PART.format(i=part[0], n=part[1])
    text += carried(constraints)
    if instructions:
        text += INSTRUCTIONS.format(instructions=instructions.strip())
    return text + "\n\n<transcript>\n" + transcript + "\n</transcript>"
