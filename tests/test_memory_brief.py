"""The extractive brief a model can continue from, restored files, and the degradation ladder."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextwindow.compaction.degrade import RUNGS, degrade
from contextwindow.errors import CompactionError
from contextwindow.folding import ledger as L
from contextwindow.folding.base import SummaryRequest
from contextwindow.folding.disk import disk_reader
from contextwindow.folding.extractive import ExtractiveSummarizer, exit_code
from contextwindow.folding.restore import restore_section
from contextwindow.messages import Message, ToolCallPart, assistant, tool_result, user
from contextwindow.replay.compact import compact_conversation
from contextwindow.tokens import counter_for

COUNTER = counter_for(None)
CODEX_FIRST = (
    "<environment_context>\n  <cwd>/repo</cwd>\n  <approval_policy>never</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n"
    "</environment_context>"
)


def _call(i: int, name: str, args: str) -> ToolCallPart:
    return ToolCallPart(f"c{i}", name, args)


def _codex_like() -> list[Message]:
    return [
        user(CODEX_FIRST),
        user("Make the CSV importer skip blank rows. Never change the public API."),
        assistant("", _call(1, "shell", '{"command": "pytest -q"}')),
        tool_result("c1", "tests/test_error_paths.py ... 12 passed; checked error handling\nExit code: 0", name="shell"),
        assistant("", _call(2, "shell", '{"command": "python -m importer data.csv"}')),
        tool_result("c2", "Traceback (most recent call last):\nValueError: empty row\nExit code: 1", name="shell"),
        assistant("", _call(3, "read_file", '{"path": "src/importer.py"}')),
        tool_result("c3", "def load(path): ...", name="read_file"),
        assistant("Next step: guard the blank rows in load()."),
    ]


def test_goal_is_the_request_and_errors_come_from_exit_codes() -> None:
    text = ExtractiveSummarizer(COUNTER.count_text).summarize(SummaryRequest(messages=_codex_like(), budget_tokens=2000)).text
    goal = text.split("## Goal\n", 1)[1].split("\n\n", 1)[0]
    assert goal == "Make the CSV importer skip blank rows. Never change the public API."
    assert "## Environment" in text and "<environment_context>" in text.split("## Environment", 1)[1]
    errors = text.split("## Errors seen\n", 1)[1].split("\n\n", 1)[0]
    assert "python -m importer" in errors and "pytest" not in errors  # exit 0 printing "error" is no error
    assert exit_code('{"metadata": {"exit_code": 2}}') == 2 and exit_code("ok") is None


def test_cumulative_folds_rewrite_one_brief_of_bounded_size() -> None:
    summ = ExtractiveSummarizer(COUNTER.count_text)
    prior: str | None = None
    sizes = []
    for r in range(10):
        msgs = [user(f"Round {r}: keep going with step {r}."), assistant("", _call(r, "shell", f'{{"command": "make step{r}"}}')),
                tool_result(f"c{r}", "x\n" * 50 + "Exit code: 0", name="shell"), assistant("done")]
        prior = summ.summarize(SummaryRequest(messages=msgs, prior_summary=prior, budget_tokens=600, constraints=("Never push to main.",))).text
        sizes.append(len(prior))
    assert "Earlier summary" not in prior and prior.count("## Goal") == 1
    assert prior.split("## Goal\n", 1)[1].startswith("Round 0")  # the goal stays the first request
    assert "make step9" in prior and "Never push to main." in prior
    assert COUNTER.count_text(prior) <= 600 and max(sizes[5:]) <= 2 * max(sizes[:5])


def test_restored_files_are_the_latest_version_read_from_disk(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("NEW CONTENT ON DISK\n")
    msgs = [
        assistant("", _call(1, "read_file", f'{{"path": "{f}"}}')), tool_result("c1", "old version 1", name="read_file"),
        assistant("", _call(2, "read_file", f'{{"path": "{f}"}}')), tool_result("c2", "old version 2", name="read_file"),
        assistant("", _call(3, "read_file", '{"path": "gone.py"}')), tool_result("c3", "gone but read", name="read_file"),
    ]
    out = restore_section(msgs, COUNTER.count_text, read=disk_reader(str(tmp_path)))
    assert out.count(f"### {f}") == 1 and "NEW CONTENT ON DISK" in out and "old version" not in out
    assert "gone but read" in out  # deleted since: the transcript's latest copy


def _session(n_rules: int = 6, filler: int = 30) -> list[Message]:
    msgs: list[Message] = [user("Port the billing job to the new scheduler. Never delete rows from the invoices table.")]
    for i in range(filler):
        msgs += [assistant("", _call(i, "shell", f'{{"command": "step {i}"}}')), tool_result(f"c{i}", f"output {i} " * 80, name="shell"),
                 assistant(f"Step {i} looks fine; moving on to the next part of the job. " * 3)]
        if i < n_rules:
            msgs.append(user(f"Team member number {i} is Person{i}-X."))
            msgs.append(assistant("Noted."))
    msgs.append(user("Now wire the retry queue. The retry limit is 5 attempts."))
    return msgs


@pytest.mark.parametrize("budget", [3000, 1200, 400, 160])
def test_degrade_order_is_the_written_one_and_fits(budget: int) -> None:
    msgs = _session()
    led: list[L.Entry] = []
    for m in msgs:
        if m.role == "user":
            led = L.update(led, m.text)
    out, rungs = degrade(msgs, budget=budget, count=COUNTER.count_messages, ledger=led, ref="span-0-9")
    assert COUNTER.count_messages(out) <= budget
    assert [RUNGS.index(r) for r in rungs] == sorted(RUNGS.index(r) for r in rungs)  # sacrificed in the written order
    text = "\n".join(m.text for m in out)
    assert "The retry limit is 5 attempts." in text  # the newest user message, verbatim
    assert "Never delete rows from the invoices table" in text  # safety rules go last of all
    if "ledger_entries" in rungs:
        assert 'retrieve(ref="span-0-9")' in text and "left out" in text


def test_degrade_errors_only_when_the_newest_message_cannot_fit() -> None:
    msgs = _session()
    with pytest.raises(CompactionError) as err:
        degrade(msgs, budget=15, count=COUNTER.count_messages, ledger=[], ref="span-0-1")
    assert err.value.budget == 15


def test_compact_folds_only_when_mask_and_truncate_cannot_fit() -> None:
    msgs = _session(filler=40)
    size = COUNTER.count_messages(msgs)
    out, rep = compact_conversation(msgs, budget=int(size * 0.6), counter=COUNTER, summarizer=ExtractiveSummarizer(COUNTER.count_text), rounds=3)
    assert rep.rounds == 0 and not any(m.meta.get("cw") == "fold_summary" for m in out)
    out, rep = compact_conversation(msgs, budget=int(size * 0.1), counter=COUNTER, summarizer=ExtractiveSummarizer(COUNTER.count_text), rounds=3)
    assert rep.rounds >= 1 and rep.tokens_after <= int(size * 0.1)
    assert out[-1].text == "Now wire the retry queue. The retry limit is 5 attempts."  # the newest turn verbatim


def test_chained_compactions_remember_what_was_superseded() -> None:
    # round 1 scrubs the old value from the user's words; round 2 gets that output plus an assistant
    # line that repeats the old value: the output still knows it was superseded
    summ = ExtractiveSummarizer(COUNTER.count_text)
    first = [user("The export job writes to /data/exports-a."), assistant("Noted."), user("The export job writes to /data/exports-b now."), assistant("OK.")]
    out, _ = compact_conversation(first, budget=10_000, counter=COUNTER, summarizer=summ)
    assert "/data/exports-a" not in "\n".join(m.text for m in out)
    later = [*out, user("Anything else?"), assistant("Earlier the job wrote to /data/exports-a, which is gone.")]
    out2, _ = compact_conversation(later, budget=10_000, counter=COUNTER, summarizer=summ)
    text = "\n".join(m.text for m in out2)
    assert "/data/exports-a" not in text and "[updated later: /data/exports-b]" in text


def test_session_folds_keep_paraphrased_memory_and_never_a_stale_value(tmp_path: Path) -> None:
    from contextwindow.budget import BudgetConfig
    from contextwindow.messages import Message
    from contextwindow.session import Session, SessionConfig
    from contextwindow.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    cfg = SessionConfig(budget=BudgetConfig(output_cap=1_000, safety_buffer=200), clip_budget_tokens=None, restore_root=str(tmp_path))
    s = Session(store, window=60_000, max_output=1_000, system="You are a careful coding agent.", config=cfg)
    s.add(user(CODEX_FIRST), user("Port the CLI to click. We renamed the service to Orion-7. Dana is on call this week."))
    s.record(assistant("Understood."))
    later = ["Heads up, we are calling the service Vega now.", "Actually Omar is on call this week.", "From now on write every commit message in the imperative mood, under 60 characters."]
    for r, text in enumerate(later):
        s.add(user(text), assistant("", _call(r, "shell", '{"command": "make"}')), tool_result(f"c{r}", "ok\nExit code: 0", name="shell"))
        s.record(assistant(f"Noted: the service is Orion-7 and Dana is on call (round {r})."))  # an echo of old values
        s.fold()
    text = "\n".join(m.text for m in s.build().messages if isinstance(m, Message) and not m.is_tool_result)
    assert "Vega" in text and "Omar" in text and "under 60 characters" in text
    assert "Orion-7" not in text and "Dana" not in text
    assert "approval_policy" not in text.split("## Environment")[0]  # the environment is never the goal or a rule
    assert {e.kind for e in s.constraints() if e.active} >= {"fact", "constraint"}
    assert all("<" not in e.text for e in s.constraints())
    store.close()


def test_user_messages_stay_verbatim_while_they_fit_then_condensed_values_kept() -> None:
    chatter = "Some context about how we got here, what we tried and why it did not work out in the end. " * 3
    msgs = [user("Port the importer to asyncio.")]
    for i in range(8):
        msgs += [user(f"{chatter}The batch size for stage {i} is {100 + i} rows."), assistant(f"ok {i}")]
    msgs.append(user("Now run the whole pipeline."))
    summ = ExtractiveSummarizer(COUNTER.count_text)
    roomy = summ.summarize(SummaryRequest(messages=msgs, budget_tokens=4000)).text
    assert roomy.count(chatter.strip()) == 8  # every earlier message verbatim
    tight = summ.summarize(SummaryRequest(messages=msgs, budget_tokens=700)).text
    assert COUNTER.count_text(tight) <= 700
    assert "The batch size for stage 7 is 107 rows." in tight and "(condensed)" in tight
    # a condensed message keeps its values: what is left of an older one still names its batch size
    assert all(f"{100 + i} rows" in tight for i in range(8) if f"stage {i}" in tight)
    # the next fold reads the section back instead of nesting it
    again = summ.summarize(SummaryRequest(messages=[user("Continue."), assistant("done")], prior_summary=tight, budget_tokens=700)).text
    assert again.count("## User messages") == 1 and "107 rows" in again
