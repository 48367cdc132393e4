"""The structured summary prompt (a brief a fresh model can continue from)."""

from __future__ import annotations

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
Every rule, limit, deadline, preference and fact the user stated, copied verbatim. When the user
later changed a value, give only the newest one.

Be dense and specific; prefer lists. Stay under {budget} tokens."""

PRIOR = "\n\nAn earlier brief of the part before this transcript follows. Re-write it as ONE brief with the same sections, updated by the transcript (never nest it under a heading of its own; it stays true unless the transcript changes it):\n<earlier-summary>\n{prior}\n</earlier-summary>"
PART = "\n\nThis transcript is part {i} of {n} of the session; summarize this part only."
MERGE = "The following are briefs of consecutive parts of one session, oldest first. Merge them into ONE brief with the same sections; later parts win where they disagree.\n\n{parts}"
INSTRUCTIONS = "\n\nAdditional instructions for this summary:\n{instructions}"


def brief_prompt(transcript: str, *, budget: int, prior: str | None, instructions: str | None, part: tuple[int, int] | None = None) -> str:
    text = BRIEF.format(budget=budget)
    if prior:
        text += PRIOR.format(prior=prior)
    if part and part[1] > 1:
        text += PART.format(i=part[0], n=part[1])
    if instructions:
        text += INSTRUCTIONS.format(instructions=instructions.strip())
    return text + "\n\n<transcript>\n" + transcript + "\n</transcript>"
