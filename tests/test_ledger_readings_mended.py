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


def _live(led: list[tuple[str, str, tuple[str, ...], bool]]) -> set[str]:
    return {v for _k, _s, vals, active in led if active for v in vals}


def test_a_settings_list_the_user_typed_is_read_indented_or_long() -> None:
    # finding 3: indented config lines with no code around them, and a list longer than 8, are the user's own
    led = _read((None, "The upload chunk size is 64 KB."), (None, "Changes for the uploader:\n    chunk_size: 128 KB\n    upload_workers: 6"))
    assert _live(led) >= {"128 KB", "6"} and "64 KB" not in _live(led)
    listed = "\n".join(f"knob_{k}: {k + 20}" for k in range(10))
    assert _live(_read((None, "Tuning for tonight's batch run:\n" + listed))) >= {"20", "29"}


def test_prose_ending_like_code_is_still_prose() -> None:
    # finding 4: ';' or '(' at a line's end, an indented line of words, a key with no value over words
    led = _read((None, "The upload chunk size is 64 KB."), (None, "the nightly upload failed again :(\nchunk_size: 128 KB"))
    assert "128 KB" in _live(led)
    led = _read((None, "The upload chunk size is 64 KB."), (None, "The upload chunk size is 256 KB;\nthe retry delay stays as it is."))
    assert "256 KB" in _live(led) and "64 KB" not in _live(led)
    for said in ("right, two notes;\n  the upload chunk size is 256 KB now\n  never delete the upload bucket",
                 "ground rules:\n  never delete the upload bucket\n  the upload chunk size is 256 KB now"):
        led = _read((None, said))
        assert any(kind == "safety" for kind, *_ in led), said
        assert "256 KB" in _live(led), said
    # code that ends like that still is code: no entry from it
    assert _read((None, "in upload.c:\nchunk_size = 4096;\nstart_upload(chunk_size);")) == []


def test_an_inline_code_span_does_not_open_a_fence() -> None:
    # finding 5: "```x```" on one line toggled the fence and blanked every line after it
    led = _read((None, "```chunk_size``` is the key to set.\nThe upload chunk size is 256 KB.\nNever delete the upload bucket."))
    assert "256 KB" in _live(led) and any(kind == "safety" for kind, *_ in led)


def test_only_before_a_verb_with_an_ending_like_a_past_or_plural_still_directs() -> None:
    # finding 6: "-ed"/"-s" endings read as finite verbs lost these directives
    from contextwindow.folding.mood import only_directs

    for rule in ("Only proceed when the canary is green.", "Proceed only with a signed release tag.",
                 "Only focus on the ingest service today.", "Only seed the staging tables from snapshots.",
                 "Only access the billing database through the jump host."):
        assert only_directs(rule), rule
    for seen in ("Only Safari renders the glitch.", "Only interns merged on weekends.", "Only crashed twice.",
                 "Only staging has the hotfix."):
        assert not only_directs(seen), seen


def test_a_rule_before_a_colon_is_not_a_label() -> None:
    # finding 7: "Only <verb> …:" was stripped as a label, losing the rule
    from contextwindow.folding.mood import only_directs

    assert only_directs("Only restart via Ansible: the old script is broken.")
    assert not only_directs("Heads-up: only Safari renders the glitch.")


def test_a_past_or_descriptive_only_is_no_rule() -> None:
    # finding 9: irregular pasts and a count with a past verb describe what happened
    for seen in ("The mirror only went offline once.", "Edge only broke on the kiosk build.",
                 "Only two nightly jobs took over an hour.", "Only a handful of users saw the banner."):
        assert not any(kind in ("constraint", "safety") for kind, *_ in _read((None, seen))), seen


def _scrubbed(said: str, *history: str) -> str:
    from contextwindow.folding.ledger import scrub

    led: list = []
    for m in history:
        led = update(led, m)
    return scrub(said, led)


def test_a_bare_number_is_scrubbed_where_a_word_of_its_subject_is_named() -> None:
    # finding 10: every subject word was required, so "keep the cap at 4" kept the superseded 4
    out = _scrubbed("Fine, I'll leave the cap at 4 for this sprint.", "The reviewer cap is 4.", "Actually, make the reviewer cap 6.")
    assert "4" not in out and "[updated later: 6]" in out
    # a number that is not a value of its own stays ("4 jobs" is another thing's count)
    assert "4 jobs" in _scrubbed("The cap holds 4 jobs.", "The reviewer cap is 4.", "Actually, make the reviewer cap 6.")


def test_a_decimal_is_one_value_when_scrubbing() -> None:
    # finding 11: a clause ended at the dot of "4.5", and a stale statement matched the head of a longer one
    history = ("The reviewer cap is 4.", "Actually, make the reviewer cap 6.")
    assert _scrubbed("The reviewer cap is 4.5 per day? no.", *history) == "The reviewer cap is 4.5 per day? no."
    assert _scrubbed("For the cap, 4.5 is fine.", *history) == "For the cap, 4.5 is fine."


def test_a_thing_kept_for_someone_only_is_a_rule() -> None:
    # with "-ing" no longer a base verb, "Voiding … is for X only" lost the reading it had by accident (seen on tarn)
    from contextwindow.folding.mood import only_directs

    assert only_directs("Rotating the signing key is for the release bot only.")
    assert only_directs("The prod console is reserved for on-call engineers only.")
    assert not only_directs("Rotating the signing key only took a minute.")
