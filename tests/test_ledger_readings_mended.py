"""The review of this session's ledger readings (docs/memory.md, "review of the readings, mended"): each case
here was read wrongly before its mend. A false entry or a false supersession is worse than a miss."""

from __future__ import annotations

from contextwindow.folding.answers import named
from contextwindow.folding.ledger import update


def _read(*turns: tuple[str | None, str]) -> list[tuple[str, str, tuple[str, ...], bool]]:
    led: list = []
    for asked, said in turns:
        led = update(led, said, asked=asked)
    return [(e.kind, e.subject, e.values, e.active) for e in led]


def test_a_question_about_the_past_names_no_setting() -> None:
    # finding 1: "did" asks what a thing was; the answer must not retire the value the user set
    led = _read((None, "The queue's worker count is 14 now."), ("Which host did the export job crash on?", "pine-07."),
                ("How many workers did the queue run with last week?", "9."))
    assert [v for _k, _s, v, active in led if active] == [("14",)]
    assert named("Which region did the mirror sync from?") is None


def test_the_question_noun_phrase_is_a_determiner_and_a_few_words() -> None:
    # finding 2: the noun phrase swallowed a verb and a clause ("the cache listen on before the port")
    assert named("Which port does the proxy bind to before the firewall is up?") is None
    assert named("How many shards does the index in staging keep?") is None
    assert named("Which port does the proxy bind to?") == "the proxy port"
    assert named("Which port does the metrics proxy bind to?") == "the metrics proxy port"
    led = _read((None, "The proxy port is 8443."), ("Which port does the proxy bind to before the firewall is up?", "8080."))
    assert led == [("fact", "proxy port", ("8443",), True)]
