"""Reading one clause into a ledger entry (``parse``) and a message into entries (``detect``): the
relation and its subject, the values, the kind; a pronoun read through the clause before it. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from . import corrections, frames, goals, lists, pronouns, typos
from .clauses import DASHED_ID, Value, asides, counted, find_values, frame, read_windows, sentences, split_environment
from .entries import MAX_CLAUSE_CHARS, Entry
from .mood import only_directs
from .pasted import without_pasted
from .relations import (
    _ABOUT,
    _ABOUT_IF,
    _ATTRIBUTE,
    _CHATTER,
    _CONJ,
    _CONSTRAINT_HEAD,
    _FOR_PHRASE,
    _FRAME_CIRCUMSTANCE,
    _FRAME_COLON,
    _FRAME_REPORT,
    _FRAME_SPEAKER,
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
    _LEAD_WHEN,
    _MAKE_THAT,
    _META_SUBJECT,
    _NEG,
    _NO,
    _OPENS_WITH_PRONOUN,
    _OWN,
    _POINT_AT,
    _PREF,
    _RELATIONS,
    _REQUEST,
    _RULE,
    _SAFETY_POS,
    _SAFETY_WORDS,
    _TRAILING_CONTRAST,
    _TYPED,
    _UNCHANGED,
    _UNDO,
    _WH,
)
from .safety import (
    _BOUND_VERB,
    _BOUND_WORDS,
    _FENCE,
    _GUARDED,
    _NEG_VERB_ON,
    _PROHIBITION,
    _READ_ONLY,
    _WRITE_TO,
    _asks_first,
    _fences,
)
from .subjects import subject_words
from .unasserted import held as _held
from .unasserted import may_state_nothing
from .vocabulary import CHANGE_CUE, UPDATE_CUE


def _values_in(fr: str, start: int, end: int, values: Sequence[Value]) -> list[Value]:
    """The values whose slots fall in ``fr[start:end]``."""
    before = fr[:start].count("<v>")
    return list(values[before : before + fr[start:end].count("<v>")])


def _restore(fr_part: str, vals: Sequence[Value]) -> str:
    it = iter(vals)
    return re.sub(r"<v>", lambda _: next(it).text if vals else "", fr_part)


_POLITE = re.compile(r"^(?:could|can|would|will)\s+(?:you|we)\s+(?:please\s+)?(?:help\s+(?:me|us)\s+(?:to\s+)?)?", re.IGNORECASE)


def _kind(clause: str, relation: str | None, subject: list[str], values: Sequence[Value] = ()) -> str | None:
    masked = frame(clause, find_values(clause))  # "May 2" is a date, not the modal "may"
    neg = bool(_NEG.search(masked) or _NO.search(masked) or _GUARDED.search(masked) or _READ_ONLY.search(_LEAD.sub("", clause)))
    found = find_values(clause)
    if (neg and _SAFETY_WORDS.search(_BOUND_VERB.sub(" ", clause))) or _asks_first(masked, clause, found):
        return "safety"
    bound = _BOUND_WORDS.search(masked) is not None and any(v.kind in ("number", "money", "time") for v in found)
    if (_FENCE.search(masked) or _READ_ONLY.search(_LEAD.sub("", clause)) or (neg and (_WRITE_TO.search(masked) or _NEG_VERB_ON.search(masked)) and any(v.kind in _IDENTITY for v in found))) and not bound:
        return "safety"
    if not bound and _fences(masked, clause, found):
        return "safety"
    head = subject[-1] if subject else ""
    if relation == "goal" or (relation and set(subject) & _GOAL_HEAD and not any(_typed(v) for v in values)):
        return "goal"
    if _PREF.search(masked):
        return "preference"
    if relation in ("set",) or head in _CONSTRAINT_HEAD or _rule_said(masked) or _IMPERATIVE.match(_LEAD.sub("", masked)):
        return "constraint"
    if relation:
        return "fact"
    return None

def _rule_said(masked: str) -> bool:
    """A rule word in ``masked``; "only" counts only in a directive ("Only deploy from <v>", not "Only <v> shows the bug"):
    ``mood.only_directs``."""
    # ("read-only", "admin-only" are adjectives of their own, not the word "only")
    return any(m.group(0).lower() != "only" or masked[m.start() - 1 : m.start()] == "-" for m in _RULE.finditer(masked)) or only_directs(_LEAD.sub("", masked))


def _typed(v: Value) -> bool:
    """A date, time, amount, version, or a number with its unit (a bare "0" or "3" is not)."""
    return v.kind in _TYPED and (v.kind != "number" or bool(re.search(r"[^\d.,\s]", v.norm)))


def signature(vals: Sequence[Value]) -> str:
    """What kinds of values a clause states (numbers with their unit): "$400 a month" and "$7200
    per month" share one, "76 lines" and "90 characters" do not."""
    out = set()
    for v in vals:
        if v.kind == "number":
            unit = re.sub(r"^[\d.\s]+(?:[–—-]\s?[\d.]+)?", "", v.norm).strip()  # a range's unit is after both ends
            out.add(f"number:{unit}")
        elif v.kind == "name" and re.search(r"\d", v.text):
            out.add("codename")  # "Orion-65" names a thing, "Xavi" a person
        else:
            out.add(v.kind)
    return "|".join(sorted(out))


_ASKED_SET = re.compile(
    r"^(?:could|can|would|will)\s+you\s+(?:please\s+)?(?P<r>(?:switch|set|change|move|bump|raise|lower|update|pin|repoint|point|reduce|increase|cap|limit|"
    r"redeploy|rerun|deploy|run)\s+.+?\s(?:to|at|with)\s+\S.*?)(?:,?\s+and\s+(?:then\s+)?[a-z][^?]*)?(?:,?\s+please)?\?$",
    re.IGNORECASE,
)
_GIVEN = re.compile(r"^(?:now that|since|given that)\s+(?P<r>[^,?]{6,}?),\s+[^?]*\?$", re.IGNORECASE)


# Kind: a setting written as a config line, its key in snake case and its value a few plain words — "report_style: terse
# bullets", "merge_strategy: squash and rebase" (before, no entry: no typed value and a one-word subject)
_SETTING = re.compile(r"^(?P<k>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*[:=]\s*(?P<v>[\w][\w ,./'-]{0,60})$")


def parse(clause: str, source: str = "") -> Entry | None:
    """The ledger entry a clause states, or None (a question, a task, chatter, code)."""
    s = clause.strip().strip("*_").strip()
    if s.startswith("[") and s.endswith("]"):
        return None  # a note compaction wrote ([updated later: …], markers), not the user
    if re.match(r"#{1,6}\s", s):
        return None  # a markdown heading names a section, it states nothing
    if (s.startswith("(") and s.endswith(")")) or s.endswith((",", "{", "[")) or re.match(r"^[\w.-]+:\s*[\"'{\[`]|^\d+:\s", s):
        return None  # a data, status or listing line ("(Open file: …)", 'description: "…",', "12:  code"), not a statement
    written = s
    setting = _SETTING.match(s)
    if setting and not find_values(setting.group("v")):
        # a setting written as a config line whose value is plain words ("report_style: terse bullets"): the key is its subject
        words = subject_words(setting.group("k"))
        value = setting.group("v").strip().rstrip(".")
        return Entry(text=written, kind="fact", subject=" ".join(words), value="+" + value.lower(), values=(value,), source=source, signature="quoted") if words else None
    s = typos.mend(s)  # "teh X shoudl be V" is "the X should be V" (same length: values keep their places)
    # a question that carries a statement: a request to set something ("Could you switch X to V and rerun …?"), or
    # what it takes as given ("Now that X is V, does …?"): the statement is read, the clause kept as written
    asked = _ASKED_SET.match(s) or _GIVEN.match(s)
    if asked:
        s = re.sub(r"^(?:redeploy|rerun|deploy|run)\s+(?:it\s+|everything\s+|things\s+)?with\s+", "Set ", asked.group("r").rstrip(" ,"), flags=re.IGNORECASE)
        s += "" if re.search(r"://\S*$", s) else "."  # a full stop ends the statement, but never joins a URL
    if not 6 <= len(s) <= MAX_CLAUSE_CHARS or s.endswith("?") or (_CHATTER.match(s) and len(s) < 40):
        return None
    if s.endswith(":") and not find_values(s) and not (_RULE.search(s) or _NEG.search(s) or _IMPERATIVE.match(_LEAD.sub("", s))):
        return None  # what opens a list ("A few things before you go on:") states nothing itself; "Use this format:" is a rule
    if sum(ch in "{}[]();=<>|\\" for ch in s) > max(4, len(s) // 15):
        return None  # code or markup, not a statement
    body = _LEAD.sub("", s)
    if _WH.match(body) and not re.search(r"[.!]$", s) and " is " not in body[:30] and not _PROHIBITION.match(body):
        return None
    # a correction: its lead and remark go, and a contrast names the value it replaces ("X is V, not U")
    body = corrections.REMARK.sub("", _LEAD.sub("", corrections.strip_lead(corrections.restate(body))))
    body, olds = corrections.split_contrast(body)
    olds = [*corrections.lead_olds(s), *olds]
    undo = _UNDO.match(body)
    body = f"Set {undo.group('s')} back to {undo.group('v')}" if undo else _unframe(body)
    # "Heads up: X is Y" / "Swap of plans: …": a short lead before a clause of its own goes
    m = _LEAD_COLON.match(body)
    if m and not find_values(m.group("h")) and not _GOAL_RE.match(body.rstrip(".! ")) and not (_FENCE.search(m.group("h")) or _READ_ONLY.match(m.group("h") + ":")):  # "Goal: …" is the goal
        inner = _read(m.group("r"))
        if inner is not None and inner[0] is not None:
            body = m.group("r")
    # a leading time or "for the X side," adverbial moves to the end ("This week Dana is on call")
    m = _LEAD_TIME.match(body) or _LEAD_WHEN.match(body) or _LEAD_FOR.match(body)
    if m:
        lead = m.group("d") if "d" in m.groupdict() else "for " + m.group("p")
        lead = lead[:1].lower() + lead[1:]  # moved inside the sentence: "Starting" is not a name there
        body = f"{m.group('r')} {lead}{m.group('e')}"
    body = _TRAILING_CONTRAST.sub(r"\1", _UNCHANGED.sub("", body))
    read = _read(body)
    if read is None:
        return None
    relation, subject, val_list = read
    kind = _kind(body, relation, subject, val_list)
    if kind is None and relation is None and not _WH.match(body) and any(_typed(v) and (len(subject) >= 2 or v.kind != "number" or CHANGE_CUE.search(body)) and not (s.endswith(":") and counted(v)) for v in val_list):
        # a statement with a date, amount, version or measure in it informs, whatever its verb (a count of things in a
        # line that opens what follows it does not: "Found 3 matches for X in Y:" heads a tool's listing)
        kind = "fact"
    if kind is None and relation is None and not s.endswith(":") and lists.is_list(body, val_list):
        kind = "fact"  # "The tour covers Lyon, Porto, Gdansk and Riga": a list of one kind of value states what it is of
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
    elif "budget" not in subject and any(v.kind == "money" and re.search(r"/(?:month|week|day|year)|\b(?:a|per) (?:month|week|day|year)\b", v.norm) for v in val_list):
        subject = [*subject, "budget"]  # "we've got $4,000 a month for cloud": an amount per period is a budget
    if kind in ("safety", "constraint") and relation is None and not olds and not (UPDATE_CUE.search(body) or CHANGE_CUE.search(body)):
        # the thing a rule fences off tells two rules apart (review rledger: "Never deploy to prod-us-2." had superseded
        # "Never deploy to prod-eu-1." through the one subject "deploy"); a rule marked as an update keeps the bare
        # subject and so still supersedes the rule it changes ("Never deploy to prod-eu-3 now" — same_subject)
        named = [v.text.lower() for v in val_list if v.kind in _IDENTITY or (v.kind == "name" and DASHED_ID.fullmatch(v.text))]
        subject = [*dict.fromkeys(w for w in named if w not in subject), *subject]
    polarity = "-" if _NEG.search(body) and relation is None else "+"
    value = polarity + "|".join(sorted(v.norm for v in val_list))
    return Entry(
        text=written, kind=kind, subject=" ".join(subject), value=value, values=tuple(v.text for v in val_list), source=source,
        signature=signature(val_list), replaces=tuple(olds), correction=corrections.is_correction(s), loose=relation is None and kind == "fact",
    )


def _read(body: str) -> tuple[str | None, list[str], list[Value]] | None:
    """(relation or None for a rule, subject words, the values it states) of a clause."""
    g = _GOAL_RE.match(body.rstrip(".! "))
    if g and not re.search(r"\b(?:never|always|must|don't|do not)\b", body, re.IGNORECASE):
        goal_val = Value("goal", g.group("v").strip(), 0, 0)
        return "goal", ["goal"], [goal_val]  # "the goal", "the focus", "the main task": the session's one goal, the newest wins
    g = _GOAL_ABOUT.match(body.rstrip(".! "))
    if g:
        return "goal", ["goal"], [Value("goal", g.group("v").strip(), 0, 0)]
    vals = find_values(body)
    deltas = frames.deltas(body, vals)
    fr = frame(body, vals).lower().rstrip(".! ")
    # a sentence-initial word read as a name is the subject when the predicate holds values itself
    if vals and vals[0].kind == "name" and vals[0].start == 0 and any(v.kind != "date" for v in vals[1:]):
        vals = vals[1:]
        fr = frame(body, vals).lower().rstrip(".! ")
    fr = frames.without_change_words(fr, vals, deltas)
    fr = re.sub(r"(?<=[a-z])(?<!\bgo)(?<!\bgoes)(?<!\bgoing)(?<!\bwent)(?<!\bget)(?<!\bcome)\s+back\s+(?=to\s+<v>)", " ", fr)  # "Put X back to V": a return names no other thing
    fr = re.sub(r"^(?:from now on|going forward|from here on|in future|for now)\s*,?\s*", "", fr)
    # an order said to the assistant in the second person is the imperative: "You'll use <v> for the X" → "use <v> for the X"
    fr = re.sub(r"^you(?:'ll|\s+will|\s+should|\s+must|\s+need\s+to|\s+have\s+to|\s+are\s+to|'re\s+to)\s+(?=(?:use|set|keep|put|make|go with|treat|switch|change|cap|limit)\b)", "", fr)
    fr = re.sub(r"^(?:(?:the\s+)?(?:team|squad|crew)\s+(<v>)|the\s+(<v>)\s+(?:team|squad|crew))(?=\s)", r"\1\2", fr)  # "Team Kestrel picks up X": the team
    fr = re.sub(r"(<v>[^,<]*),\s*(?:[a-z'-]+\s*){1,6}$", r"\1", fr).rstrip()  # an aside after the value: ", one more delay"
    fr = re.sub(r"(<v>[^<]*?)\s+(?:since|as of|starting|effective)\s+(?:the\s+|last\s+|this\s+)?[a-z]+(?:\s+[a-z]+)?$", r"\1", fr)  # "… since the outage"
    fr = re.sub(r"(<v>[^<]*?)\s+(?:after|following)\s+(?:last|yesterday|this|today|tonight)\S*\s+(?:[a-z]+'s\s+)?[a-z]+$", r"\1", fr)  # "… after last night's deploy"
    if re.search(r"<v>[^<]*?\s+(?:since|as of|starting|effective|beginning)\s+<v>$", fr):  # "wait V between tries, effective next week": when, not what
        fr = re.sub(r"\s+(?:since|as of|starting|effective|beginning)\s+<v>$", "", fr)
        vals = vals[:-1]
    fr = re.sub(r",?\s*(?:from now on|going forward|from here on|instead|now|please|for now|these days|nowadays|at the moment|currently|in total|in all|all told)\s*$", "", fr)
    # the same frame with its case (an acronym such as "US" names a region, not "us")
    cased = frame(body, vals)
    at = cased.lower().find(fr)
    cased = cased[at : at + len(fr)] if at >= 0 and len(cased) == len(cased.lower()) else fr
    fr, cased = frames.plain_frame(fr), frames.plain_frame(cased)
    cased = cased if cased.lower() == fr else fr
    mt = _MAKE_THAT.match(fr)
    if mt:
        v_vals = _values_in(fr, mt.start("v"), mt.end("v"), vals)
        subj = subject_words(mt.group("s") or "that")
        return "set", subj, v_vals
    tool = frames.TOOL_FOR.match(fr) or frames.FOR_TOOL.match(fr)
    if tool and all(v.kind == "name" for v in vals) and "<v>" not in tool.group("x") and tool.group("x") not in frames.NOT_TOOLS and frames.names_a_tool(tool, body):
        found = re.search(rf"(?<![\w.-]){re.escape(tool.group('x'))}(?![\w-])", body, re.IGNORECASE)
        at = found.start() if found else -1
        if at >= 0:
            return "set", subject_words(_restore(tool.group("s"), _values_in(fr, tool.start("s"), tool.end("s"), vals))), [Value("quoted", body[at : at + len(tool.group("x"))], at, at + len(tool.group("x")))]
    owned = frames.ownership(fr, vals)
    if owned is not None:
        return owned
    if frames.OWNERSHIP.search(fr) and pronouns.has_pronoun(fr) and not frames.things(fr):
        return None  # "V is the person to ask about it": the thing is in the clause before (``_parse_with_pronoun``)
    relation, subj_text, val_list = None, "", list(vals)
    for name, pat in _RELATIONS:
        m = pat.search(fr)
        if not m or not m.group("s").strip():
            continue
        s_part = cased[m.start("s") : m.end("s")]
        v_vals = _values_in(fr, m.start("v"), m.end("v"), vals)
        v_vals = [v for v in v_vals if v not in deltas] or v_vals
        s_vals = [v if v not in deltas else replace(v, text="") for v in _values_in(fr, m.start("s"), m.end("s"), vals)]
        if name != "who" and not subject_words(re.sub(r"<v>", " ", s_part)):
            continue  # the subject is a bare value ("Dana is on call"): the "who" reading below
        if pat is _POINT_AT and any(v.kind == "name" for v in v_vals):
            continue  # "Port the parser to Rust": a task, not a setting
        if name == "rename" and not any(v.kind in ("name", "quoted", "id") for v in v_vals):
            continue  # "The dashboard shows latency as 120ms": a measurement, not a name
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
        if len(v_vals) >= 2 and v_vals[-1].kind == "name" and re.search(r"<v>\s+(?:on|for|in|at)\s+<v>$", fr[m.start("v") : m.end("v")]):
            subj_text, v_vals = f"{subj_text} {v_vals[-1].text}", v_vals[:-1]  # "Dagny on Lisbon": whose contact, not a second value
        lib = re.search(r"\b([a-z][\w.-]{2,})\s+<v>", fr[m.start("v") : m.end("v")]) if any(v.kind == "version" for v in v_vals) else None
        if lib and subject_words(lib.group(1)) and lib.group(1) not in subj_text.lower():
            subj_text = f"{subj_text} {lib.group(1)}"  # "X is on grpcio <v>": a version of grpcio
        relation, val_list = name, v_vals
        break
    names = [v for v in vals if v.kind == "name"]
    if relation is None and len(names) == 1 and _OWN.search(fr):
        about = _ABOUT_IF.search(fr) or _ABOUT.search(fr)
        rest = about.group("x") if about else _OWN.sub(" ", re.sub(r"<v>", " ", fr))
        words = subject_words(_restore(rest, []) if "<v>" not in rest else rest.replace("<v>", " "))
        words = [w for w in words if w not in ("talk", "ask", "ping", "contact", "reach", "owner", "own", "question", "anything", "through",
                                               "send", "forward", "route", "escalate", "assign", "bug", "issue", "ticket", "request")]
        if words:
            return "owner", ["owner", *words], names
    if relation is None:
        # a rule: quantities are its value; a path, host or id is part of what it is about
        ident = [v for v in vals if v.kind in _IDENTITY]
        val_list = [v for v in vals if v.kind not in _IDENTITY and v not in deltas] or [v for v in vals if v.kind not in _IDENTITY]
        subj_text = re.sub(r"<v>", " ", fr) + " " + " ".join(v.text for v in ident)
    subject = subject_words(subj_text)
    if relation is None and len(subject) > 14:
        subject = subject[:14]
    return relation, subject, val_list


_BINDING = frozenset({"safety", "constraint", "preference"})


def _stated(own: str) -> tuple[list[str], int]:
    """(the sentences of ``own`` — the person's own words — less their clauses that state nothing, how many clauses
    that is: unasserted.held)."""
    said_all = sentences(own)
    if not may_state_nothing(own):
        return said_all, 0
    kept = [_held(s, said_all[k + 1] if k + 1 < len(said_all) else "") for k, s in enumerate(said_all)]
    return [h for h, _ in kept], sum(n for _, n in kept)


def _own_words(text: str) -> str:
    return without_pasted(split_environment(text)[0])  # code, config files and tracebacks pasted are not the person's words


def unasserted_clauses(text: str) -> int:
    """How many clauses of the person's own words in ``text`` :func:`detect` drops as stating nothing."""
    return _stated(_own_words(text))[1] if may_state_nothing(text) else 0


def detect(text: str, source: str = "", *, opening: bool = False, explicit_only: bool = False) -> list[Entry]:
    """Entries the person's own words in ``text`` state (environment blocks never count). A clause
    that says two things ("X is A, and Y is B") gives one entry per part. ``opening``: ``text`` is the
    first message of the session, whose first request is the session's goal when no clause of it
    names one ("I need the X service on the new scheduler by tonight"). ``explicit_only``: only a request asked for in
    so many words counts (the message after an opening whose goal was read from its shape alone)."""
    own = _own_words(text)
    out: list[Entry] = []
    prev = ""
    request, request_rank = "", 0
    # a clause that only supposes a value ("Hypothetically, the X at V …") or reports a rule disowned states nothing (unasserted.py;
    # counted by ledger.unasserted_clauses)
    held = [h for h in _stated(own)[0] if h]
    for clause in (a for s in held for w in read_windows(s)[0] for a in asides(w, _reads_alone)):
        parts = compound(clause)
        end = clause.rstrip()[-1:] if len(parts) > 1 and clause.rstrip()[-1:] in ".!" else ""
        for k, part in enumerate(parts):
            read = part if part.rstrip()[-1:] in ".!?" else part + end
            through = _part_through(parts[k - 1], read, source) if k and pronouns.needs_antecedent(read) else None
            if through is not None:
                got = [replace(through, text=part)]
            else:
                got = [replace(e, text=part) if e.text == read else e for e in _parse_with_pronoun(read, prev, source)]
            out += got
            binds = any(e.kind in _BINDING for e in got)  # a rule is never made the goal (it would go when the goal changes)
            said = _LEAD.sub("", part)
            lead = _LEAD_TIME.match(said)
            said = lead.group("r") if lead else said  # "Today we want the X service on the new scheduler."
            # a request after a remark about the speaker ("I'm off for the week; please pick up the X from here")
            said = said.split("; ", 1)[1] if "; " in said and _REQUEST.match(said.split("; ", 1)[1]) else said
            # "Help me with the X?": asked as a question, still the request (a question that only asks is not)
            asks_help = re.match(r"(?:please\s+)?help\s+(?:me|us)\b", said, re.IGNORECASE) is not None
            polite = _POLITE.match(said)  # "Could you help me move the X …?" asks for what it names
            asks = (_REQUEST.match(said) and (asks_help or not part.rstrip().endswith("?"))) or (
                polite and ("help" in polite.group(0).lower() or _REQUEST.match(said[polite.end() :])))
            # a request read from its shape alone: only a clause that states nothing else (a fact it carries stays a fact)
            shaped = (not got or _binds_only_by_asking(part, got, source)) and (
                goals.request(said) or goals.deliberate(part) or bool(polite and goals.request(said[polite.end() :], polite=True)))
            # "Please analyze the X and …", "Could you put together a Y?": asked for in so many words, even when it names a
            # value (it outranks a request read from its shape alone, in this message or the next)
            plain = bool(goals.imperative(re.sub(r"^please\s+", "", said, flags=re.IGNORECASE))) and re.match(r"please\b", said, re.IGNORECASE) is not None
            explicit = not binds and (bool(asks) or plain or bool(polite and goals.request(said[polite.end() :], polite=True)))
            if goals.courtesy(said):
                explicit = shaped = False
            rank = 0 if not opening else (2 if explicit else 1 if shaped and not explicit_only else 0)
            rank = min(rank, 1) if rank and goals.list_item(part, own) else rank  # an item of a list is never the goal its intro states
            if rank > request_rank:
                request, request_rank = part, rank
            prev = part
    if request and not any(e.kind == "goal" for e in out) and len(request) <= MAX_CLAUSE_CHARS:
        goal = request.strip().rstrip(".!")
        # its text is the clause as written; a fold's memory block labels it "Goal:" (``ledger.stated``); a goal read
        # from its shape alone gives way to a request asked for in so many words in the next message
        out = [e for e in out if e.text != request] + [Entry(text=request.strip(), kind="goal", subject="goal", value="+" + goal.lower(), values=(goal,),
                                                             source=source, signature="goal" if request_rank > 1 else goals.SHAPED)]
    return out


def _binds_only_by_asking(part: str, got: Sequence[Entry], source: str) -> bool:
    """``part`` reads as a rule or preference only through the words of its need ("I need to tidy the X before the
    launch", "I'd like a tool that checks the Y"): what it asks for, read alone, binds nothing. A safety rule never."""
    rest = goals.needed(part)
    if not rest or any(e.kind not in ("constraint", "preference") for e in got):
        return False
    return not any(e.kind in _BINDING for e in _parse_with_pronoun(rest[:1].upper() + rest[1:], "", source))


def _reads_alone(aside: str) -> bool:
    """An aside ("(for context, the X is V)", "— the X listens on port V —") that states something by a
    relation of its own, not a remark about the sentence around it ("(independent, ~10 min)")."""
    e = parse(aside)
    return e is not None and not e.loose and bool(e.values)


def compound(clause: str) -> list[str]:
    """The statements of a clause that makes two ("The X is A, and the Y is B", "X is A; also, Y is
    B"), each read on its own; an elliptic second part takes the first one's head ("The quota is A
    for m and B for n" → "The quota is B for n"). Split only where each part states a value and
    reads as an entry; otherwise the clause is one statement."""
    # a note that replaced a whole stale statement joined to this one ("…; also, [updated later: V]") is not part of it
    clause = re.sub(r"\s*[;,]\s*(?:(?:and|also|plus)\b,?\s*)?\[updated later:[^\]]*\]\s*$", "", clause) or clause
    clause = re.sub(r"^\[updated later:[^\]]*\]\s*[;,]?\s*(?:(?:and|also|plus)\b,?\s*)?(?=\w)", "", clause) or clause
    if corrections.restate(clause.strip()) != clause.strip():
        return [clause]  # a value judged wrong, then the right one ("I typed U as the X; that's incorrect, it's V"): one correction
    vals = find_values(clause)  # typed in the whole clause: "Dana" after "and" is a name there
    for m in _CONJ.finditer(clause):
        left, right = clause[: m.start()].strip(), clause[m.end() :].strip()
        lv, rv = [v for v in vals if v.end <= m.start()], [v for v in vals if v.start >= m.end()]
        if not (lv or rv) or len(left) < 8 or len(right) < 3:
            continue
        nxt = _CONJ.search(clause, m.end())
        k = len([v for v in rv if nxt is None or v.start < nxt.start()])  # the values of the next part only
        elliptic = bool(rv and rv[0].start == m.end() and len(lv) >= k and [v.kind for v in lv[-k:]] == [v.kind for v in rv[:k]]
                        and re.match(r"\s+(?:for|in|on|at)\s", clause[rv[0].end :]) and re.match(r"\s+(?:for|in|on|at)\s", clause[lv[-k].end :]))
        if elliptic:
            right = left[: lv[-k].start] + right  # "… is A for m and B for n": B takes A's place
        elif m.group(0).strip() == ",":
            continue  # a bare comma parts only elliptic statements ("X: A on m, B on n")
        end = clause.rstrip()[-1:] if clause.rstrip()[-1:] in ".!" else ""
        # read as a statement of its own ("When polling, wait V between tries." is no question); after a turn to
        # another topic ("…; also, Y is B", "…, and by the way Y is B") the part before may be anything: a task, a
        # correction ("Scratch that: V, I was thinking of something else; also, …")
        turn = _TOPIC_TURN.search(m.group(0)) or _TOPIC_TURN.match(right)
        # (a part that names its subject only by a pronoun at its start, "…; it starts V", or whose values are only names, is read
        # with the part before it; elsewhere, "Keep the batch size at 500, and raise it by 100 only if asked", the part is split
        # off and read through the left part's noun phrase (``_part_through``), the left part keeping its own value)
        if pronouns.needs_antecedent(right):
            if re.match(r"(?:it|they)\b", right, re.IGNORECASE) is not None or all(v.kind == "name" for v in rv):
                continue
            if parse(left + end) is None or _part_through(left, right + end) is None:
                continue
        elif parse(right) is None or (parse(left + end) is None and not turn):
            continue
        return [left, *compound(right)]
    return [clause]


_TOPIC_TURN = re.compile(r"\b(?:also|plus|by the way|btw|separately|unrelated(?:ly)?|on another note)\b", re.IGNORECASE)


def _unframe(body: str) -> str:
    """``body`` without what frames the statement: a report ("we agreed that", "as far as I know"),
    a leading circumstance ("After the reorg last week,", "Whatever happens,"), an aside before a
    colon ("I only heard at lunch, so sorry for the late notice: …") — only when the frame holds no
    value and what is left reads as a statement."""
    for _ in range(4):
        rest = ""
        for pat in (_FRAME_REPORT, _FRAME_CIRCUMSTANCE, _FRAME_COLON, _FRAME_SPEAKER):
            m = pat.match(body)
            if not m or (pat is _FRAME_SPEAKER and (any(p.search(m.group("h")) for p in (_PREF, _RULE, _NEG, _SAFETY_POS)) or (_OPENS_WITH_PRONOUN.match(m.group("r")) and not _FRAME_SPEAKER.match(m.group("r"))))):
                continue
            r = next((g for k, g in m.groupdict().items() if k.startswith("r") and g), "")
            head = body[: len(body) - len(r)]
            if pat is _FRAME_COLON and len(head.split()) < 5 and not re.search(r"\b(?:i|we|you|they|sorry)\b", head, re.IGNORECASE):
                continue  # a short label before a colon ("Commit messages: …") is the subject
            # a capitalised first word of the frame ("Legal vetoed the old name, so …") is no value it holds
            if r and len(r.split()) >= 3 and not [v for v in find_values(head) if not (v.kind == "name" and v.start == 0 and " " not in v.text)]:
                read = _read(_LEAD.sub("", r))
                if read is not None and read[1] and (read[0] is not None or read[2] or _RULE.search(r) or _NEG.search(r) or _NO.search(r)):
                    rest = _LEAD.sub("", r)
                    break
        if not rest:
            return body
        body = rest
    return body


def _parse_with_pronoun(clause: str, prev: str, source: str) -> list[Entry]:
    """The entries of ``clause``. When part of it names its subject only by a pronoun ("X changed
    hands; Dmitri has it now", "We upgraded X; it runs V now") or not at all ("We loosened the
    title rule; 60 characters is OK now"), that part is read with the noun phrase of the part (or,
    for a clause that states nothing as written, the clause) before it; the entry keeps both as
    its text."""
    if corrections.restate(clause.strip()) != clause.strip() and (whole := parse(clause, source)) is not None:
        return [whole]  # a correction read by its structure ("…; that's incorrect, it's V"): its "that" is the old value
    if corrections.value_only(clause) and not pronouns.needs_antecedent(clause):
        # only a value ("Sorry, I meant V.", "V is correct."): about what the clause before it names
        e = corrections.subjectless(clause, prev, signature, source)
        return [e] if e is not None else []
    for m in pronouns.SPLIT.finditer(clause):  # "We changed the port of X; 8315 from now on." (when it reads as nothing else)
        first, second = clause[: m.start()], clause[m.end() :]
        if corrections.value_only(second) and not find_values(first) and not pronouns.needs_antecedent(second) and parse(clause, source) is None:
            e = corrections.subjectless(second, first, signature, source)
            return [replace(e, text=clause)] if e is not None else []
    cuts = [m for m in pronouns.SPLIT.finditer(clause) if pronouns.needs_antecedent(clause[m.end() :])]
    if cuts:  # within the clause: "<first part>; <pronoun part>"
        first, second = clause[: cuts[0].start()], clause[cuts[0].end() :]
        np = pronouns.antecedent(first)
        alt = parse(pronouns.resolve(second, np), source) if np else None
        if alt is not None:
            alt = _with_role_of(first, alt)
            head = parse(first, source)
            # the first part keeps a typed value of its own ("Hold the pool size at 16, and double it only on Mondays"; a name
            # there says who did it: "Marketing renamed the X; it is V now")
            # (nor a delta whose result the pronoun part states: "Push X back by three days; it starts V")
            deltas = {v.text for v in frames.deltas(clause, find_values(clause))}
            own = {v.text for v in find_values(first) if v.kind != "name"} - set(alt.values) - deltas if head is not None else set()
            kept = [head] if head is not None and (not alt.values or own & set(head.values)) else []
            return [*kept, replace(alt, text=clause)]
    e = parse(clause, source)
    if e is None and corrections.is_correction(clause):
        # a correction parse cannot read ("Sorry, I meant V for X, not U"): its subject is found in the ledger
        e = corrections.subjectless(clause, prev, signature, source)
    joined = f"{prev} {clause}"
    if e is None and prev and parse(prev, source) is None and corrections.restate(joined) != joined and (whole := parse(joined, source)) is not None:
        # "I got the X wrong earlier. It's V.", "Remember what I said about X? Change that to V.": one update in two sentences, the
        # first stating nothing on its own (one that does keeps its own reading, and is not read twice)
        return [whole]
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


def _part_through(before: str, part: str, source: str = "") -> Entry | None:
    """``part`` (a part of a compound clause that names its thing by a pronoun) read with the noun phrase of the
    part ``before`` it, or None."""
    np = pronouns.antecedent(before)
    e = parse(pronouns.resolve(part, np), source) if np else None
    return _with_role_of(before, e) if e is not None else None


def _with_role_of(before: str, e: Entry) -> Entry:
    """``e`` (read through a pronoun) about the attribute the clause before it names: "X name"
    after a rename, "owner X" after a hand-over, as a direct statement would be read."""
    words = e.subject.split()
    for role, cue in _ROLE_CUES:
        if cue.search(before) and role not in words and e.kind == "fact":
            return replace(e, subject=" ".join([*words, "name"] if role == "name" else ["owner", *words]))
    return e
