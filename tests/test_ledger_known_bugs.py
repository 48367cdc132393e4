"""Known ledger and benchmark bugs (issue 11, i11t), each a test that failed before its fix, with
sentences of our own."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from contextwindow.folding import ledger as L
from ledger_helpers import ledger_of, live_values, stale_values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def test_a_value_restated_for_a_new_subject_is_a_statement_not_an_echo() -> None:
    led = ledger_of("The demo is on May 15.", "Expect the launch on May 15.")
    assert {e.subject for e in L.active(led)} >= {"demo", "expect launch"}
    led = ledger_of("The demo is on May 15.", "Expect the launch on May 15.", "The launch moved to May 29.")
    assert live_values(led) == {"May 15", "May 29"} and stale_values(led) == {"May 15"}  # the demo's May 15 is still in force
    # an echo stays an echo: no noun phrase of its own, or one that names the holder's subject
    for echo in ("Thanks, I double-checked May 15 and it looks right.", "The demo slot on May 15 looks fine to me.", "Noted May 15 in my own notes too."):
        assert len(ledger_of("The demo is on May 15.", echo)) == 1, echo


def test_a_rule_read_with_its_aside_set_apart_is_held_as_written() -> None:
    said = "Never delete anything under /srv/out (for context, the backup host is bk-1.example.org) without asking me."
    led = ledger_of("The export path is /srv/out.", said, "The export path moved to /srv/out2.", "The backup host is bk-2.example.org now.")
    out = L.scrub(said, led)
    assert out.startswith("Never delete anything under /srv/out (") and out.endswith(") without asking me.")  # the rule in force, as written
    assert "bk-1" not in out and "bk-2.example.org" in out  # its aside, a statement of its own, is scrubbed like any text
    assert "[updated later: /srv/out2]" in L.scrub(said + " Also /srv/out is big.", led).split("me.")[-1]  # outside the rule: scrubbed


def test_probe5_language_preferences_take_a_language_whatever_the_templates_case() -> None:
    import memory_sessions as M

    seen = 0
    for seed in range(13_000, 13_006):
        g = M.generate(seed, "probe5")
        said = "\n".join(m.text for m in g.messages if m.role == "user")
        for m in re.finditer(r"Answers in (\S+(?: \S+)?) work best", said):
            seen += 1
            assert not m.group(1)[0].isdigit(), m.group(0)  # before: "Answers in 45 seconds work best for me."
    assert seen, "no seed wrote the template: the check above would pass on nothing"
