"""An older SWE-agent trajectory keeps each observation in the user message after the action: tool
output, not the user's words. The importer marks it (``meta["observation"]``), the text stays as sent,
and the constraint ledger reads only the task text (a rule-like sentence a file or a command printed
never becomes a rule)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from contextwindow.folding import constraints as ledger_mod
from contextwindow.importers import load_transcript
from contextwindow.session import Session
from contextwindow.store import open_store

TASK = ("We're currently solving the following issue within our repository. Always run the full test suite before you submit.\n"
        "ISSUE:\nThe exporter drops the last row of every sheet.")
OBSERVATION = ("[File: /repo/CONTRIBUTING.md (12 lines total)]\n1:# Contributing\n2:You must never push directly to the release branch.\n"
               "3:Keep every pull request under 400 lines.\n(Open file: /repo/CONTRIBUTING.md)\n(Current directory: /repo)\nbash-$")


def _trajectory(tmp_path: Path, *, message_type: bool) -> Path:
    """A trajectory in SWE-agent's older shape (action in the assistant text, observation in the next user
    message); with ``message_type`` the newer labels, which call the task text an observation too."""
    def entry(role: str, content: str, kind: str) -> dict[str, object]:
        return {"role": role, "content": content, "agent": "primary", **({"message_type": kind} if message_type else {})}

    history = [
        entry("system", "SETTING: You are an autonomous programmer.", "system_prompt"),
        {**entry("user", "Here is a demonstration. You must always start by reproducing the bug.", "observation"), "is_demo": True},
        entry("user", TASK, "observation"),
        entry("assistant", "Let me read the contributing guide.\n```\nopen CONTRIBUTING.md\n```", "action"),
        entry("user", OBSERVATION, "observation"),
        entry("assistant", "Now the exporter.\n```\nopen exporter.py\n```", "action"),
        entry("user", "[File: /repo/exporter.py (3 lines total)]\n1:# Always flush the writer after each sheet.\n2:def export(rows):\n3:    return rows[:-1]", "observation"),
    ]
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}), encoding="utf-8")
    return path


def _ledger_texts(tmp_path: Path, traj: Path) -> tuple[list[str], list[str]]:
    imported = load_transcript(traj)
    s = Session(open_store(f"sqlite:///{tmp_path / 'store.db'}"), window=200_000, max_output=1_000)
    s.add(*(m for m in imported.messages if m.role != "system"))
    return [c.text for c in s.constraints()], [m.text for m in imported.messages if m.meta.get("observation")]


def test_observation_rules_stay_out_of_the_ledger_and_the_task_rule_enters(tmp_path: Path) -> None:
    for shape in (False, True):
        where = tmp_path / str(shape)
        where.mkdir()
        rules, observations = _ledger_texts(where, _trajectory(where, message_type=shape))
        assert observations[0] == OBSERVATION  # the text as sent (it still goes to the model)
        assert len(observations) == 2
        assert any("Always run the full test suite" in r for r in rules), rules
        said = "\n".join(rules)
        for printed in ("push directly", "400 lines", "flush the writer", "reproducing the bug"):
            assert printed not in said, (printed, rules)


def test_user_words_of_an_observation_is_none_and_of_the_task_its_text() -> None:
    from contextwindow.messages import Message, TextPart

    task = Message("user", (TextPart(TASK),))
    seen = Message("user", (TextPart(OBSERVATION),), meta={"observation": True})
    assert ledger_mod.user_words(task) == TASK
    assert ledger_mod.user_words(seen) is None


def test_fixture_trajectories_mark_every_user_message_after_an_action(transcripts_dir: Path) -> None:
    root = transcripts_dir / "swe_agent"
    for traj in sorted(root.glob("*.traj")):
        msgs = load_transcript(traj).messages
        for prev, m in itertools.pairwise(msgs):
            if m.role == "user" and not m.meta.get("is_demo"):
                assert bool(m.meta.get("observation")) == (prev.role == "assistant"), (traj.name, m.text[:80])
        # the task text is read: each trajectory's first non-demo user message
        first = next(m for m in msgs if m.role == "user" and not m.meta.get("is_demo"))
        assert ledger_mod.user_words(first) == first.text
