"""Review finding 1 of the ledger: config lines and snake-case keys in what the user PASTES (code, a config file, a
traceback) are not the user's facts; they never supersede what the user said in prose. A few ``key: value`` lines the
user lists under a lead sentence (or alone) still are. Sentences and pastes of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.pasted import without_pasted


def _read(*messages: str) -> list[L.Entry]:
    out: list[L.Entry] = []
    for m in messages:
        out = L.update(out, m)
    return out


def _live(ledger: list[L.Entry]) -> set[str]:
    return {v for e in ledger if e.active for v in e.values}


def _stale(ledger: list[L.Entry]) -> set[str]:
    return {v for e in ledger if not e.active for v in e.values}


_PASTES = [
    # a test in a fence
    "Here is the failing test:\n```python\ndef test_backoff():\n    max_retries = 3\n    assert backoff(max_retries) == 8\n```",
    # the same test indented, no fence
    "the test I ran:\n    max_retries = 3\n    user_name = input()\n    assert backoff(max_retries) == 8",
    # a fence left open to the end of the message
    "quick look at this config ~~~\n~~~\nmax_retries: 3\nlog_level: debug",
    # a traceback that prints the line it failed on
    "It blew up:\nTraceback (most recent call last):\n  File \"jobs/sync.py\", line 41, in <module>\n    max_retries: 3\nKeyError: 'max_retries'",
    # a compose file, mappings nested under keys with no value
    "compose file below\nservices:\n  worker:\n    image: python:3.12\n    environment:\n      max_retries: 3\n    mem_limit: 512m",
    # a settings dump under a line of code (a long list of settings alone is the user's: see test_ledger_readings_mended)
    "env dump:\n$ env | grep opt_\n" + "\n".join(f"opt_{k}: {k}" for k in range(9)) + "\nmax_retries: 3",
    # code at the margin: a call and a statement that ends in ';'
    "in main.js:\nmax_retries = 3;\nrun(max_retries);",
]


def test_a_paste_never_supersedes_what_the_user_said() -> None:
    for paste in _PASTES:
        ledger = _read("The max retries is 5.", paste)
        assert "5" in _live(ledger) and "3" not in _live(ledger) | _stale(ledger), paste
        assert not any(e.subject in ("user name", "log level", "mem limit", "image") for e in ledger), paste


def test_a_paste_makes_no_entry_of_its_own() -> None:
    for paste in _PASTES:
        assert [e for e in _read(paste) if "retr" in e.subject or "_" in e.text or "=" in e.text] == [], paste
    assert _read("Here is the failing test:") == []  # "Here" is no name


def test_the_users_own_settings_list_is_still_read() -> None:
    ledger = _read("The max retries is 5.", "New values for the sync job:\nmax_retries: 7\nlog_level: warning")
    assert _live(ledger) >= {"7", "warning"} and _stale(ledger) == {"5"}
    ledger = _read("The max retries is 5.", "max_retries = 9")  # a one-line message the user typed
    assert _live(ledger) == {"9"} and _stale(ledger) == {"5"}
    # a nested bullet list is a list, not code
    ledger = _read("Limits for the sync job:\n- retries\n    - max retries: 4 attempts\n- logs\n    - keep logs for 14 days")
    assert _live(ledger) >= {"4 attempts", "14 days"}


def test_the_prose_around_a_paste_is_read() -> None:
    said = "The queue host is moth-3.lan.\n```\nqueue_host = 'owl-9.lan'\n```\nAnd never restart the queue during business hours."
    ledger = _read(said)
    assert "moth-3.lan" in _live(ledger)
    assert any(e.kind == "safety" or e.kind == "constraint" for e in ledger)
    assert "owl-9.lan" not in _live(ledger) | _stale(ledger)
    # the line count stays: what is left is where it was
    assert without_pasted(said).split("\n")[0] == "The queue host is moth-3.lan." and len(without_pasted(said).split("\n")) == 5
