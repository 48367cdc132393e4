"""Review finding 3 of the ledger: the subject of the assistant's question is its own head noun phrase, in many shapes
("which N does the X <verb> …?", "how many N …?", "what should the X be?", "when/where is the X?", "where does the X
live?", "who owns the X?"), not only the openings of one family's templates; an answer of only a value binds to it only
when the question names one. Questions and answers of our own."""

from __future__ import annotations

from contextwindow.folding import ledger as L
from contextwindow.folding.answers import answered, named


def test_the_head_noun_phrase_is_the_subject() -> None:
    assert named("Which port does the cache listen on?") == "the cache port"
    assert named("Which branch should we deploy from?") == "the deploy branch"
    assert named("What region do we use?") == "the region"
    assert named("How many shards does the index keep?") == "the index shards count"
    assert named("What should the retry limit be?") == "the retry limit"
    assert named("How long should the grace period be?") == "the grace period"
    assert named("When is the code freeze?") == "the code freeze"
    assert named("Where does the config file live?") == "the config file"
    assert named("Who owns the billing service?") == "the billing service owner"


def test_a_question_that_names_nothing_binds_nothing() -> None:
    for q in ["What do you think?", "Which one?", "Is that ok?", "Anything else?", "Shall I go on?"]:
        assert named(q) is None and answered(q, "6380.") is None, q


def test_an_answer_binds_to_the_questions_subject() -> None:
    ledger = L.update([], "6380.", asked="Done with the config. Which port does the cache listen on?")
    assert [(e.subject, e.values) for e in ledger] == [("cache port", ("6380",))]
    ledger = L.update([], "The code freeze is on Thursday.")
    ledger = L.update(ledger, "Friday, March 6.", asked="When is the code freeze?")
    assert [e.values for e in ledger if e.active] == [("Friday", "March 6")] and [e.values for e in ledger if not e.active] == [("Thursday",)]
    ledger = L.update([], "Priya.", asked="Got it. Who owns the billing service?")
    assert [e.values for e in ledger] == [("Priya",)]
    # the same answer after a question naming nothing makes no entry
    assert L.update([], "6380.", asked="Done. What do you think?") == []
