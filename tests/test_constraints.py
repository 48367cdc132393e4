"""The constraint ledger: detection, supersession, scrubbing."""

from __future__ import annotations

from contextwindow.folding import constraints as c
from contextwindow.folding.base import ensure_constraints


def test_detects_rules_caps_deadlines_and_preferences_verbatim() -> None:
    text = (
        "Please refactor the parser. Never modify files under vendor/. "
        "Keep the diff under 200 lines. I'd rather you use pathlib than os.path.\n"
        "The deadline is Friday 5pm. What do you think?"
    )
    found = c.detect(text)
    assert "Never modify files under vendor/." in found
    assert "Keep the diff under 200 lines." in found
    assert "I'd rather you use pathlib than os.path." in found
    assert "The deadline is Friday 5pm." in found
    assert all(not f.endswith("?") for f in found)


def test_newer_value_supersedes_older_and_is_scrubbed_from_summaries() -> None:
    ledger = c.update([], "The budget cap is $50 for this task. Never push to main.")
    ledger = c.update(ledger, "Change of plan: the budget cap is $80 for this task.")
    assert c.texts(ledger) == ["Never push to main.", "Change of plan: the budget cap is $80 for this task."]
    assert c.superseded(ledger) == ["The budget cap is $50 for this task."]
    summary = "## Goal\nThe budget cap is $50 for this task. Ship it."
    out = ensure_constraints(summary, c.texts(ledger), c.superseded(ledger))
    assert "$50" not in out
    assert "Never push to main." in out and "$80" in out


def test_reversed_polarity_replaces_the_rule() -> None:
    ledger = c.update([], "Always use tabs for indentation.")
    ledger = c.update(ledger, "Never use tabs for indentation.")
    assert c.texts(ledger) == ["Never use tabs for indentation."]


def test_unrelated_rules_are_all_kept_and_json_round_trips() -> None:
    ledger = c.update([], "Never push to main. Always run the tests first. Do not touch the CI config.")
    assert len(c.texts(ledger)) == 3
    assert c.from_json(c.to_json(ledger)) == ledger
    assert c.from_json("garbage") == []
