"""A safety rule whose protected thing the user corrects (pure).

Kind: a correction of the path, host, branch or id a safety rule protects — the rule stays a rule, about the right
thing. Two sentences of this kind, our own:

* "Never run migrations against db-main-1.internal." then "I wrote db-main-1.internal for the primary before, that's
  wrong: db-main-2.internal" — the old value named as the mistake.
* "Don't commit anything under /srv/keys/2024, the signing keys live there." then "scratch that, the signing keys are
  really under /srv/keys/2025" — a correction in the rule's own words (two content words shared, one value of the
  same kind in each), and the correction's subject all inside the rule's own words.

A correction that names another thing in words shared with the rule ("scratch that, the signing keys backup is under
/srv/keys/backup"; "scratch that, the gateway config to edit is /etc/nginx/sites/app.conf" after "Never edit
/etc/nginx/nginx.conf on the gateway") moves nothing: its subject holds a word the rule lacks, the rule keeps its
path and the new statement is a fact beside it (review of the quarry round: a loose match had moved the fence).

Before, a correction never touched a safety rule (a fact must not lift one): the rule kept the old path in force and
the new one was a fact beside it. Now the rule is superseded by the same rule with the corrected value written in
place of the old one (the only words not the user's are that value, which the user gave), kind safety; the old value
is held by the superseded rule (so no output shows it again) and the correction is kept as the fact it states. Safety
rules are never superseded by anything looser than this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .clauses import IDENTITY_KINDS, Value, find_values, frame, normalize_value
from .entries import Entry
from .subjects import subject_words


def corrected(ledger: Sequence[Entry], entry: Entry) -> list[tuple[int, Entry, str]] | None:
    """(index of each safety rule ``entry`` corrects, the rule rewritten with the new value, the old value), or None."""
    if not entry.values or entry.kind in ("goal",):
        return None
    new = [v for v in find_values(entry.text) if v.text in entry.values and v.kind in IDENTITY_KINDS | {"name"}]
    if len(new) != 1:
        return None
    out = []
    named = {normalize_value(o) for o in entry.replaces}
    said = _words(entry.text)
    for i, e in enumerate(ledger):
        # a hard constraint is corrected the same way only for the path, host or id it names ("Never power down rack
        # R-7, our cold-storage rack" then "Scratch what I told you about the cold-storage rack, it's R-9"); a name in a
        # constraint is a choice, which a correction supersedes
        if not e.active or not (e.kind == "safety" or (e.kind == "constraint" and _names_a_thing(new[0]))):
            continue
        held = [v for v in find_values(e.text) if v.kind == new[0].kind and v.text != new[0].text]
        if named:
            olds = [v for v in held if normalize_value(v.text) in named]
        elif entry.correction and len(held) == 1:
            # the correction's subject must be the rule's own thing: every word of it in the rule's words (a word
            # more — "the signing keys backup", "the gateway config to edit" — names another thing; the rule stays)
            theirs = _words(e.text)
            olds = held if len(said & theirs) >= 2 and set(entry.subject.split()) <= theirs else []
        else:
            olds = []
        if len(olds) != 1:
            continue
        text = e.text.replace(olds[0].text, new[0].text)
        rule = replace(e, text=text, subject=e.subject.replace(" ".join(subject_words(olds[0].text)), " ".join(subject_words(new[0].text))),
                       values=tuple(new[0].text if v == olds[0].text else v for v in e.values), correction=True, source=entry.source)
        out.append((i, rule, olds[0].text))
    return out or None


def _names_a_thing(v: Value) -> bool:
    """A path, host or id, or a codename with a digit ("R-7", "BT-14"), not a plain name ("Vega")."""
    return v.kind in IDENTITY_KINDS or (v.kind == "name" and any(ch.isdigit() for ch in v.text))


def _words(text: str) -> set[str]:
    """The content words of ``text`` outside its values."""
    return set(subject_words(frame(text, find_values(text)).replace("<v>", " ")))
