"""Reading one clause into a ledger entry (``parse``) and a message into entries (``detect``): the
relation and its subject, the values, the kind; a pronoun read through the clause before it. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from . import pronouns
from .clauses import Value, find_values, frame, sentences, split_environment
from .entries import MAX_CLAUSE_CHARS, Entry
from .relations import (
    _ABOUT,
    _ATTRIBUTE,
    _CHATTER,
    _CONSTRAINT_HEAD,
    _FOR_PHRASE,
    _GENERIC_SUBJECT,
    _GOAL_ABOUT,
    _GOAL_HEAD,
    _GOAL_RE,
    _IDENTITY,
    _IMPERATIVE,
    _LEAD,
    _LEAD_COLON,
    _LEAD_FOR,
    _LEAD_TIME,
    _MAKE_THAT,
    _META_SUBJECT,
    _NEG,
    _OWN,
    _POINT_AT,
    _PREF,
    _RELATIONS,
    _RULE,
    _SAFETY_POS,
    _SAFETY_WORDS,
    _TRAILING_CONTRAST,
    _TYPED,
    _WH,
)
from .subjects import subject_words


def _values_in(fr: str, start: int, end: int, values: Sequence[Value]) -> list[Value]:
    """The values whose slots fall in ``fr[start:end]``."""
    before = fr[:start].count("<v>")
    return list(values[before : before + fr[start:end].count("<v>")])


def _restore(fr_part: str, vals: Sequence[Value]) -> str:
    it = iter(vals)
    return re.sub(r"<v>", lambda _: next(it).text if vals else "", fr_part)


def _kind(clause: str, relation: str | None, subject: list[str], values: Sequence[Value] = ()) -> str | None:
    masked = frame(clause, find_values(clause))  # "May 2" is a date, not the modal "may"
    neg = bool(_NEG.search(masked))
    if (neg and _SAFETY_WORDS.search(clause)) or _SAFETY_POS.search(masked):
        return "safety"
    head = subject[-1] if subject else ""
    if relation == "goal" or (relation and set(subject) & _GOAL_HEAD and not any(_typed(v) for v in values)):
        return "goal"
    if _PREF.search(masked):
        return "preference"
    if relation in ("set",) or head in _CONSTRAINT_HEAD or _RULE.search(masked) or _IMPERATIVE.match(_LEAD.sub("", masked)):
        return "constraint"
    if relation:
        return "fact"
    return None

def _typed(v: Value) -> bool:
    """A date, time, amount, version, or a number with its unit (a bare "0" or "3" is not)."""
    return v.kind in _TYPED and (v.kind != "number" or bool(re.search(r"[^\d.,\s]", v.norm)))


def signature(vals: Sequence[Value]) -> str:
    """What kinds of values a clause states (numbers with their unit): "$400 a month" and "$7200
    per month" share one, "76 lines" and "90 characters" do not."""
    out = set()
    for v in vals:
        if v.kind == "number":
            unit = re.sub(r"^[\d.\s]+", "", v.norm).strip()
            out.add(f"number:{unit}")
        elif v.kind == "name" and re.search(r"\d", v.text):
            out.add("codename")  # "Orion-65" names a thing, "Xavi" a person
        else:
            out.add(v.kind)
    return "|".join(sorted(out))


def parse(clause: str, source: str = "") -> Entry | None:
    """The ledger entry a clause states, or None (a question, a task, chatter, code)."""
    s = clause.strip().strip("*_").strip()
    if s.startswith("[") and s.endswith("]"):
        return None  # a note compaction wrote ([updated later: …], markers), not the user
    if re.match(r"#{1,6}\s", s):
        return None  # a markdown heading names a section, it states nothing
    if (s.startswith("(") and s.endswith(")")) or s.endswith((",", "{", "[")) or re.match(r"^[\w.-]+:\s*[\"'{\[`]|^\d+:\s", s):
        return None  # a data, status or listing line ("(Open file: …)", 'description: "…",', "12:  code"), not a statement
    if not 6 <= len(s) <= MAX_CLAUSE_CHARS or s.endswith("?") or (_CHATTER.match(s) and len(s) < 40):
        return None
    if sum(ch in "{}[]();=<>|\\" for ch in s) > max(4, len(s) // 15):
        return None  # code or markup, not a statement
    body = _LEAD.sub("", s)
    if _WH.match(body) and not re.search(r"[.!]$", s) and " is " not in body[:30]:
        return None
    # "Heads up: X is Y" / "Swap of plans: …": a short lead before a clause of its own goes
    m = _LEAD_COLON.match(body)
    if m and not find_values(m.group("h")):
        inner = _read(m.group("r"))
        if inner is not None and inner[0] is not None:
            body = m.group("r")
    # a leading time or "for the X side," adverbial moves to the end ("This week Dana is on call")
    m = _LEAD_TIME.match(body) or _LEAD_FOR.match(body)
    if m:
        lead = m.group("d") if "d" in m.groupdict() else "for " + m.group("p")
        body = f"{m.group('r')} {lead}{m.group('e')}"
    body = _TRAILING_CONTRAST.sub(r"\1", body)
    read = _read(body)
    if read is None:
        return None
    relation, subject, val_list = read
    kind = _kind(body, relation, subject, val_list)
    if kind is None and relation is None and not _WH.match(body) and any(_typed(v) and (len(subject) >= 2 or v.kind != "number") for v in val_list):
        kind = "fact"  # a statement with a date, amount, version or measure in it informs, whatever its verb
    if kind is None or not subject:
        return None
    if kind not in ("safety", "goal") and len(subject) == 1 and subject[0] in _GENERIC_SUBJECT:
        # one generic word ("definition", "scope", "result", "run") names no subject of its own (two
        # unrelated statements would supersede each other through it): read as a rule, keyed by all
        # its content words, or as nothing
        vals = find_values(body)
        relation, val_list = None, [v for v in vals if v.kind not in _IDENTITY]
        subject = subject_words(re.sub(r"<v>", " ", frame(body, vals)) + " " + " ".join(v.text for v in vals if v.kind in _IDENTITY))[:14]
        kind = _kind(body, None, subject, val_list)
        if kind is None or len(subject) < 2:
            return None
    if any(v.kind == "money" for v in val_list) and "limit" in subject:
        subject = list(dict.fromkeys("budget" if w == "limit" else w for w in subject))  # a cap on an amount is a budget
    polarity = "-" if _NEG.search(body) and relation is None else "+"
    value = polarity + "|".join(sorted(v.norm for v in val_list))
    return Entry(
        text=s, kind=kind, subject=" ".join(subject), value=value, values=tuple(v.text for v in val_list), source=source,
        signature=signature(val_list),
    )


def _read(body: str) -> tuple[str | None, list[str], list[Value]] | None:
    """(relation or None for a rule, subject words, the values it states) of a clause."""
    g = _GOAL_RE.match(body.rstrip(".! "))
    if g and not re.search(r"\b(?:never|always|must|don't|do not)\b", body, re.IGNORECASE):
        goal_val = Value("goal", g.group("v").strip(), 0, 0)
        words = [w for w in subject_words(g.group("s")) if w in _GOAL_HEAD] or ["goal"]
        return "goal", words[-1:], [goal_val]
    g = _GOAL_ABOUT.match(body.rstrip(".! "))
    if g:
        return "goal", ["goal"], [Value("goal", g.group("v").strip(), 0, 0)]
    vals = find_values(body)
    fr = frame(body, vals).lower().rstrip(".! ")
    # a sentence-initial word read as a name is the subject when the predicate holds values itself
    if vals and vals[0].kind == "name" and vals[0].start == 0 and any(v.kind != "date" for v in vals[1:]):
        vals = vals[1:]
        fr = frame(body, vals).lower().rstrip(".! ")
    fr = re.sub(r"^(?:from now on|going forward|from here on|in future|for now)\s*,?\s*", "", fr)
    fr = re.sub(r"(<v>[^,<]*),\s*(?:[a-z'-]+\s*){1,6}$", r"\1", fr).rstrip()  # an aside after the value: ", one more delay"
    fr = re.sub(r"(<v>[^<]*?)\s+(?:since|as of|starting|effective)\s+(?:the\s+|last\s+|this\s+)?[a-z]+(?:\s+[a-z]+)?$", r"\1", fr)  # "… since the outage"
    fr = re.sub(r",?\s*(?:from now on|going forward|from here on|instead|now|please|for now|these days|nowadays|at the moment|currently)\s*$", "", fr)
    # the same frame with its case (an acronym such as "US" names a region, not "us")
    cased = frame(body, vals)
    at = cased.lower().find(fr)
    cased = cased[at : at + len(fr)] if at >= 0 and len(cased) == len(cased.lower()) else fr
    mt = _MAKE_THAT.match(fr)
    if mt:
        v_vals = _values_in(fr, mt.start("v"), mt.end("v"), vals)
        subj = subject_words(mt.group("s") or "that")
        return "set", subj, v_vals
    relation, subj_text, val_list = None, "", list(vals)
    for name, pat in _RELATIONS:
        m = pat.search(fr)
        if not m or not m.group("s").strip():
            continue
        s_part = cased[m.start("s") : m.end("s")]
        v_vals = _values_in(fr, m.start("v"), m.end("v"), vals)
        s_vals = _values_in(fr, m.start("s"), m.end("s"), vals)
        if name != "who" and not subject_words(re.sub(r"<v>", " ", s_part)):
            continue  # the subject is a bare value ("Dana is on call"): the "who" reading below
        if pat is _POINT_AT and any(v.kind == "name" for v in v_vals):
            continue  # "Port the parser to Rust": a task, not a setting
        if name == "owner" and not any(v.kind in ("name", "email", "quoted") for v in v_vals):
            name = "change"  # "the rate limit went to 45 requests per minute": a change, not an owner
        # values inside the subject name it ("the iOS support contact", "the launch on <date>")
        subj_text = _restore(s_part, s_vals)
        if name == "who":
            # "Dana is on call this week": the predicate (with its dates) is the subject, the name the value
            v_vals = [v for v in v_vals if v.kind in ("name", "email", "quoted")]
            if not v_vals or not subject_words(subj_text):
                continue
        if name == "rename":
            subj_text += " name"
        elif name == "owner" or (name == "is" and _OWN.search(fr[m.start("v") : m.end("v")])):
            subj_text = "owner " + subj_text
        subj_text = _ATTRIBUTE.sub("", subj_text)
        # "my preference is <v> for HTTP timeouts", "the release is <v> for the iOS side": the
        # phrase after the value names (or narrows) what it is about
        fp = _FOR_PHRASE.search(fr[m.start("v") : m.end("v")]) if name in ("is", "change", "set", "when") else None
        if fp:
            extra = cased[m.start("v") + fp.start("p") : m.start("v") + fp.end("p")]
            subj_text = extra if set(subject_words(subj_text)) <= _META_SUBJECT else f"{subj_text} {extra}"
        if not v_vals or not subject_words(subj_text):
            continue
        relation, val_list = name, v_vals
        break
    names = [v for v in vals if v.kind == "name"]
    if relation is None and len(names) == 1 and _OWN.search(fr):
        about = _ABOUT.search(fr)
        rest = about.group("x") if about else _OWN.sub(" ", re.sub(r"<v>", " ", fr))
        words = subject_words(_restore(rest, []) if "<v>" not in rest else rest.replace("<v>", " "))
        words = [w for w in words if w not in ("talk", "ask", "ping", "contact", "reach", "owner", "own", "question", "anything", "through",
                                               "send", "forward", "route", "escalate", "assign", "bug", "issue", "ticket", "request")]
        if words:
            return "owner", ["owner", *words], names
    if relation is None:
        # a rule: quantities are its value; a path, host or id is part of what it is about
        ident = [v for v in vals if v.kind in _IDENTITY]
        val_list = [v for v in vals if v.kind not in _IDENTITY]
        subj_text = re.sub(r"<v>", " ", fr) + " " + " ".join(v.text for v in ident)
    subject = subject_words(subj_text)
    if relation is None and len(subject) > 14:
        subject = subject[:14]
    return relation, subject, val_list


def detect(text: str, source: str = "") -> list[Entry]:
    """Entries the person's own words in ``text`` state (environment blocks never count)."""
    own, _ = split_environment(text)
    out = []
    prev = ""
    for clause in sentences(own):
        out += _parse_with_pronoun(clause, prev, source)
        prev = clause
    return out


def _parse_with_pronoun(clause: str, prev: str, source: str) -> list[Entry]:
    """The entries of ``clause``. When part of it names its subject only by a pronoun ("X changed
    hands; Dmitri has it now", "We upgraded X; it runs V now") or not at all ("We loosened the
    title rule; 60 characters is OK now"), that part is read with the noun phrase of the part (or,
    for a clause that states nothing as written, the clause) before it; the entry keeps both as
    its text."""
    cuts = [m for m in pronouns.SPLIT.finditer(clause) if pronouns.needs_antecedent(clause[m.end() :])]
    if cuts:  # within the clause: "<first part>; <pronoun part>"
        first, second = clause[: cuts[0].start()], clause[cuts[0].end() :]
        np = pronouns.antecedent(first)
        alt = parse(pronouns.resolve(second, np), source) if np else None
        if alt is not None:
            alt = _with_role_of(first, alt)
            head = parse(first, source)
            return [*([head] if head is not None and not alt.values else []), replace(alt, text=clause)]
    e = parse(clause, source)
    if e is not None or not pronouns.needs_antecedent(clause):
        return [e] if e is not None else []
    np = pronouns.antecedent(prev) if prev else None
    alt = parse(pronouns.resolve(clause, np), source) if np else None
    return [replace(_with_role_of(prev, alt), text=f"{prev} {clause}")] if alt is not None else []


# what the part before a pronoun says changed: its name or its owner ("Marketing renamed X; it is V now")
_ROLE_CUES = (
    ("name", re.compile(r"\b(?:renam\w*|rebrand\w*|new name|codename\w*|called)\b", re.IGNORECASE)),
    ("owner", re.compile(r"\b(?:changed hands|changed owners|handed over|reassigned|new owner|ownership)\b", re.IGNORECASE)),
)


def _with_role_of(before: str, e: Entry) -> Entry:
    """``e`` (read through a pronoun) about the attribute the clause before it names: "X name"
    after a rename, "owner X" after a hand-over, as a direct statement would be read."""
    words = e.subject.split()
    for role, cue in _ROLE_CUES:
        if cue.search(before) and role not in words and e.kind == "fact":
            return replace(e, subject=" ".join([*words, "name"] if role == "name" else ["owner", *words]))
    return e
