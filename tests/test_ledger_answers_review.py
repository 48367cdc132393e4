"""Review of the tarn round's answers to the assistant's question (folding/answers.py, ledger.py's plain-words path):
an answer that says no value makes no entry and retires nothing, a "no" is one only with a separator after it, the old
value a "no" names is replaced only in an entry about the question's subject, and a long clause is read in bounded time.
Sentences of our own (none from a benchmark family)."""

from __future__ import annotations

from contextwindow.folding import constraints
from contextwindow.folding import ledger as L
from contextwindow.folding.answers import MAX_ANSWER_CHARS, answered


def _after(first: str, asked: str, answer: str) -> list[L.Entry]:
    return L.update(L.update([], first), answer, asked=asked)


def test_an_answer_that_says_no_value_makes_no_entry() -> None:
    assert answered("What's our staging host?", "no idea.") is None
    assert answered("What's your name?", "hello.") is None
    assert answered("Is the batch size still 500?", "no, maybe later.") is None
    assert answered("Should the request timeout stay at 30 seconds?", "no, fix the tests first.") is None
    assert answered("Should the request timeout stay at 30 seconds?", "no, it's fine as is.") is None
    # the plain words of a choice still answer "what should I use for X?"
    assert answered("What should I use for the release notes?", "go with a short changelog.") == ("The release notes is a short changelog.", ())


def test_a_no_without_a_value_retires_nothing() -> None:
    for asked, said in [("Should the request timeout stay at 30 seconds?", "no, fix the tests first."),
                        ("Should the request timeout stay at 30 seconds?", "no, it's fine as is."),
                        ("Is the request timeout still 30 seconds?", "no, maybe later.")]:
        ledger = _after("The request timeout is 30 seconds.", asked, said)
        assert [e.values for e in ledger if e.active and "timeout" in e.subject] == [("30 seconds",)], (said, ledger)
        assert "updated later" not in L.scrub("The request timeout is 30 seconds.", ledger)
    ledger = _after("Our staging host is pine-st1.lan.", "What's our staging host?", "no idea.")
    assert all(e.active for e in ledger) and not any("idea" in e.values for e in ledger)


def test_a_no_replaces_the_old_value_only_in_the_subject_asked_about() -> None:
    ledger = _after("The batch size is 500.", "Is the worker count still 500?", "no, 800 now.")
    assert any(e.active and e.subject == "batch size" and e.values == ("500",) for e in ledger)
    ledger = _after("The batch size is 500.", "Is the batch size still 500?", "no, 800 now.")
    assert [e.values for e in ledger if e.active] == [("800",)] and any(not e.active and e.values == ("500",) for e in ledger)


def test_a_long_whitespace_heavy_answer_returns() -> None:
    long = "ok" + " " * 200 + "x"
    assert len(long) > MAX_ANSWER_CHARS and answered("Is the batch size still 500?", long) is None
    assert answered("What's our staging host?", "use elm-st2.lan" + " ," * 40 + " now, thanks.") == ("Our staging host is elm-st2.lan.", ())
    assert answered("What's our staging host?", "use elm-st2.lan , now, thanks!") == ("Our staging host is elm-st2.lan.", ())
    text = "sure " + " \t " * 1000 + "the batch size is 900 " * 3
    ledger = constraints.update([], text, asked="What's our staging host?")
    assert all("staging" not in c.subject for c in ledger)


def _conversation() -> list:
    from contextwindow.messages import assistant, user

    return [user("The batch size is 500 rows. Help me tune the importer."), assistant("Sure. Is the batch size still 500 rows?"),
            user("no, 800 rows now."), assistant("Noted. What should I use for the progress log?"), user("go with a plain text file.")]


def _live(session) -> set[str]:  # type: ignore[no-untyped-def]
    return {v for c in session.constraints() if c.active for v in c.values}


def test_one_message_at_a_time_reads_the_answer_as_all_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from contextwindow.session import Session
    from contextwindow.store import open_store

    msgs = _conversation()
    whole = Session(open_store(f"sqlite:///{tmp_path / 'a.db'}"), window=50_000, max_output=1_000)
    whole.add(*msgs)
    store = open_store(f"sqlite:///{tmp_path / 'b.db'}")
    one = Session(store, window=50_000, max_output=1_000)
    for m in msgs[:2]:
        one.add(m)
    again = Session(store, window=50_000, max_output=1_000, conversation_id=one.id)  # reopened: the question is read from the store
    for m in msgs[2:]:
        again.add(m)
    assert _live(whole) == _live(again) and {"800 rows", "a plain text file"} <= _live(whole) and "500 rows" not in _live(whole)
    # a client that re-sends its whole history (the proxy): the confirmed answer is read with the question before it
    synced = Session(open_store(f"sqlite:///{tmp_path / 'c.db'}"), window=50_000, max_output=1_000)
    for n in (1, 3, 5):
        synced.sync(msgs[:n])
    synced.sync([*msgs, assistant_reply()])
    assert _live(synced) == _live(whole)


def assistant_reply():  # type: ignore[no-untyped-def]
    from contextwindow.messages import assistant

    return assistant("Done.")
