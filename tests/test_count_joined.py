"""A text counted from its pieces (tokens/joined.py) gets the count a whole read gives.

The estimator adds up the pieces' features when every joint lies at a newline; anything else
(another joint, pieces that do not join to the text) is read whole. claude-code's fold message
(header + brief + restored files) and its summary are counted that way in a replay: the policy's
payloads and counts must be the ones a counter that reads every text whole gives."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from contextwindow.folding.base import fold_message, fold_pieces, summary_text
from contextwindow.folding.extractive import ExtractiveSummarizer
from contextwindow.folding.restore import restore_pieces, restore_section
from contextwindow.messages import Message, TextPart, ToolCallPart, ToolResultPart, assistant, user
from contextwindow.replay.policies import ClaudeCodePolicy, ReplayContext
from contextwindow.tokens import Estimator
from contextwindow.tokens.estimate import NUMBERED_LINE, numbered_lines
from contextwindow.tokens.joined import FEATURE_MEMO_MIN_CHARS, additive
from contextwindow.tools import ToolSpec

# every feature the estimator reads: words, camelCase, digits, punctuation, JSON, indentation,
# newlines (\r too), tabs, 2-/3-/4-byte characters, base64/hex blobs, line-number prefixes
ATOMS = ["word", "Word", "camelCase", "12", "7", " ", "  ", "\n", "\r", "\r\n", "\t", "{", '"', ":", ".", "-", "é", "中", "😀",
         "     12\u2192", "3\u2192", "\u2192", "QmFzZTY0IGJsb2IgdGhhdCBpcyBsb25nIGVub3VnaA", "deadbeef" * 5, "a" * 40, "_" * 33]
piece = st.lists(st.sampled_from(ATOMS), max_size=40).map("".join)


def joined_at_newlines(pieces: list[str], seps: list[str]) -> list[str]:
    out: list[str] = []
    for p, s in zip(pieces, seps, strict=False):
        out += [p, s]
    return [*out, pieces[-1]] if pieces else out


@settings(max_examples=150, deadline=None)
@given(st.lists(piece, min_size=1, max_size=6), st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n"]), min_size=6, max_size=6),
       st.sampled_from(["anthropic", "openai", "generic"]))
def test_pieces_joined_at_newlines_count_as_the_whole_text(pieces: list[str], seps: list[str], family: str) -> None:
    parts = joined_at_newlines(pieces, seps)
    text = "".join(parts)
    whole = Estimator(family).count_text(text)
    counter = Estimator(family)
    for p in parts:  # the pieces counted first, as a fold's brief and files are
        counter.count_text_memo(p)
    assert counter.count_joined(text, parts) == whole
    assert counter.count_text_memo(text) == whole  # what the view reads next: the memo holds the same count


@settings(max_examples=100, deadline=None)
@given(st.lists(piece, min_size=2, max_size=5), st.sampled_from(["anthropic", "generic"]))
def test_any_joint_gives_the_whole_count(pieces: list[str], family: str) -> None:
    """Joints inside a word, a number, a run of spaces, a blob or a line-number prefix: read whole."""
    text = "".join(pieces)
    counter = Estimator(family)
    for p in pieces:
        counter.count_text_memo(p)
    assert counter.count_joined(text, pieces) == Estimator(family).count_text(text)


def test_only_newline_joints_are_added_up() -> None:
    assert additive("abc\n", "def") and additive("abc", "\ndef")
    assert not additive("abc", "def") and not additive("abc\r", "def") and not additive("  ", " 12\u2192")
    # a joint inside a word, a camelCase joint, a blob and a line-number prefix each count differently whole
    for left, right in [("wor", "d"), ("camel", "Case"), ("QmFzZTY0IGJsb2Ig", "dGhhdCBpcyBsb25nIGVub3VnaA"), ("    1", "2\u2192 x")]:
        counter = Estimator("anthropic")
        assert counter.count_joined(left + right, [left, right]) == Estimator("anthropic").count_text(left + right)


def test_pieces_that_do_not_join_to_the_text_are_not_trusted() -> None:
    counter = Estimator("anthropic")
    text = "## Goal\n" + "fix the parser in src/app.py " * 40
    wrong = ["## Goal\n", "fix the parser in src/lib.py " * 40]
    assert counter.count_joined(text, wrong) == Estimator("anthropic").count_text(text)
    assert counter.count_text_memo(text) == Estimator("anthropic").count_text(text)


def test_forget_memos_empties_the_features_too() -> None:
    """The features memo is a cache of the counter's answers: a benchmark that empties the
    counter's memos (bench_replay --speed) must find it empty as well."""
    counter = Estimator("anthropic")
    text = "line of text\n" * 100
    assert len(text) >= FEATURE_MEMO_MIN_CHARS
    counter.count_text_memo(text)
    assert counter.features(text) is counter.features(text)  # remembered
    counter.forget_memos()
    assert len(counter._features) == 0 and counter.count_text_memo(text) == Estimator("anthropic").count_text(text)


def reads(n: int, seed: int) -> list[Message]:
    rng = random.Random(seed)
    msgs: list[Message] = [user("read the files and fix the bug")]
    for i in range(n):
        body = "\n".join(f"{k:6d}\u2192    value_{k} = compute(x{k}, y)  # {'z' * rng.randint(0, 30)}" for k in range(rng.choice([5, 80, 900])))
        msgs.append(assistant(f"reading {i}", ToolCallPart(f"c{i}", "Read", json.dumps({"file_path": f"src/m{i % 4}.py"}))))
        msgs.append(Message("tool", (ToolResultPart(f"c{i}", (TextPart(body),)),)))
    return msgs


def test_fold_and_restore_pieces_join_to_their_texts() -> None:
    count = Estimator("anthropic").count_text
    for seed in range(4):
        msgs = reads(9, seed)
        files = restore_pieces(msgs, count, 5, 2_000, 6_000)
        assert "".join(files) == restore_section(msgs, count, 5, 2_000, 6_000)
        assert "Recently read files" in files[0] and any("src/m" in p for p in files)
        for brief, extra in [("## Goal\nfix it\n", files), ("  padded brief  ", []), ("", files)]:
            msg = fold_message(brief, method="extractive", extra_sections=["".join(extra)])
            pieces = fold_pieces(brief, [extra])
            assert "".join(pieces) == msg.text
            assert all(additive(a, b) for a, b in pairwise([p for p in pieces if p]))
            if brief.strip():
                assert "".join(pieces[2:]) == summary_text(msg)
    assert restore_pieces([user("no reads here")], count) == []


class WholeReader:
    """A counter that reads every text whole (no memo, no pieces): the reference."""

    name = "whole"
    exact = False

    def __init__(self) -> None:
        self.inner = Estimator("anthropic")

    def count_text(self, text: str) -> int:
        return self.inner.count_text(text)

    def count_message(self, message: Message) -> int:
        return Estimator("anthropic").count_message(message)

    def count_messages(self, messages: Iterable[Message]) -> int:
        return Estimator("anthropic").count_messages(list(messages))

    def count_tools(self, tools: Sequence[ToolSpec]) -> int:
        return self.inner.count_tools(tools)


def test_claude_code_folds_count_the_same_as_whole_reads() -> None:
    """claude-code over a session that folds several times (each fold restores files): every
    payload and every prompt count equals the ones of a counter that reads each text whole."""
    msgs = reads(40, 7)
    runs = []
    for counter in (Estimator("anthropic"), WholeReader()):
        ctx = ReplayContext(window=30_000, counter=counter, summarizer=ExtractiveSummarizer(counter.count_text), overhead=2_000,
                            max_output=4_000)
        pol = ClaudeCodePolicy(ctx)
        out = []
        for i in range(2, len(msgs) + 1, 2):
            step = pol.before_call(msgs[:i])
            out.append((step.messages, step.events, ctx.prompt_tokens(step.messages)))
        runs.append(out)
    assert sum(ev == ["fold"] for _, ev, _ in runs[0]) >= 3
    assert runs[0] == runs[1]


@settings(max_examples=200, deadline=None)
@given(piece)
def test_line_number_prefixes_counted_as_the_multiline_pattern_finds_them(text: str) -> None:
    assert numbered_lines(text) == len(NUMBERED_LINE.findall(text))
    assert numbered_lines(text + "\n 7\u2192x\r 8\u2192y") == len(NUMBERED_LINE.findall(text + "\n 7\u2192x\r 8\u2192y"))
