"""The memory ledger: what the user said that binds or informs the rest of the session.

Found without a model. Each clause the person wrote (environment blocks set apart, see
``clauses.py``) is parsed into an :class:`Entry` with a **kind** (safety rule, hard constraint,
preference, fact, goal), a **subject** (what it is about, normalised) and a **value** (the typed
values it states, plus its polarity). A later entry about the same subject with another value
supersedes the older one, whatever the wording ("moved to", "slipped to", "now", "instead",
"no longer", a changed number, date or name). Two subjects that share words but differ in a word
on each side ("frontend release" / "backend release") are different subjects and both stay.

How a clause is read (``parse``):

1. relations, tried in order on the clause's *frame* (values replaced by slots): renames
   ("we renamed X to V", "we are calling X V", "X is now called V") → subject "X name";
   ownership ("V now owns X", "X is owned by V") → "owner of X"; changes ("X moved/slipped/
   switched … to V"); settings ("cap/set/keep/limit X at/to/under V"); "use V for X"; a copula
   ("X is/are/will be/: V"); a name as the grammatical subject ("Dana is on call this week") →
   the predicate is the subject and the name the value;
2. otherwise a rule or preference keyed by its content words (values, polarity and filler set
   aside), so "Always use tabs" and "Never use tabs" are one subject with two polarities;
3. the kind from its markers: destructive verbs or secrets under a negation → safety; modal and
   limit words, "from now on", an imperative style verb → constraint; "I'd rather", "I prefer"
   → preference; a relation with a value → fact (goal when its subject is the goal/objective).

Where each part lives (pure functions over plain values): ``entries.py`` (the entry),
``subjects.py`` (subject words, same subject), ``relations.py`` (the patterns), ``reading.py``
(a clause → an entry), ``supersession.py`` (which older entries a new one supersedes); this module
keeps the ledger over time, the scrubbing of superseded values and the memory block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache, partial

from . import corrections, goals
from .answers import answered
from .clauses import find_values, read_windows, sentences, split_environment
from .entries import DROP_ORDER, KINDS, MAX_CLAUSE_CHARS, Entry
from .lists import swapped
from .pasted import without_pasted
from .reading import _parse_with_pronoun, detect, parse, signature, unasserted_clauses
from .subjects import same_subject, subject_words
from .supersession import add

__all__ = [
    "DROP_ORDER", "HEADING", "KINDS", "MAX_CLAUSE_CHARS", "Entry", "active", "add", "condensed", "detect", "from_text", "goal_in_force", "parse",
    "render", "same_subject", "scrub", "signature", "stale", "stated", "subject_words", "unasserted_clauses", "unread_chars", "update",
]


# --- the ledger over time -------------------------------------------------------------------------
def update(ledger: Sequence[Entry], text: str, source: str = "", asked: str = "") -> list[Entry]:
    """``ledger`` with what ``text`` (a user message) states; the first message that states
    anything may make its opening request the goal (``reading.detect``). ``asked``: the assistant's message before it,
    whose closing question names what an answer of only a value is about (``answers.py``)."""
    out = list(ledger)
    # the opening message, even when a compacted conversation carries superseded entries in its first message's meta
    opening = all(e.source == "superseded" for e in ledger)
    # after an opening whose goal was read from its shape alone, a request asked for in so many words is the goal
    shaped = not opening and any(e.active and e.kind == "goal" and e.signature == goals.SHAPED for e in ledger)
    found = detect(text, source, opening=opening or shaped, explicit_only=shaped)
    if shaped:  # only the next message may outrank it
        out = [replace(e, signature="goal") if e.signature == goals.SHAPED else e for e in out]
    first = sentences(without_pasted(split_environment(text)[0]))[:1]
    answer = answered(asked, first[0]) if asked and first else None
    if answer is not None:
        read = parse(answer[0], source)
        if read is None and not find_values(answer[0]):  # plain words ("go with short bullet lists"): the value as written
            thing, said = answer[0].rstrip(".").split(" is ", 1)
            words = subject_words(thing)
            read = Entry(text=answer[0], kind="fact", subject=" ".join(words), value="+" + said.lower(), values=(said,), source=source, signature="quoted") if words else None
        if read is not None:
            # the old value it names is replaced only in an entry about the question's subject ("Is the worker count still
            # 500?" / "no, 800 now." leaves the batch size of 500 alone)
            olds = answer[1] if any(e.active and same_subject(e.subject, read.subject) and set(answer[1]) & set(e.values) for e in out) else ()
            read = replace(read, text=first[0].strip(), replaces=olds, correction=bool(olds))
            found = [read, *(e for e in found if e.text.strip() != first[0].strip())]
    for clause in (w for c in sentences(without_pasted(split_environment(text)[0])) for w in read_windows(c)[0]):
        swap = swapped(out, clause)  # one item of a list in force changed: the list with that item changed, the old item stale
        if swap is not None:
            at, gone, now = swap
            out[at] = replace(out[at], active=False, updated_to=", ".join(now.values), values=(gone,))
            out.append(now)
            found = [e for e in found if e.text.strip() not in clause]
    goal = next((e for e in reversed(out) if e.active and e.kind == "goal"), None)
    if goal is not None:
        found = _restated_goal(found, text, goal, source)
    for e in found:
        if not e.subject and corrections.resolve(out, e) is None and (alone := parse(e.text, source)) is not None and alone.subject:
            e = alone  # a value with no subject the ledger can find ("Outcome: V"): read as written rather than dropped
        out = add(out, e)
        if e.kind == "goal" and e.replaces:
            # what a restated goal puts off ("U can wait") is a value of the goal it replaced: scrubbed like one
            out = [replace(o, values=(*o.values, *(r for r in e.replaces if r not in o.values))) if o.kind == "goal" and not o.active and o.updated_to else o for o in out]
    return out


_RESTATE = re.compile(r"\b(?:plan|goal|focus|priority|objective|instead|first|rather|refine\w*|actually|change of)\b", re.IGNORECASE)


# what a restated goal puts off: "U can wait", "instead of U", "not U", "drop U"
# (Kind: what it puts off may be a whole noun phrase — "forget the invoice export; what I need now is …", "park the
# docs rewrite for now", "not the login bug, the signup one")
_PUT_OFF = re.compile(r"\b([\w-]+)\s+(?:can|will have to|has to|must)\s+wait\b|\b(?:instead of|rather than|not|drop|scrap|park|forget|shelve|skip)\s+"
                      r"((?:the|our|my|that|this)\s+[^,;.:]{2,60}?|[\w-]+)(?=[,;.]|\s+(?:for now|first|today|and|instead)\b)", re.IGNORECASE)
_PLAN_CHANGE = re.compile(r"(?:change of (?:plan|plans|focus|priorit\w*)|new (?:plan|priority|focus)|scrap (?:the|that|our)\b[^;:.]*\bplan|forget (?:the|that) (?:earlier |old )?plan)\b", re.IGNORECASE)


#: words that say the plan changes and name no work ("Different plan: forget the U." asks for nothing yet)
_PLAN_WORDS = frozenset({"plan", "change", "different", "new", "direction", "goal", "focus", "priority", "instead", "actually", "now"})


def _without_put_off(body: str, put_off: tuple[str, ...]) -> str:
    """``body`` without the phrases that put off the old goal ("U can wait,")."""
    if not put_off:
        return body
    kept = _PUT_OFF.sub(lambda m: "" if (m.group(1) or m.group(2)) in put_off else m.group(0), body)
    return re.sub(r"\s*([:;,])(?:\s*[,;])+", r"\1", re.sub(r"\s{2,}", " ", kept)).strip(" ,;:")


def goal_in_force(ledger: Sequence[Entry]) -> str:
    """The goal in force once the user restated it ("Change of plan: …"), else "": the first request, even
    with its old value scrubbed, would tell a model to do what the user no longer wants."""
    if not any(not e.active and e.kind == "goal" and e.updated_to for e in ledger):
        return ""
    return next((e.text for e in reversed(ledger) if e.active and e.kind == "goal"), "")


def _restated_goal(found: list[Entry], text: str, goal: Entry, source: str) -> list[Entry]:
    """``found`` with a restated goal read as the goal. What the message drops of the goal in force ("forget the U",
    "drop U —") is what the new goal replaces. A restatement is (1) a goal said in so many words, also after a dash
    ("Drop U — the real goal is V"); (2) a clause that says it changes the plan ("Change of focus:", "Let me refine
    the plan:", "… instead", "… first") and names most of what the goal in force is about ("the X service … the new
    scheduler") with another thing, and states no value other than a date; (3) in a message that drops the goal in
    force or opens with a change of plan ("New direction: forget the U."), the first request for other work ("What we
    actually need is a V", "I need you on V instead")."""
    said = set(subject_words(goal.values[0] if goal.values else goal.text))
    own = [w for c in sentences(without_pasted(split_environment(text)[0])) for w in read_windows(c)[0]]
    drops = tuple(dict.fromkeys(x for c in own if not c.rstrip().endswith("?") for x in goals.dropped(c) if set(subject_words(x)) & said))
    stated_goal = [k for k, e in enumerate(found) if e.kind == "goal"]
    if stated_goal:
        k = stated_goal[-1]
        e = found[k]
        tail = goals.after_dash(e.text) if e.subject != "goal" else ""
        back = parse(tail, source) if tail else None
        if back is not None and back.kind == "goal" and back.subject == "goal":
            e = replace(back, text=e.text)  # "Drop U — the real goal is V": the goal is V
        if e.subject == "goal" and drops:
            kept = tuple(goals.without_dropped(v, drops) for v in e.values)
            e = replace(e, values=kept, value="+" + "|".join(v.lower() for v in kept), replaces=tuple(dict.fromkeys((*e.replaces, *drops))))
        return [*found[:k], e, *found[k + 1 :]]
    for clause in own:
        if clause.rstrip().endswith("?") or not _RESTATE.search(clause) or any(v.kind != "date" for v in find_values(clause)):
            continue
        words = set(subject_words(clause))
        shared = said & words
        # a lead that says the plan changed ("Change of plan: U can wait, V goes … first") needs only one word in common
        enough = (len(shared) >= 2 and len(shared) * 3 >= min(len(said), len(words))) or (bool(shared) and _PLAN_CHANGE.match(clause.strip()) is not None)
        if enough and words - said and set(subject_words(goals.without_dropped(clause, drops))) - said - _PLAN_WORDS:
            put_off = tuple(w for m in _PUT_OFF.finditer(clause) if (w := m.group(1) or m.group(2)) and set(subject_words(w)) & said)
            put_off = tuple(dict.fromkeys((*put_off, *(x for x in goals.dropped(clause) if x in drops))))
            return [e for e in found if e.text != clause.strip()] + [_goal_entry(clause, put_off, source)]
    if drops or (own and goals.PLAN_CHANGE.match(own[0].strip())):
        for clause in own:
            rest = goals.without_dropped(clause.strip().rstrip(".!"), drops)
            if (goals.request(rest) or goals.cleft(rest)) and set(subject_words(rest)) - said and not any(v.kind != "date" for v in find_values(rest) if v.kind != "name"):
                return [e for e in found if e.text != clause.strip()] + [_goal_entry(clause, drops, source)]
    return found


def _goal_entry(clause: str, put_off: tuple[str, ...], source: str) -> Entry:
    """The goal ``clause`` restates; what it puts off is not its value (a value in force is never scrubbed)."""
    kept = goals.without_dropped(_without_put_off(clause.strip().rstrip(".!"), put_off), put_off)
    return Entry(text=clause.strip(), kind="goal", subject="goal", value="+" + kept.lower(), values=(kept,), source=source, signature="goal", replaces=put_off)


def stated(e: Entry) -> str:
    """How an entry is written in a memory block: its text, with a "Goal:" label when it is a goal
    its own words do not name as one (an opening request), so that the next fold reads it back as the goal."""
    if e.kind == "goal" and ((back := parse(e.text)) is None or back.kind != "goal"):
        return f"Goal: {e.text.rstrip('?')}"  # a request asked as a question ("Could you help me …?") is still the goal
    if e.resolved and e.values and not any(b.subject == e.subject for b in _parse_with_pronoun(e.text, "", "summary")):
        # its words do not name what it is about ("Sorry, I meant V."): written so that it reads back
        return f"{_subject_phrase(e)}: {', '.join(e.values)}"
    return e.text


def active(ledger: Iterable[Entry]) -> list[Entry]:
    return [e for e in ledger if e.active]


def stale(ledger: Iterable[Entry]) -> list[Entry]:
    """Superseded entries whose values changed: none of their old values may show again."""
    return [e for e in ledger if not e.active and e.updated_to]


# --- keeping stale values out of every output -----------------------------------------------------
def _live_values(ledger: Sequence[Entry]) -> set[str]:
    return {v.lower() for e in ledger if e.active for v in _with_cores(e.values)}


def scrub(text: str, ledger: Sequence[Entry]) -> str:
    """``text`` with every superseded value replaced by ``[updated later: <new value>]``: the
    whole stale clause when it is quoted, else each old value (a short bare number only inside a
    sentence that names the subject). Values some active entry still states are left alone, and
    so is the verbatim text of every entry in force: a rule in force is the user's rule whatever
    old value it contains ("Definition of Done**: include ONLY …" beside a superseded "done")."""
    live = _live_values(ledger)
    notes: list[str] = []

    def hold(note: str) -> str:  # a placeholder no value pattern can match (no digits, no word characters)
        notes.append(note)
        return f"\x00{chr(0xF0000 + len(notes) - 1)}\x00"

    olds = stale(ledger)
    if not olds and not any(e.active and e.replaces for e in ledger):
        return text
    for e in sorted((e for e in ledger if e.active and e.text.strip()), key=lambda e: len(e.text), reverse=True):
        if e.text in text:
            text = text.replace(e.text, hold(_without_replaced(e, olds, live)))
        elif _ASIDE_MARK.search(text) and e.text[:12] in text:
            # read with an aside set apart ("Never delete X (for context, Y is V) without asking."): held as written, aside included
            text = _aside_pattern(e.text).sub(partial(_hold_around_asides, hold=hold, e=e, ledger=ledger, live=live), text)
    for e in olds:
        note = f"[updated later: {e.updated_to}]"
        # the whole stale statement, not the head of a longer one ("… is 3." in "… is 3.5 s"); a safety rule keeps its words, only
        # its old value goes: a rule rewritten with a corrected value (fences.py) is read again from them after a fold
        if e.text in text and e.kind != "safety":
            text = re.sub(rf"{re.escape(e.text)}(?!\w)", hold(note).replace("\\", "\\\\"), text)
        for v in _with_cores(e.values):
            if v.lower() in live or not v.strip():
                continue
            pat = re.compile(rf"(?<![\w$€£]){re.escape(v)}(?![\w])", re.IGNORECASE)
            if not pat.search(text):
                continue
            if len(v) >= 4 and not v.isdigit():
                text = pat.sub(hold(note), text)
                continue
            if v.isdigit() and len(v) <= 2:
                text = _sub_bare_number(text, v, hold(note), set(e.subject.split()))
                continue
            text = _sub_in_sentences(text, pat, hold(note), set(e.subject.split()))
    return re.sub("\x00([\U000f0000-\U000fffff])\x00", lambda m: notes[ord(m.group(1)) - 0xF0000], text) if notes else text


_ASIDE_MARK = re.compile(r"\s\(|\s[—–]\s|\s--\s")
# an aside ``clauses.asides`` set apart from the rest of a sentence, at a place where the rest now has a space or a punctuation mark
_ASIDE_GAP = r"(?:\s\([^()]{12,300}\)|\s[—–]\s[^—–]{12,300}?\s[—–]|\s--\s.{12,300}?\s--)?"


@lru_cache(maxsize=512)
def _aside_pattern(said: str) -> re.Pattern[str]:
    """``said`` (a sentence read with its asides set apart) as it may stand in the text, asides in place."""
    out = []
    for ch in said:
        if ch.isspace():
            out.append(_ASIDE_GAP + r"\s+")
        elif ch in ",.;:!?":
            out.append(_ASIDE_GAP + re.escape(ch))
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out) + _ASIDE_GAP)


def _hold_around_asides(m: re.Match[str], *, hold: Callable[[str], str], e: Entry, ledger: Sequence[Entry], live: set[str]) -> str:
    return hold(_kept_around_asides(m.group(0), e, ledger, live))


def _kept_around_asides(found: str, e: Entry, ledger: Sequence[Entry], live: set[str]) -> str:
    """The sentence ``found`` holding ``e``: its own words kept; its asides, statements of their own, scrubbed like any text."""
    olds = stale(ledger)
    asides = list(re.finditer(_ASIDE_GAP[3:-2], found))
    if not asides:
        return _without_replaced(e, olds, live)
    out, at = [], 0
    for m in asides:
        out.append(found[at : m.start()])
        out.append(scrub(m.group(0), ledger))
        at = m.end()
    out.append(found[at:])
    return "".join(out)


def _without_replaced(e: Entry, olds: Sequence[Entry], live: set[str]) -> str:
    """``e``'s text with the old values of the entries it superseded written as "[earlier value]" ("Typo:
    V, not U", "U handed X to V"): its own values stay, and so does every other word of it."""
    note = ", ".join(e.values)
    mine = {v.lower() for v in e.values}
    text = e.text
    # the old values of the entries it superseded, and those its own words mark as the ones before ("not U anymore",
    # "(previously U)", "(U before, V now)": corrections.marked_old) even when no entry held them (an answer the ledger
    # did not keep). Not a contrast ("Use V, not U"): in a rule it is part of the rule.
    earlier = [v for o in olds if o.updated_to in (note, e.text) for v in _with_cores(o.values)]
    if e.kind not in ("safety", "goal"):
        earlier += corrections.marked_old(e.text)[1]
    for v in earlier:
        if v.strip() and v.lower() not in live and not any(v.lower() in m for m in mine):  # "Python" inside its "Python 2.29.2"
            text = re.sub(rf"(?<![\w$€£]){re.escape(v)}(?![\w])", "[earlier value]", text, flags=re.IGNORECASE)
    return text


_CORE = re.compile(r"^[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM]\b)?|^(?:python|node|java|go|ruby|php|rust)\s+(?P<ver>\d+(?:\.\d+)+)$|^port\s+(?P<port>\d+)$", re.IGNORECASE)


def _with_cores(values: Sequence[str]) -> list[str]:
    """Each value and its core ("$4100 a month" → "$4100", "Python 3.12.1" → "3.12.1"): the old
    value may come back in other words around the same core."""
    out = list(values)
    for v in values:
        m = _CORE.match(v.strip())
        core = (m.group("ver") or m.group("port") or m.group(0)).strip() if m else ""
        if core and core != v and core not in out:
            out.append(core)
    return out


# where one clause of a sentence ends: a sentence end or a semicolon before a space or the end ("3.5" is one number),
# a line end, or a comma before a conjunction
_CLAUSE_END = re.compile(r"(?<=[.!?;])(?=\s|$)|(?<=\n)|(?=,\s*(?:and|but|while|whereas|so|though|yet|plus)\b)", re.IGNORECASE)


def _sub_bare_number(text: str, v: str, note: str, words: set[str]) -> str:
    """``text`` with the bare 1-2 digit number ``v`` of a superseded entry replaced by ``note`` only in a clause that
    carries the entry: it names a word of the entry's subject ("I'll keep the limit at 3" for "the retry limit"), and
    there ``v`` stands alone as a value (not "3 jobs", "3 am"). Elsewhere a small number is another thing's ("the build
    uses 1 worker")."""
    out = []
    for part in _CLAUSE_END.split(text):
        if words & set(subject_words(part)):
            for val in reversed([x for x in find_values(part) if x.text == v]):
                part = part[: val.start] + note + part[val.end :]
        out.append(part)
    return "".join(out)


def _sub_in_sentences(text: str, pat: re.Pattern[str], note: str, words: set[str]) -> str:
    parts = re.split(r"(?<=[.!?\n])", text)
    return "".join(pat.sub(note, p) if words & set(subject_words(p)) else p for p in parts)


# --- rendering ------------------------------------------------------------------------------------
HEADING = "## Memory: the user's rules, preferences and facts (newest wins)"
_FILLER = re.compile(
    r"^(?:(?:from now on|going forward|from here on|in future|please|also|and|so|ok(?:ay)?|actually|i'd like you to|i want you to|"
    r"make sure (?:that |to )?|remember (?:that|to)|note that|fyi|btw)\b[\s,:;-]*)+",
    re.IGNORECASE,
)


def condensed(e: Entry) -> str:
    """The shortest faithful phrasing: every value kept, filler gone; a fact as ``subject: value``."""
    if e.kind == "fact" and e.values:
        sub = _subject_phrase(e)
        if sub:
            return f"{sub}: {', '.join(e.values)}"
    t = _FILLER.sub("", stated(e)).strip()
    t = re.sub(r",?\s*(?:from now on|going forward|please)([.!]?)$", r"\1", t, flags=re.IGNORECASE)
    t = t[:1].upper() + t[1:] if t else e.text
    return t if all(v in t for v in e.values) else stated(e)


def _subject_phrase(e: Entry) -> str:
    words = e.subject.split()
    if words and words[0] == "owner":
        return "owner of " + " ".join(words[1:])
    if words and words[-1] == "oncall":
        words[-1] = "on call"
    if "oncall" in words:
        words = ["on call" if w == "oncall" else w for w in words]
    return " ".join(words)


def render(entries: Sequence[Entry], *, condense: bool = False, left_out: str = "") -> str:
    """The ledger block: safety rules and constraints first, then goals, preferences, facts."""
    if not entries:
        return left_out
    order = {k: i for i, k in enumerate(KINDS)}
    seen: set[str] = set()
    lines = []
    for e in sorted(entries, key=lambda x: order.get(x.kind, 9)):
        t = condensed(e) if condense else stated(e)
        if t.lower() in seen:
            continue
        seen.add(t.lower())
        lines.append(f"- {t}")
    if left_out:
        lines.append(left_out)
    return HEADING + "\n" + "\n".join(lines)


_BLOCK = re.compile(r"^## (?:Memory: the user's|Constraints & preferences)[^\n]*\n(?P<body>(?:[-\[].*(?:\n|$))*)", re.MULTILINE)


def unread_chars(text: str) -> int:
    """Characters of the person's own words in ``text`` that :func:`update` does not read: a run-on clause's rest past
    what is read of it (clauses.read_windows). Counted so the miss is said, not silent."""
    if len(text) <= MAX_CLAUSE_CHARS:  # no clause of it can be longer
        return 0
    return sum(read_windows(c)[1] for c in sentences(without_pasted(split_environment(text)[0])))


def from_text(text: str) -> list[Entry]:
    """Entries carried in a summary's ledger block (a fold carries the ledger to the next one)."""
    out: list[Entry] = []
    for m in _BLOCK.finditer(text):
        for line in m.group("body").splitlines():
            if line.startswith("- "):
                said = line[2:].strip()
                read = said if said[-1:] in ".!?" else said + "."  # a statement, even when it starts like a question ("When polling, …")
                for e in _parse_with_pronoun(read, "", "summary"):
                    out = add(out, replace(e, text=said) if e.text == read else e)
    return out
