"""When a new entry supersedes older ones: the same subject, or (between values of the same kind and
unit) the old subject named in the new clause, or an update cue and the one entry it shares the
most words with. Two subjects with a word on each side the other lacks are never merged. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from . import corrections, fences, pronouns, updates
from .clauses import find_values, frame, normalize_value
from .entries import Entry
from .relations import _UNCHANGED
from .subjects import align, caps, same_subject, subject_words
from .vocabulary import BOUND_CLASS, BOUND_NOUNS, UPDATE_CUE


def add(ledger: Sequence[Entry], entry: Entry) -> list[Entry]:
    """``ledger`` with ``entry`` added: the active entries about the same subject are superseded
    (an ambiguous match — several different subjects the new one only partly names — supersedes
    none of them; both stay). An entry with no subject (a correction or a value-only clause) is
    about the entry ``corrections.resolve`` finds, or states nothing; one that names the value it
    replaces ("X is V, not U") supersedes the entry holding U."""
    out = list(ledger)
    if not entry.subject:
        found = corrections.resolve(out, entry)
        if found is None:
            return out
        entry = found
    if entry.loose and _repeated(out, entry):
        return out  # a value said again in passing ("Thanks, I double-checked V"): no statement of its own
    fenced = fences.corrected(out, entry)
    if fenced:  # a correction of what a safety rule protects: the rule, with the right value (fences.py)
        for i, rule, old_value in fenced:
            out[i] = replace(out[i], active=False, updated_to=", ".join(entry.values), values=(*out[i].values, old_value))
            out.append(rule)
    rewritten = set(range(len(out) - len(fenced or ()), len(out)))  # a rule just written with the corrected value stays
    named = {i: _named_as(entry, e) for i, e in enumerate(out) if e.active and i not in rewritten}  # the new subject in each old one's words
    matches = [i for i, e in enumerate(out) if i in named and same_subject(e.subject, named[i]) and not _person_and_thing(e, entry)]
    # a plain fact about a thing does not restate the bound set on it ("the EU cluster has 14 nodes" after "The EU
    # cluster node limit is 20 nodes."): a bound word of the old subject the new one lacks is another attribute
    exact = [i for i in matches if set(out[i].subject.split()) == set(named[i].split())]
    if len(matches) > 1 and not exact:
        distinct = {out[i].subject for i in matches}
        matches = matches if len(distinct) == 1 else []
    elif exact:
        matches = exact
    # an entry that names the value it replaces ("X is V, not U") is about the entry holding U: no looser guess beside it
    held = _held(out, entry) if entry.replaces and entry.kind not in ("safety", "goal") else []
    # (an update in a frame of its own whose old value only other things hold: about none of them, no looser guess either)
    names_holder = bool(held) or bool(entry.replaces and entry.subject and corrections.holders(out, entry.replaces) and updates.replaced(entry.text)[1])
    if not names_holder and (not matches or (entry.values and all(not out[i].values for i in matches))):
        # nothing, or only a value-less mention of the subject ("We eased the X limit;" before "V is fine
        # now"): the entry holding the old value may still be named in looser words
        matches = [*matches, *(i for i in _named_in_clause(out, entry) or _cued_update(out, entry) or _core_named(out, entry) if i not in matches)]
    if held:
        matches = [*matches, *(i for i in held if i not in matches)]
        if entry.correction and held:
            entry = replace(entry, kind=out[held[-1]].kind)  # a correction is of the kind of what it corrects
    matches = [i for i in matches if i not in rewritten and not (_plain_value(entry) and (set(out[i].subject.split()) - set(entry.subject.split())) & _LIMIT_WORDS)]
    entry = _named_in_fewer_words(entry, [out[i] for i in matches])
    for i in matches:
        old = out[i]
        new_vals = set(entry.values)
        note = ", ".join(entry.values) if entry.values and entry.value[0] == old.value[:1] else entry.text
        if old.value == entry.value and old.text == entry.text:
            out[i] = replace(old, active=False, updated_to="")
            continue
        changed = old.value != entry.value and not (old.values and set(old.values) <= new_vals)
        out[i] = replace(old, active=False, updated_to=note if changed else "")
        # older stale entries of this subject now point at the newest value too
        out = [replace(e, updated_to=note) if not e.active and e.updated_to and same_subject(e.subject, old.subject) else e for e in out]
    out.append(entry)
    return out


def _held(ledger: Sequence[Entry], entry: Entry) -> list[int]:
    """The entries holding a value ``entry`` names as the one it replaces (a value of the same kind and unit), kept to
    those about ``entry``'s own subject: "The replica count went from 3 to 5" is not about "The shard count is 3"
    (review rledger, 3). Of the holders whose statement or subject says a word of the new subject, those that say the
    most. An update in a frame of its own (``updates.replaced``: a swap, "instead of", "from U to V", an arrow) names
    its thing in the frame: a holder that is another thing (``_other_thing``, judged on the words the holder says
    itself) is never it, and when no holder says a word of it, none is ("Use 64 instead of 32 for the warmup steps" is
    not about "The batch size is 32"; "Swap U for V in the README example for the API key" not about the API key: 6).
    Any other update ("X: not U anymore — V", "V, not U", read as two sentences in one clause or with a typo in X)
    falls back to every holder when none says a word of it. An update that names no subject is about every holder."""
    held = [i for i in corrections.holders(ledger, entry.replaces) if corrections.compatible(ledger[i].signature, entry.signature)]
    new = _core(entry)
    if not new:
        return held
    framed = bool(updates.replaced(entry.text)[1])
    scored = []
    for i in held:
        said = _split(set(subject_words(ledger[i].text)))
        if not (framed and _other_thing(_core(ledger[i]) & said, new)):
            scored.append((len(new & (said | set(ledger[i].subject.split()))), i))
    top = max((n for n, _ in scored), default=0)
    if not top:
        return [] if framed else held
    return [i for n, i in scored if n == top]


def _other_thing(old: set[str], new: set[str]) -> bool:
    """Two subjects (core words) that share a word name two things when they share one word only and each has a word the
    other lacks ("error rate" / "cache hit rate", "canary host" / "staging host"), or when the new one holds the old one
    and adds a word that is no attribute ("the README example for the API key" beside "the API key"; "the X deadline"
    is still X's)."""
    shared = old & new
    if not shared:
        return False
    return (len(shared) < 2 and bool(old - new and new - old)) or (old < new and not new - old <= _ATTRIBUTE_WORDS)


def _named_in_fewer_words(entry: Entry, olds: Sequence[Entry]) -> Entry:
    """Kind: an update that names its subject in fewer words than the statement it replaces, e.g. "The nightly backup
    window starts at 02:00." then "my bad, the backup window starts at 03:00" then "Set the nightly backup window to
    01:30.", or "Keep the staging replica count at 3 replicas" then "replica count: 4 replicas" then "Set the staging
    replica count to 6 replicas." The second statement replaced the first through its shorter name; before, it kept
    that shorter subject, and the third, naming the thing in full again, was "more specific" (a new subject): the
    second value stayed in force. The entry takes the subject of the one thing it replaced (all replaced entries of one
    subject, its own words all inside it), and is marked ``resolved``: its words alone do not name that subject, so a
    memory block writes it as ``subject: value`` and it reads back the same."""
    mine = set(entry.subject.split())
    subjects = {o.subject for o in olds if o.values}
    if len(subjects) != 1 or entry.kind == "goal":
        return entry
    (theirs,) = subjects
    if not mine < set(theirs.split()) or set(theirs.split()) - mine & _ROLE_WORDS:
        return entry  # (a role word it lacks: "the X config lives in V" is not about "owner X")
    if not all(corrections.compatible(o.signature, entry.signature) for o in olds if o.values):
        return entry  # another kind of value is another attribute of the thing
    return replace(entry, subject=theirs, resolved=True)


def _named_as(entry: Entry, old: Entry) -> str:
    """``entry``'s subject with an abbreviation written in capitals on either side read as the words it
    abbreviates on the other ("the OMS go-live" / "the order management system go-live"); never for
    safety rules or goals."""
    if "safety" in (entry.kind, old.kind) or "goal" in (entry.kind, old.kind):
        return entry.subject
    new_caps, old_caps = caps(entry.text), caps(old.text)
    if not new_caps and not old_caps:
        return entry.subject
    return " ".join(align(entry.subject.split(), old.subject.split(), new_caps, old_caps))


def _repeated(ledger: Sequence[Entry], entry: Entry) -> bool:
    """``entry`` (read by no relation) only repeats values some other subject's entry states or stated,
    and names no thing of its own: no noun phrase ("Thanks, I double-checked V"), or words of a holder's
    subject ("The X pods peak well below V"). A value said for another thing ("Expect the launch on V"
    after "The demo is on V") is a statement of its own."""
    if not entry.values:
        return False
    norms = {normalize_value(v) for v in entry.values}
    holders = [e for e in ledger if e.subject != entry.subject and norms & {normalize_value(v) for v in e.values}]
    if norms - {normalize_value(v) for e in holders for v in e.values}:
        return False
    np = pronouns.antecedent(entry.text)
    if np is None or re.match(r"\w+\s+own\b", np):
        return True  # no thing named, or the speaker's own ("Noted V in my own notes too"); any other determiner names a thing

    said = set(subject_words(entry.context + " " + entry.text))
    return any((set(e.subject.split()) - _ROLE_WORDS) & said for e in holders)


def _person_and_thing(a: Entry, b: Entry) -> bool:
    """One names a person ("Luca inherits the X"), the other a thing's name ("the X is Corvus-95 now"):
    two attributes of the same subject, not an update of each other."""
    roles_a, roles_b = set(a.subject.split()) & _ROLE_WORDS, set(b.subject.split()) & _ROLE_WORDS
    return {a.signature, b.signature} == {"name", "codename"} and roles_a != roles_b  # "the X name: Orion-7" → "Vega" still updates


_ROLE_WORDS = {"owner", "name"}  # "X has a new owner: V" names X's owner, not a more specific X
# attributes a later statement may name a thing by ("Add a week to the migration deadline" after "The migration
# must be wrapped up by V"): the thing's, not a more specific thing
_ATTRIBUTE_WORDS = _ROLE_WORDS | {"deadline", "date", "budget", "limit", "size", "floor", "target", "length", "count", "timeout", "configuration",
                                    # what a choice is made of ("the diagram tool for docs" after "Diagrams in the docs … in V"): the thing's, not another thing
                                    "tool", "choice", "library", "framework"}


# quantities set for a thing that are not the thing's own value: "the review queue target" is not how many items the
# queue has, "the nightly build timeout" not how long it runs. One supersedes only an entry that carries the same word.
# A bound set on a thing is not its value either (review of the quarry round: "The EU cluster node limit is 20 nodes."
# had superseded "the cluster has 14 nodes", "the search index size limit is 80 GB" "the search index size is 40 GB").
# A statement that words its value as a bound ("Split any pull request larger than V") is that bound, limit or not.
_OTHER_QUANTITY = {"target", "timeout", "floor", "threshold", "minimum", "goal", "quota"}
_LIMIT_WORDS = {w for w, c in BOUND_CLASS.items() if c in ("lower", "upper")} | {"budget"}
_BOUNDED = re.compile(r"\b(?:more|less|fewer|larger|bigger|smaller|longer|shorter|higher|lower|over|under|above|below|past|beyond|within"
                      r"|exceed\w*|at most|at least|up to|tops? out|no more|cap\w*|limit\w*)\b", re.IGNORECASE)


def _plain_value(e: Entry) -> bool:
    """``e`` states a thing's own value (a fact not worded as a bound): a limit set on the thing is another attribute."""
    return e.kind == "fact" and not _BOUNDED.search(e.text) and not set(e.subject.split()) & (_LIMIT_WORDS | _OTHER_QUANTITY)


def _other_role(a: Entry, b: Entry) -> bool:
    """Two attributes of one thing ("owner of X" and "X name"; "X" and then "X target"): not an update of each other."""
    wa, wb = set(a.subject.split()), set(b.subject.split())
    ra, rb = wa & _ROLE_WORDS, wb & _ROLE_WORDS
    # (a bound said as a rule, "X must answer within U", is the X target, and its floor or timeout)
    return bool(ra and rb and ra != rb) or (a.kind == "fact" and bool((wb - wa) & _OTHER_QUANTITY)) or (_plain_value(a) and bool((wb - wa) & _LIMIT_WORDS))


def _named_in_clause(ledger: Sequence[Entry], entry: Entry) -> list[int]:
    """Active entries a loosely worded update names: a value of the same kind (and unit), and
    every word of the old subject in the new clause ("It's fine to open pull requests up to 90
    lines" names "open pull request": 76 lines). Only the most specific such subject, only when
    it is one subject, never one the new subject makes more specific (that is a new subject),
    never a safety rule or a goal."""
    if not entry.signature or entry.kind in ("safety", "goal"):
        return []
    told = _UNCHANGED.sub("", entry.text)  # "…; the Oslo one stays where it is" names what did not change
    said = set(subject_words(frame(told, find_values(told)).replace("<v>", " "))) | set(subject_words(told))
    new = set(entry.subject.split())
    cands = []
    for i, e in enumerate(ledger):
        words = set(e.subject.split())
        if not e.active or e.kind in ("safety", "goal") or not corrections.compatible(e.signature, entry.signature) or not words <= said or _other_role(e, entry):
            continue
        if words < new and not new - words <= _ATTRIBUTE_WORDS:
            continue  # a more specific subject ("frontend release" after "release") is a new one
        if len(words) < 2 and any(o.active and o is not e and words < set(o.subject.split()) for o in ledger):
            continue  # one word that other subjects share ("release" beside "frontend release")
        cands.append(i)
    if not cands:
        return []
    widest = max(len(set(ledger[i].subject.split())) for i in cands)
    top = [i for i in cands if len(set(ledger[i].subject.split())) == widest]
    if len({ledger[i].subject for i in top}) != 1 or any(not set(ledger[i].subject.split()) <= set(ledger[top[0]].subject.split()) for i in cands):
        return []
    return top


def _core(e: Entry) -> set[str]:
    """``e``'s subject without the words that name its bound or what its value counts ("the node count of the green
    cluster" is the green cluster's, counted in nodes; "the docs page render budget" is the docs page render's)."""
    units = {w for v in e.values for w in subject_words(re.sub(r"^[\d.,\s$€£]+", "", v))} if e.signature.startswith("number") else set()
    # a compound of two words is the two words here ("first-response" / "first response"; not in the subject itself,
    # where "parcel-router" names one service that "parcel router …" must not match by two words alone)
    return _split(set(e.subject.split())) - BOUND_NOUNS - {"number"} - units - _CHOICE_WORDS


def _split(words: set[str]) -> set[str]:
    """``words`` with a compound of two words as the two words ("first-response", "per-device")."""
    return {p for w in words for p in (w.split("-") if re.fullmatch(r"[a-z]{3,}-[a-z]{3,}", w) else [w])}


# the words a choice among tools or styles is named by, not what it is for ("the mobile e2e framework", "my pick for
# mobile e2e", "my docs diagram preference"): set aside like a bound noun (the 5b3098e kind, see docs/memory.md)
_CHOICE_WORDS = {"tool", "choice", "library", "framework", "pick", "preference", "default"}


def _bounds(e: Entry) -> set[str]:
    """The classes of the bound nouns ``e``'s subject names (vocabulary.BOUND_CLASS)."""
    return {BOUND_CLASS[w] for w in e.subject.split() if w in BOUND_CLASS}


def _core_named(ledger: Sequence[Entry], entry: Entry) -> list[int]:
    """The one active entry (a value of the same kind and unit) whose subject, bound and unit words set aside on both
    sides, holds all of the new one's — two words or more ("the tier-2 first-response SLA" after "Tier-2 tickets get
    a first response within U"). A word of the new subject the old one lacks makes another subject ("eval batch size"
    beside "training batch size"); several such entries, none. Never a safety rule or a goal."""
    if not entry.signature or entry.kind in ("safety", "goal"):
        return []
    new = _core(entry)
    if len(new) < 2:
        return []
    bounds = _bounds(entry)
    cands = []
    for i, e in enumerate(ledger):
        if not e.active or e.kind in ("safety", "goal") or not corrections.compatible(e.signature, entry.signature) or _other_role(e, entry):
            continue
        old = _core(e)
        if bounds and (theirs := _bounds(e)) and not bounds & theirs:
            continue  # another bound of the same thing (its minimum beside its maximum)
        if old and new <= old:
            cands.append((len(old), i))
    if not cands:
        return []
    least = min(n for n, _ in cands)
    best = [i for n, i in cands if n == least]
    return best if len({ledger[i].subject for i in best}) == 1 else []


# words that say a statement changes something said before
_UPDATE_CUE = UPDATE_CUE  # vocabulary.py


def _words_of(text: str) -> list[str | None]:
    """The clause's content words in order (values and stop words as None)."""
    fr = re.sub(r"\bon[ -]call\b", "on-call", frame(text, find_values(text)).lower())  # one word, as in a subject
    out: list[str | None] = []
    for w in re.findall(r"<v>|[a-z0-9][a-z0-9'_.-]*", fr):
        n = subject_words(w) if w != "<v>" else []
        out.append(n[0] if n else None)
    return out


def _before(words: list[str | None], shared: set[str]) -> str | None:
    """The content word right before the first shared word ("frontend" in "the frontend release")."""
    at = next((i for i, w in enumerate(words) if w in shared), None)
    return words[at - 1] if at else None


def _cued_update(ledger: Sequence[Entry], entry: Entry) -> list[int]:
    """An update said in words the subject reading does not match ("New plan: the launch happens
    on V" after "The launch is penciled in for U"): the clause says it changes something (an
    update cue), states a value of the same kind and unit as ONE active entry that shares the
    most content words with it, and no word in front of the shared ones differs ("backend" vs
    "frontend"). Ties, safety rules and goals: nothing is superseded."""
    if not entry.signature or entry.kind in ("safety", "goal") or not _UPDATE_CUE.search(entry.text):
        return []
    new_words = _words_of(_UNCHANGED.sub("", entry.text))
    said = {w for w in new_words if w}
    scored: list[tuple[int, int]] = []
    for i, e in enumerate(ledger):
        if not e.active or e.kind in ("safety", "goal") or not corrections.compatible(e.signature, entry.signature) or _other_role(e, entry):
            continue
        old_words = _words_of(e.text)
        shared = said & {w for w in old_words if w}
        if not (shared & set(e.subject.split())) - _ROLE_WORDS:  # a role word alone ("owner") names no thing
            continue  # only a verb or a filler word in common ("lands" / "land by"): not what it is about
        a, b = _before(old_words, shared), _before(new_words, shared)
        if a and b and a != b:
            continue  # a modifier that differs in the same place: another subject
        scored.append((len(shared), i))
    if not scored:
        return []
    top = max(n for n, _ in scored)
    best = [i for n, i in scored if n == top]
    return best if len(best) == 1 else []
