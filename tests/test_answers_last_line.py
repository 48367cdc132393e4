"""A shortcut of default's per-message work (issue 13, replay speed) that must give the answer of the
long way: the assistant's closing question read from its last line (folding/answers.py
``question``) instead of splitting the whole message into sentences."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.folding.answers import question
from contextwindow.folding.clauses import sentences


def _question_whole(asked: str) -> str:
    said = sentences(asked.strip())
    last = said[-1].strip() if said else ""
    return last if last.endswith("?") else ""


_LINES = st.sampled_from([
    "", "   ", "Done. Which is the cache port?", "- Is the batch size still 500?", "> quoted line.", "1. first item",
    'Dana wrote: "The port is 80." Is that right?', 'per the runbook, "The failover drill runs every 90 days", ok?',
    "e.g. this one. the staging db lives on rack 2. also keep retries at 6?", "What's our staging host?", "   -  ", "> ",
    "All tests pass.", "Should the review window stay at 2 days?", "v1.2. and then?", "Thanks!",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LINES, st.text(alphabet=st.sampled_from(list("ab .?!-\"':>1\t")), max_size=30)), max_size=8),
       st.sampled_from(["\n", "\r\n"]))
def test_the_question_read_from_the_last_line_is_the_whole_message_s_last_sentence(lines: list[str], newline: str) -> None:
    asked = newline.join(lines)
    assert question(asked) == _question_whole(asked)


def test_the_question_is_the_last_line_s_even_after_blank_and_bullet_only_lines() -> None:
    asked = "I looked at the config.\n\nWhich is the cache port?\n\n   \n> \n"
    assert question(asked) == _question_whole(asked) == "Which is the cache port?"
    assert question("Which is the cache port?\nI will check.") == ""
