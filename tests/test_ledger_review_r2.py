"""The review of the quarry round's ledger rules (issue 11): each finding's kind in sentences of our own, beside the
reviewer's where they show it best. Each of these failed on the tree before the mend it names."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.typos import mend
from ledger_helpers import ledger_of, live_values, stale_values


def _safety(ledger: list[L.Entry]) -> list[str]:
    return [e.text for e in L.active(ledger) if e.kind == "safety"]


def test_a_loose_correction_never_moves_a_safety_rule_off_its_path() -> None:
    ledger = ledger_of("Don't commit anything under /srv/keys/2024, the signing keys live there.",
                       "scratch that, the signing keys backup is under /srv/keys/backup")
    assert any("/srv/keys/2024" in t for t in _safety(ledger))
    ledger = ledger_of("Never delete rows from the audit table on db-audit-1.internal",
                       "scratch that, the audit table copy to clean up is on db-scratch-3.internal")
    assert any("db-audit-1.internal" in t for t in _safety(ledger))
    assert not any("db-scratch-3.internal" in t for t in _safety(ledger))
    ledger = ledger_of("Never edit /etc/nginx/nginx.conf on the gateway", "scratch that, the gateway config to edit is /etc/nginx/sites/app.conf")
    assert _safety(ledger) == ["Never edit /etc/nginx/nginx.conf on the gateway"]


def test_a_limit_of_a_thing_is_not_its_value() -> None:
    ledger = ledger_of("The EU cluster has 12 nodes.", "the cluster has 14 nodes", "The EU cluster node limit is 20 nodes.")
    assert "14 nodes" in live_values(ledger)
    ledger = ledger_of("The archive bucket holds 300 GB.", "The archive bucket size cap is 500 GB.")
    assert live_values(ledger) == {"300 GB", "500 GB"}
    ledger = ledger_of("The EU cluster node limit is 20 nodes.", "the EU cluster has 14 nodes")
    assert live_values(ledger) == {"20 nodes", "14 nodes"}
    ledger = ledger_of("Split any pull request larger than 30 lines.", "The pull request size limit went to 60 lines.")
    assert live_values(ledger) == {"60 lines"}  # a rule worded as a bound is that bound
def test_a_pronoun_after_a_remark_about_the_speaker_keeps_its_antecedent() -> None:
    ledger = ledger_of("this is the build box, it has 32 GB of RAM", "this is the CI box, it has 64 GB of RAM")
    assert live_values(ledger) == {"32 GB", "64 GB"}
    ledger = ledger_of("I run the billing worker, it restarts every 6 hours", "I also look after the mail worker, it restarts every 2 hours")
    assert live_values(ledger) == {"6 hours", "2 hours"}
    assert ledger_of("I set up the EU cluster, it runs 12 nodes") != []
    [e] = ledger_of("while I remember, and this counts for later, the nightly export has to finish by 06:30")
    assert e.subject == "nightly export"  # a remark that follows a remark is no antecedent


def test_a_value_is_taken_as_written_not_as_mended() -> None:
    [e] = ledger_of("The mirror path is /srv/hte/data")
    assert e.values == ("/srv/hte/data",)
    [e] = ledger_of("Teh export folder is /srv/teh/adn")
    assert e.values == ("/srv/teh/adn",) and e.subject == "export folder"


def test_read_only_describing_a_thing_is_no_rule() -> None:
    kinds = {e.text: e.kind for e in ledger_of("The docs mount is read-only now, so builds write to /tmp/build")}
    assert "safety" not in kinds.values()
    [e] = ledger_of("Read-only: the billing replica db-bill-2.internal")
    assert e.kind == "safety"
    [e] = ledger_of("Keep /srv/archive read-only")
    assert e.kind == "safety"


def test_a_real_word_is_never_mended_into_a_function_word() -> None:
    for said in ("the error arises at startup", "arising costs are fine", "the toady answer", "a oaky wine", "those odes"):
        assert mend(said) == said, said
    assert mend("Hte nightly export adn teh archive") == "The nightly export and the archive"
    assert mend("the export shoudl finish") == "the export shoudl finish"  # a longer swap may be a word: left as written


def test_a_correction_that_judges_an_earlier_value_wrong_replaces_it() -> None:
    for said in ("I told you 40 GB for the scratch volume, but that was wrong, it's 60 GB",
                 "the 40 GB I gave for the scratch volume was wrong, it should be 60 GB",
                 "We had 40 GB down for the scratch volume, which is wrong: 60 GB",
                 "Earlier I typed 40 GB as the scratch volume size; that's incorrect, it's 60 GB"):
        ledger = ledger_of("The scratch volume is 40 GB.", said)
        assert live_values(ledger) == {"60 GB"} and stale_values(ledger) == {"40 GB"}, said
    ledger = ledger_of("The client pin is v2.3.1.", "I gave you v2.3.1 for the client pin yesterday, that was a typo - v2.4.0")
    assert live_values(ledger) == {"v2.4.0"} and stale_values(ledger) == {"v2.3.1"}
    ledger = ledger_of("The scratch volume is 40 GB.", "I told you 40 GB for the scratch volume, and the cache is 60 GB")
    assert live_values(ledger) == {"40 GB", "60 GB"}  # no judgement: nothing corrected


def test_any_negated_verb_on_a_path_is_a_fence() -> None:
    for said in ("don't rename files under /opt/vendor", "never paste the contents of ~/.ssh/id_ed25519 into the chat",
                 "don't share anything from /srv/legal/contracts", "never chmod /var/lib/postgres"):
        [e] = ledger_of(said)
        assert e.kind == "safety", said
    [e] = ledger_of("never rename more than 20 files in one pass")
    assert e.kind == "constraint"
