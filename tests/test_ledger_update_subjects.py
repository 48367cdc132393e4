"""An update that names the old value and its subject supersedes only the entry of that subject (review rledger,
findings 3, 4 and 6). Some sentences are the reviewer's, the others written for this test; the same value is held by
two subjects so that a match by value alone shows. Arrow chains, log lines and pasted tool output are not updates."""

from __future__ import annotations

import pytest

from ledger_helpers import ledger_of, live_values, stale_values


@pytest.mark.parametrize(
    ("mine", "other", "update", "old", "new"),
    [
        # the reviewer's
        ("The replica count is 3.", "The shard count is 3.", "The replica count went from 3 to 5.", "3", "5"),
        ("The DB timeout is 30 s.", "The API timeout is 30 s.", "DB timeout: 30 s → 45 s", "30 s", "45 s"),
        ("The canary host is Orion.", "The staging host is Orion.", "We swapped Orion for Vega as the canary host.", "Orion", "Vega"),
        ("The analytics database is MySQL.", "The app database is MySQL.", "Use Postgres instead of MySQL for the analytics database.", "MySQL", "Postgres"),
        # written for this test
        ("The backend deploy window is Tuesday 14:00.", "The frontend deploy window is Tuesday 14:00.",
         "The backend deploy window went from Tuesday 14:00 to Thursday 09:00.", "14:00", "09:00"),
        ("The training batch size is 64.", "The eval batch size is 64.", "For the training batch size, 128 instead of 64.", "64", "128"),
        ("The worker pool size is 20.", "The connection pool size is 20.", "Worker pool size: 20 -> 32", "20", "32"),
        ("The EU bucket is Helios.", "The fallback bucket is Helios.", "We replaced Helios with Selene for the EU bucket.", "Helios", "Selene"),
    ],
)
def test_an_update_supersedes_only_the_holder_of_its_own_subject(mine: str, other: str, update: str, old: str, new: str) -> None:
    for order in ((mine, other), (other, mine)):
        led = ledger_of(*order, update)
        live = [e for e in led if e.active]
        assert any(new in v for v in live_values(led)), led
        assert any(e.text == other for e in live), led  # the other subject keeps the same value
        assert not any(e.text == mine for e in live), led  # its own holder is superseded
        assert old in stale_values(led)


@pytest.mark.parametrize(
    ("first", "update", "old", "new"),
    [
        # one holder, its subject named in other words: still an update
        ("Hard limit: memory per worker of at most 512 MB.", "Since Monday the cap on memory per worker went from 512 MB to 768 MB.", "512 MB", "768 MB"),
        ("The CI runner image is v2.1.", "We replaced v2.1 with v2.4 for the CI runner image.", "v2.1", "v2.4"),
        ("The replica count is 3.", "Replica count: 3 -> 5", "3", "5"),
        ("The nightly export runs at 02:00.", "Nightly export: 02:00 → 04:30", "02:00", "04:30"),
        ("The DB pool size is 20.", "DB pool size: 20 => 40", "20", "40"),
    ],
)
def test_an_update_of_the_one_holder_still_supersedes(first: str, update: str, old: str, new: str) -> None:
    led = ledger_of(first, update)
    assert old in stale_values(led) and any(new in v for v in live_values(led)), led


@pytest.mark.parametrize(
    ("first", "edit", "kept"),
    [
        # the reviewer's: an edit of a document, or a value for another thing
        ("The API key is in vault/prod.", "Swap vault/prod for vault/stage in the README example for the API key.", "vault/prod"),
        ("The max upload size is 10 MB.", "Replace 10 MB with 10 MiB in the docs for the max upload size wording.", "10 MB"),
        ("The batch size is 32.", "Use 64 instead of 32 for the warmup steps.", "32"),
        # written for this test
        ("The session timeout is 15 minutes.", "Replace 15 minutes with 20 minutes in the onboarding slides for the session timeout example.", "15 minutes"),
        ("The retry limit is 5.", "Use 7 instead of 5 for the page size.", "5"),
        ("The release codename is Kestrel.", "We swapped Kestrel for Osprey in the changelog template for the release codename.", "Kestrel"),
    ],
)
def test_an_update_of_another_thing_supersedes_nothing(first: str, edit: str, kept: str) -> None:
    led = ledger_of(first, edit)
    assert any(e.active and e.text == first for e in led), led
    assert kept not in stale_values(led), led


@pytest.mark.parametrize(
    ("first", "line", "kept"),
    [
        # the reviewer's: a chain, a log line, pasted output, another subject before the colon
        ("Default region is eu-west-1.", "Failover: eu-west-1 -> eu-central-1 -> us-east-1", "eu-west-1"),
        ("The replica count is 2.", "Scale: 1 -> 2 -> 4 replicas", "2"),
        ("The standup is at 10:30.", "Logs: ERROR 10:30 -> WARN 10:31", "10:30"),
        ("The replica count is 3.", "Output of kubectl:\n    replicas: 3 -> 5\nCan you explain?", "3"),
        # (the reviewer's "The staging host is web-3." is not read on this branch: lower-case ids, review 2, i11miss)
        ("The staging host is Orion.", "Traffic: Orion → Vega during the drill.", "Orion"),
        # written for this test
        ("The canary share is 5 percent.", "Rollout: 2 => 5 => 10 percent of pods.", "5 percent"),
        ("The worker count is 3.", "2026-11-24 10:31:02 INFO pool: 3 -> 5 workers", "3"),
        ("The worker count is 3.", "[10:31:02] scaler: 3 -> 5", "3"),
        ("The cache TTL is 40 s.", "Here is what the deploy printed:\n  cache ttl: 40 s -> 60 s\n  workers: 3 -> 5\nWhy did it change?", "40 s"),
        ("The on-call lead is Mira.", "Escalation: Mira → Jonas → Priya", "Mira"),
        ("The cache hit rate is 40%.", "Error rate: 40% -> 55% after the deploy.", "40%"),
    ],
)
def test_chains_log_lines_and_pasted_output_are_not_updates(first: str, line: str, kept: str) -> None:
    led = ledger_of(first, line)
    assert any(e.active and e.text == first for e in led), led
    assert kept not in stale_values(led), led
