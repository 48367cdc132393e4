"""Corrections and statements whose subject is elsewhere (found on ``probe8``). Pure.

* A contrast that names the old value ("the port is 8443, not 8433", "… instead of U", "… rather
  than U"): the old value is not what the statement says, it is what it replaces
  (``split_contrast``; ``Entry.replaces``).
* A correction lead ("Sorry, I meant V", "No wait, V", "Typo: V", "Typo in what I wrote: X is V")
  or remark (", I had it wrong", ", my mistake") says the statement corrects something said before.
* A clause that states a value but names no subject ("Sorry, I meant V.", "V is correct.", "8315
  from now on") is about what the clause before it names, or, said on its own, about the entry
  holding the value it replaces, else (a correction) the entry the clause before it stated
  (``resolve``, against the ledger).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from . import updates
from .clauses import TYPED_OR_IDENTITY, Value, find_values, frame, normalize_value
from .entries import Entry
from .subjects import align, caps, subject_words
from .vocabulary import CHANGE_PAST_VERB, CORRECTION_LEAD

LEAD = re.compile(
    r"^(?:(?:sorry|oops|whoops|apologies|my bad|ugh)\b[\s,!.:;-]*)*"
    r"(?:i\s+meant(?:\s+to\s+say)?|i\s+mean|wait\s*,?\s+no|typo(?:\s+(?:in\s+what\s+i\s+(?:wrote|said)|earlier|before|above|there|in\s+my\s+last\s+message))?|"
    rf"to correct (?:that|myself)|correction(?:\s+(?:on|to|about)\s+[^:,<]{{2,40}})?|i got (?:that|it) wrong|{CORRECTION_LEAD}|"
    # the old value named as the mistake: "Sorry, U was a typo;", "U was wrong:", "U was a mistake,"
    r"(?:[^\s,;:]+(?:\s+[^\s,;:]+){0,2})\s+was\s+(?:a\s+typo|wrong|a\s+mistake|incorrect|an\s+error)\s*(?=[;:,.])|"
    # a lead that says what was wrong: "Wrong pin, my bad:", "I gave you the wrong port:", "Wrong ticket for the X, sorry:",
    # "I misread the calendar,", "I mixed people up earlier:"
    # (not a verdict on someone else's work: "Wrong answer: the test expects 3 retries" corrects the assistant, not the speaker)
    r"(?:i\s+(?:gave|told|sent)\s+you\s+)?(?:the\s+)?wrong\s+(?!(?:answers?|approach|results?|outputs?|guess|idea|direction|assumption|way|fix|patch|diff|reply|response|solution|code|move|call|track)\b)[a-z]+(?:\s+for\s+[^,:<]{2,40})?(?:\s*,\s*(?:sorry|my bad|oops|apologies))?\s*(?=:)|"
    r"i\s+(?:misread|misremembered|misspoke about|mixed\s+(?:[a-z]+\s+)?up)(?:\s+(?:the|my)\s+[a-z]+)?(?:\s+(?:earlier|before|there))?\s*(?=[:,]))\b[\s,:;!.-]*",
    re.IGNORECASE,
)
REMARK = re.compile(
    r"\s*[,;(-]\s*(?:i had it wrong|i got it wrong|my (?:bad|mistake|typo)|sorry(?: about that)?|i mixed (?:it|them) up|i misspoke|i mean|i meant|"
    r"(?:a |my )?typo(?: on my (?:side|part|end)| of mine)?|"
    r""
    # what the speaker got wrong, said after the value: "…, I was thinking of something else", "…, I said the wrong number before"
    r"i was thinking of (?:something|someone) else|i said the wrong [a-z]+(?: (?:before|earlier))?|i misremembered(?: [^,.;!]{1,40})?|i misread(?: [^,.;!]{1,30})?)"
    r"\s*\)?(?=[.!]?$)",
    re.IGNORECASE,
)
_CONTRAST = re.compile(r"(?:\s*[,;]\s*(?:and\s+|but\s+)?not|\s+(?:and|but)\s+not|(?:\s*[,;]\s*|\s+)(?:instead of|rather than))\s+(?:the\s+)?(?P<old>[^,;]{1,80}?)\s*(?=[.!]?$)", re.IGNORECASE)
# what may surround the value of a clause that names no subject
_FILLER = re.compile(
    r"\b(?:from now on|going forward|from here on|for now|now|then|instead|please|it is|it's|that's|that is|is|are|correct|right|confirmed|final|no|"
    r"the (?:right|correct|real|actual) (?:one|value|number)|actually|really|also|again|ok|okay|fine|was meant|went|goes|"
    rf"rather|{CHANGE_PAST_VERB}|to|on|at|for|by|a|an|the|yes|here|"
    # Kind: a verdict that labels the value, or the speaker's position, after a sentence naming the thing — "We went over
    # the cache size at lunch. Result: 6 GB.", "The standup moved again. We're at 10:15." (before, "result" / "we"
    # made a subject of their own, beside the thing's entry)
    r"we(?:'re| are) (?:at|on|now at)|landed on)\b|\b(?:outcome|answer|result|verdict|decision|conclusion|upshot|bottom line)\s*:",
    re.IGNORECASE,
)


_NAMED_MISTAKE = re.compile(r"^(?:(?:sorry|oops|whoops|apologies|my bad|ugh)\b[\s,!.:;-]*)*(?P<old>[^\s,;:]+(?:\s+[^\s,;:]+){0,2})\s+was\s+(?:a\s+typo|wrong|a\s+mistake|incorrect|an\s+error)\s*[;:,.]", re.IGNORECASE)


# what was wrong, then the value: "I had the X wrong, it's V" says "the X is V" (the subject is the lead's, never dropped)
_HAD_WRONG = re.compile(r"^i\s+(?:(?:had|got)\s+(?P<x>(?:the|our|my)\s+[^,;:<]{2,60}?)\s+wrong|was\s+(?:wrong|mistaken)\s+about\s+(?P<x2>(?:the|our|my)\s+[^,;:<]{2,60}?))(?:\s+(?:earlier|before|previously|above|last time|yesterday))?\s*[;:,.]\s*(?:it(?:'s|\s+is)|that(?:'s|\s+is)|the\s+right\s+one\s+is)?\s*(?P<r>\S.*)$", re.IGNORECASE)


# Kind: a correction that quotes what the speaker wrote before, then says it was wrong and gives the value: "I put
# 40 GB for the scratch volume earlier, that was a mistake: 60 GB", "We listed ops@corp.test as the escalation address
# before, that's wrong - it's oncall@corp.test". Restated "the X is V, not U": the old value is named as replaced (the
# entry holding it is superseded, whatever its wording), the subject is what it was written for.
_SAID_WRONG = re.compile(
    r"^(?:i|we)\s+(?:wrote|said|put|typed|gave|listed|had|entered|set)\s+(?P<old>\S.{0,60}?)\s+(?:for|as)\s+(?P<x>[^,;:<]{2,60}?)"
    r"(?:\s+(?:before|earlier|previously|above|last time))?\s*[,;]\s*(?:but\s+)?(?:that(?:'s|\s+is|\s+was)|it(?:'s|\s+is|\s+was))\s+"
    r"(?:wrong|a\s+typo|a\s+mistake|incorrect|not\s+right|outdated)\s*[:;,.-]+\s*(?:it(?:'s|\s+is)\s+|the\s+right\s+one\s+is\s+)?(?P<r>\S.*)$",
    re.IGNORECASE,
)


# Kind: the old value negated between the thing and the new value — "The invoice retention: not 30 days — 45 days",
# "Correction on the mirror host, not rook-db4.lan, kite-app7.int", "The standup slot, not 9:30 but 10:15". Restated
# "the X is V, not U": U is named as replaced, V is the value (before, both were read as the thing's values, or the
# correction lead took the subject with it). Only when U and V are values and nothing else.
_NEGATED_OLD = re.compile(
    r"^(?:(?:a\s+|one\s+)?correction\s+(?:on|to|about|for)\s+)?(?P<x>(?:the|our|my|your|this|a|an)\s+[^,:;<]{2,60}?|[^,:;<\s]+(?:\s+[^,:;<\s]+){0,5})"
    r"\s*[:,]\s*not\s+(?P<old>[^,;—–]{1,60}?)\s*(?:[—–]|--|,|;|\s+but)\s*(?:(?:it(?:'s|\s+is)|rather|instead)\s+)?(?P<r>[^,;]{1,80}?)\s*(?P<end>[.!]?)$",
    re.IGNORECASE,
)
# Kind: a lead that names the thing it had wrong, then the value — "I gave you the wrong figure for the cache size earlier:
# 6 GB", "Wrong date for the board meeting: May 9". Restated "the X is V" (before, the lead went and took the thing with it:
# the value was guessed onto another entry)
_WRONG_FOR = re.compile(
    r"^(?:i\s+(?:gave|told|sent)\s+you\s+)?(?:the\s+)?wrong\s+[a-z]+\s+(?:for|on|about)\s+(?P<x>[^,:<]{2,60}?)"
    r"(?:\s+(?:earlier|before|previously|above|last time))?\s*:\s*(?P<r>\S.*)$",
    re.IGNORECASE,
)


# Kind: a lead that takes back what was said about a thing, then its value — "Scratch what I told you about the X,
# it's V", "Forget what I said earlier on the X: V now", "Ignore what I wrote about the X — make it V". Restated "the X
# is V" (before, the lead's words were the subject's, "scratch what told X", and the old statement stayed in force)
_TAKEN_BACK = re.compile(
    r"^(?:scratch|forget|ignore|disregard|strike|drop|never\s+mind)\s+what\s+(?:i|we)\s+(?:told\s+you|said|wrote|mentioned|gave\s+you|sent(?:\s+you)?)"
    r"(?:\s+(?:earlier|before|previously|above|last time|yesterday))?\s+(?:about|on|regarding|for)\s+(?P<x>[^,;:<—–]{2,60}?)\s*(?:[,;:—–]|--)\s*"
    r"(?:it(?:'s|\s+is|\s+will\s+be|\s+should\s+be)|that(?:'s|\s+is)|make\s+it|use|now)?\s*(?P<r>\S.*)$",
    re.IGNORECASE,
)
# a rest that names its own subject with a copula ("…, the staging host is V") says something of its own, not the value
# of what was taken back
_OWN_COPULA = re.compile(r"^(?:the|our|my|their|its|this|that|these|those)\s+(?:[\w.-]+\s+){0,5}?(?:is|are|was|were|will\s+be|should\s+be|'s)\b", re.IGNORECASE)
# what a correction's rest names as its mistake: "U was a mistake, it's V" → V, not U
_REST_MISTAKE = re.compile(r"^(?P<old>\S.{0,60}?)\s+was\s+(?:a\s+typo|wrong|a\s+mistake|incorrect|an\s+error)\s*[;:,.—–-]+\s*(?:it(?:'s|\s+is)\s+|the\s+right\s+one\s+is\s+)?(?P<r>\S.*)$", re.IGNORECASE)


def _only_values(text: str) -> bool:
    vals = find_values(text)
    return bool(vals) and not re.search(r"[A-Za-z]{2,}", frame(text, vals).replace("<v>", " "))


def restate(clause: str) -> str:
    """A correction that names what it had wrong, restated as what is right ("I had the X wrong, it's V and not U"
    → "The X is V and not U"; "I wrote U for X before, that's wrong: V" → "X is V, not U"); any other clause as it is."""
    m = _HAD_WRONG.match(clause.strip())
    if m:
        x = m.group("x") or m.group("x2")
        named = _REST_MISTAKE.match(m.group("r"))
        if named and _only_values(named.group("old")) and find_values(named.group("r")):
            r = named.group("r").rstrip()
            end = r[-1:] if r[-1:] in ".!" else ""
            return f"{x[:1].upper()}{x[1:]} is {r.rstrip(' .!')}, not {named.group('old')}{end}"  # "U was a mistake, it's V"
        return f"{x[:1].upper()}{x[1:]} is {m.group('r')}"
    m = _TAKEN_BACK.match(clause.strip())
    if m and find_values(m.group("r")) and len(m.group("r").split()) <= 8 and not _OWN_COPULA.match(m.group("r")):
        x = m.group("x").strip()
        return f"{x[:1].upper()}{x[1:]} is {m.group('r')}"
    m = _SAID_WRONG.match(clause.strip())
    if m and find_values(m.group("old")) and find_values(m.group("r")):
        x = m.group("x")
        end = m.group("r").rstrip()[-1:] if m.group("r").rstrip()[-1:] in ".!" else ""
        return f"{x[:1].upper()}{x[1:]} is {m.group('r').rstrip(' .!')}, not {m.group('old')}{end}"
    m = _NEGATED_OLD.match(clause.strip())
    if m and _only_values(m.group("old")) and _only_values(m.group("r")):
        x = m.group("x")
        return f"{x[:1].upper()}{x[1:]} is {m.group('r')}, not {m.group('old')}{m.group('end')}"
    m = _WRONG_FOR.match(clause.strip())
    if m and find_values(m.group("r")):
        x = m.group("x")
        return f"{x[:1].upper()}{x[1:]} is {m.group('r')}"
    return _judged(clause.strip()) or updates.restated(clause)


# a judgement that refers back to what was said: "…, but that was wrong", "… was wrong", "…, which is wrong:", "; that's incorrect"
_JUDGEMENT = re.compile(r"(?:,\s*|;\s*|\s+)(?:but\s+|which\s+|and\s+)?(?:(?:that|it|this)\s*(?:'s|\s+is|\s+was)|is|was|were)\s+"
                        r"(?:wrong|a\s+typo|a\s+mistake|incorrect|not\s+right|off)\b\s*[:;,.-]*\s*", re.IGNORECASE)
# what the old value was given for: "… U for the X", "U as the X size", "U down for the X"
_GIVEN_FOR = re.compile(r"\b(?:for|as)\s+(?P<x>(?:the|our|my|this)\s+[^,;:<]+?)(?:\s+(?:before|earlier|previously|above|last time))?\s*$", re.IGNORECASE)


def _judged(clause: str) -> str | None:
    """Kind: a value said earlier, judged wrong, then the right one — "I told you U for the X, but that was wrong, it's V",
    "the U I gave for the X was wrong, it should be V", "Earlier I typed U as the X size; that's incorrect, it's V", "We
    had U down for the X, which is wrong: V" (review of the quarry round: only "I wrote U for X before, that's wrong: V"
    was read). Read by structure: one value before the judgement, the thing it was given for, and a value of the same
    kind after it; restated "the X is V, not U"."""
    j = _JUDGEMENT.search(clause)
    if not j:
        return None
    vals = find_values(clause)
    before = [v for v in vals if v.end <= j.start()]
    after = [v for v in vals if v.start >= j.end()]
    if len(before) != 1 or not after or before[0].kind != after[0].kind:
        return None
    u, v = before[0], after[0]
    # the thing it was given for: after the old value ("U for the X") or after it in a relative ("the U I gave for the X")
    m = _GIVEN_FOR.search(re.sub(r"\s+down\b", "", clause[u.end : j.start()]))
    if not m:
        return None
    x, r = m.group("x"), clause[v.start :].rstrip(" .!")
    return f"{x[:1].upper()}{x[1:]} is {r}, not {u.text}"


def lead_olds(clause: str) -> list[str]:
    """The old values a correction lead names as the mistake ("Sorry, U was a typo; …")."""
    m = _NAMED_MISTAKE.match(clause.strip())
    return [v.text for v in find_values(m.group("old"))] if m else []


def has_lead(clause: str) -> bool:
    return LEAD.match(clause.strip()) is not None and LEAD.match(clause.strip()).end() > 0  # type: ignore[union-attr]


def strip_lead(clause: str) -> str:
    s = clause.strip()
    m = LEAD.match(s)
    return s[m.end() :] if m and m.end() else s


def is_correction(clause: str) -> bool:
    """The clause says it corrects something: a lead, a remark, or a contrast with a value."""
    s = clause.strip()
    return has_lead(s) or REMARK.search(s) is not None or bool(split_contrast(s)[1]) or _TAKEN_BACK.match(s) is not None


_LEADING_CONTRAST = re.compile(r"^not\s+(?P<old>[^:;,]{1,80}?)\s*[:;]\s+(?P<r>\S.*)$", re.IGNORECASE)


# a value the clause itself marks as the one before (English grammar, not a family's wording): "X: not U anymore — V",
# "X (previously U) is V", "X (was U) is V", "X changed (U before, V now)"
_NOT_ANYMORE = re.compile(r"\bnot\s+(?:the\s+)?(?P<old>[^,;()—–]{1,60}?)\s+any\s?(?:more|longer)\b\s*(?:[—–]+|--?|[,;:])?\s*", re.IGNORECASE)
_WAS_ASIDE = re.compile(r"\s*\((?:previously|formerly|was|were|used to be|before:?)\s+(?P<old>[^()]{1,60}?)\)", re.IGNORECASE)
_BEFORE_NOW = re.compile(r"\s*\((?P<old>[^(),]{1,60}?)\s+before,\s*(?P<new>[^(),]{1,60}?)\s+now\)", re.IGNORECASE)


def _old_values(text: str) -> list[str]:
    """The values of ``text`` when it is little but them (at most three other words), else []."""
    vals = find_values(text)
    if not vals or len(re.findall(r"[A-Za-z]{2,}", frame(text, vals).replace("<v>", " "))) > 3:
        return []
    return [v.text for v in vals]


# a value the speaker began to give and took back in the same breath: "I was going to say U, but no, let's go with V",
# "I almost said U — no, V", "maybe U... no, make it V"; "no" stands alone before punctuation ("maybe U, no more" keeps U)
_SAID_THEN_NO = re.compile(r"\b(?:i\s+was\s+going\s+to\s+say|i\s+(?:almost|nearly)\s+(?:said|wrote)|i\s+first\s+(?:said|wrote|thought)|maybe)\s+"
                           r"(?P<old>(?:[^,;.…—–]|(?<=\d)[,.](?=\d)){1,60}?)\s*(?:\.{2,}|…|,|[—–])\s*(?:but\s+)?no(?:[,.!;:—–]+|\s*$)\s*", re.IGNORECASE)


def marked_old(body: str) -> tuple[str, list[str]]:
    """(``body`` without the values it marks as the ones before, those values): "not U anymore", "(previously U)",
    "(U before, V now)" — the old value is named inside the statement of the new one, and is not its value; and an update
    whose frame names the value it replaces ("We swapped U for V as the X", "X went from U to V": ``updates.py``)."""
    rest, olds = updates.replaced(body)
    if olds:
        return rest, olds
    for pat, new in ((_NOT_ANYMORE, lambda m: " "), (_WAS_ASIDE, lambda m: ""), (_BEFORE_NOW, lambda m: " to " + m.group("new")), (_SAID_THEN_NO, lambda m: " ")):
        m = pat.search(body)
        if m:
            olds = _old_values(m.group("old"))
            if olds:
                rest = (body[: m.start()] + new(m) + body[m.end() :]).replace("  ", " ").strip()
                return rest, olds
    return body, []


def split_contrast(body: str) -> tuple[str, list[str]]:
    """(``body`` without a trailing contrast that holds a value, the old values it names); a leading one
    ("Not U: the X is in V") the same, and an old value the clause marks as the one before ("not U anymore",
    "(previously U)", "(U before, V now)")."""
    body, marked = marked_old(body)
    if marked:
        return body, marked
    lead = _LEADING_CONTRAST.match(body.strip())
    if lead:
        olds = [v.text for v in find_values(lead.group("old"))]
        if olds and not re.search(r"[A-Za-z]{2,}", frame(lead.group("old"), find_values(lead.group("old"))).replace("<v>", " ")):
            return lead.group("r"), olds
    body = body.rstrip(" ;,:") if body.rstrip()[-1:] in ";,:" else body  # "…, not U; I misremembered the hook."
    m = _CONTRAST.search(body)
    if not m:
        return body, []
    vals = [v for v in find_values(body) if v.start >= m.start("old")]  # typed in the whole clause ("not Chiara")
    olds = [v.text for v in vals]
    if not olds or len(re.findall(r"[A-Za-z]{2,}", frame(m.group("old"), [replace(v, start=v.start - m.start("old"), end=v.end - m.start("old")) for v in vals]).replace("<v>", " "))) > 3:
        return body, []
    end = body.rstrip()[-1:] if body.rstrip()[-1:] in ".!" else ""
    return body[: m.start()].rstrip(" ,;") + end, olds


def value_only(clause: str) -> list[Value]:
    """The values of a clause that is nothing but them (and filler): "V.", "V, not U", "8315 from now
    on", "2026-04-09 is correct", "Pushed to V."; [] when it says anything else."""
    s, _ = split_contrast(REMARK.sub("", strip_lead(clause)))
    vals = find_values(s)
    if not vals:
        return []
    rest = _FILLER.sub(" ", frame(s, vals).replace("<v>", " "))
    return vals if not re.search(r"[A-Za-z]{2,}", rest) else []


_FILLER_WORDS = {"that", "this", "it", "yes", "no", "ok", "okay", "fine", "sorry", "right", "correct", "oops", "nothing", "never", "mind"}


def subjectless(clause: str, context: str, signature: Callable[[Sequence[Value]], str], source: str) -> Entry | None:
    """An entry for a clause whose subject must be found in the ledger (``resolve``): a correction
    or a value-only clause; ``context`` is the clause before it (same message)."""
    body = REMARK.sub("", strip_lead(clause))
    body, olds = split_contrast(body)
    olds = [*lead_olds(clause), *olds]
    at = len(clause.strip()) - len(strip_lead(clause))
    vals = [v for v in find_values(clause.strip()) if v.start >= at and v.text not in olds and not any(v.text in o.split() for o in olds)]  # typed in the whole clause: "Tomas" after "I meant"
    strong = has_lead(clause) or REMARK.search(clause) is not None
    word = re.fullmatch(r"\s*([a-z][\w.-]*[a-z0-9])\s*[.!]?\s*", body)
    if not vals and strong and word and word.group(1) not in _FILLER_WORDS:
        # one word in lower case after a correction lead ("Scratch that: yarn, I was thinking of something else"): a tool's name
        start = clause.strip().find(word.group(1), at)
        vals = [Value("quoted", word.group(1), start, start + len(word.group(1)))]
    if not vals or not (strong or olds or value_only(clause)):
        return None
    if not (strong or olds) and any(v.kind not in TYPED_OR_IDENTITY for v in vals):
        return None  # a capitalised phrase alone ("**Execute Subtasks**") is a heading, not a value said again
    return Entry(
        text=clause.strip(), context=context.strip(), kind="fact", subject="", value="+" + "|".join(sorted(v.norm for v in vals)), values=tuple(v.text for v in vals), source=source,
        signature=signature(vals), replaces=tuple(olds), correction=strong,
    )




# units of one dimension: "90 minutes" and "4 hours" may be the same thing's value
_DIMENSIONS = {
    **dict.fromkeys(("ms", "s", "sec", "min", "h", "day", "days", "week", "weeks", "month", "months"), "time"),
    **dict.fromkeys(("kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "byte", "bytes"), "size"),
}


def _dimension(sig: str) -> str:
    return "number:" + _DIMENSIONS[sig[7:]] if sig.startswith("number:") and sig[7:] in _DIMENSIONS else sig


def compatible(a: str, b: str) -> bool:
    """Two value signatures that may be the same thing's: equal, units of one dimension ("90 minutes" /
    "4 hours"), or a bare number beside a port."""
    return a == b or _dimension(a) == _dimension(b) or {a, b} == {"number:", "port"}


def holders(ledger: Sequence[Entry], olds: Sequence[str]) -> list[int]:
    """Active entries (not safety rules or goals) that state one of ``olds``."""
    norms = {normalize_value(o) for o in olds}
    return [i for i, e in enumerate(ledger) if e.active and e.kind not in ("safety", "goal") and norms & {normalize_value(v) for v in e.values}]


def resolve(ledger: Sequence[Entry], entry: Entry) -> Entry | None:
    """``entry`` (no subject) about the entry it corrects or continues: the one holding a value it
    replaces; else the most specific one whose subject its text (or the clause before it) names; else,
    for a correction, the entry the clause right before it stated. None when nothing fits (it states
    nothing then)."""
    cands = [i for i, e in enumerate(ledger) if e.active and e.kind not in ("safety", "goal") and compatible(e.signature, entry.signature)]
    pick: list[int] = [i for i in holders(ledger, entry.replaces) if i in cands] if entry.replaces else []
    if not pick:
        told = f"{entry.context} {entry.text}"
        said = subject_words(told)
        named = [i for i in cands if set(align(ledger[i].subject.split(), said, caps(ledger[i].text), caps(told))) <= set(said)]
        if named:
            widest = max(len(ledger[i].subject.split()) for i in named)
            top = {ledger[i].subject for i in named if len(ledger[i].subject.split()) == widest}
            pick = [i for i in named if ledger[i].subject in top] if len(top) == 1 else []
    if not pick and entry.correction and entry.context and not entry.replaces:
        # "X is U. Sorry, I meant V.": what the clause right before it stated (a named old value nobody
        # holds, or a clause before it that states nothing — a note that replaced it —: no guess)
        pick = [i for i in cands if ledger[i].text.strip() and ledger[i].text.strip() in entry.context][-1:]
    if not pick:
        return None
    old = ledger[pick[-1]]
    return replace(entry, subject=old.subject, kind=old.kind, signature=old.signature if entry.signature == "number:" else entry.signature, resolved=True)
