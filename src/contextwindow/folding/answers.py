"""Answers to the assistant's question: a user message that opens with only a value ("no, 12 now.", "it's Vega.") says
it about what the assistant's question before it named. Pure.

Kind: the subject is in the question, the value in the answer — "Which is the cache port?" → "6380.";
"Is the batch size still 500?" → "no, 800 now." (the old value named by the question is replaced); "Should the review
window stay at 2 days?" → "it changed, 3 days."; "What's our staging host?" → "use elm-st2.lan.". Before, such an answer
was a value with no subject: it made no entry, or was guessed onto the newest entry of its kind. The question gives
only the subject (and the value it asks about); every value of the entry is the user's. The openings in ``_ASKS`` and
the question's head noun phrase in other shapes (``named``: "Which port does the cache listen on?" → "the cache port")
name a subject; a question that names none binds nothing. An answer that says no value ("no idea.",
"no, maybe later.") makes no entry and retires nothing.
"""

from __future__ import annotations

import re

from .clauses import find_values, frame, sentences

# a question that names one thing: what it is, which it is, whether it still has a value (the value asked about: ``u``)
_ASKS = (
    re.compile(r"^(?:what(?:'s| is| are)|do you know|which(?:'s| is))\s+(?P<x>(?:the|our|my|your)\s+[^?]{2,80}?)\s*\?$", re.IGNORECASE),
    re.compile(r"^(?:what|which)\s+(?:[\w-]+\s+){0,3}(?:should|do|would|shall|will)\s+(?:i|we)\s+use\s+for\s+(?P<x>[^?]{2,80}?)\s*\?$", re.IGNORECASE),
    re.compile(r"^(?:is|are)\s+(?P<x>(?:the|our|my|your)\s+.+?)\s+still\s+(?:at\s+|on\s+)?(?P<u>[^?]+?)\s*\?$", re.IGNORECASE),
    re.compile(r"^(?:should|does|do|will)\s+(?P<x>(?:the|our|my|your)\s+.+?)\s+(?:stay|remain|keep)\s+(?:at|on|as)?\s*(?P<u>[^?]+?)\s*\?$", re.IGNORECASE),
    re.compile(r"^(?:am i right|is it right|is it true|correct me if i'm wrong)(?:\s+that|,)?\s+(?P<x>(?:the|our|my|your)\s+.+?)\s+(?:is|are)\s+(?P<u>[^?]+?)\s*\?$", re.IGNORECASE),
)
# Kind: a question that names its thing in other shapes (review finding 3: only the openings above were read, so "Which port
# does the cache listen on?" → "6380." made no entry). The subject is the question's own head noun phrase: "which/what N
# does the X <verb> …?" → "the X N" (with a pronoun, "which branch should we deploy from?" → "the deploy branch"); "how many N
# does the X <verb>?" → "the X N count"; "what/how long should the X be?", "when/where is the X?", "where does the X
# live?" → "the X"; "who owns the X?" → "the X owner". A question that names no thing ("What do you think?", "Which
# one?") has no subject, and an answer to it binds to nothing.
_DET = r"(?:the|our|my|your|this|that)"
# present and modal auxiliaries only: a question about the past ("Which port did the cache listen on?") names what
# a thing was, not a setting, so its answer retires nothing (review of the readings, finding 1)
_AUX = r"(?:do|does|should|shall|will|would|can|could|is|are|must)"
_PRON = r"(?:i|we|you|they)"
# the noun phrase a question names: a determiner and one to three words, none of them a preposition or a form of
# "be"/"have"/"do" ("the cache", "our staging host"); a longer run is a clause ("the cache listen on before the port")
_GRAM = r"(?:on|in|at|for|from|to|with|by|through|under|before|after|of|about|into|over|since|until|during|than|is|are|was|were|be|been|has|have|had|do|does|did)"
_NP = rf"{_DET}(?:\s+(?!{_GRAM}\b)[\w-]+){{1,3}}?"
_WHICH = re.compile(rf"^(?:which|what)\s+(?P<n>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}?)\s+{_AUX}\s+(?P<np>{_NP}|{_PRON})\s+"
                    r"(?P<v>[a-z]+)(?:\s+(?:on|in|at|for|from|to|with|by|through|under))?\s*\?$", re.IGNORECASE)
_HOW_MANY = re.compile(rf"^how\s+many\s+(?P<n>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+{_AUX}\s+(?P<np>{_NP}|{_PRON})\s+(?P<v>[a-z]+)\s*\?$", re.IGNORECASE)
_BE = re.compile(rf"^(?:what|how\s+(?:long|big|large|much|often)|when|where)\s+(?:should|will|would|must|shall|can)\s+(?P<x>{_DET}\s+[^?]{{2,80}}?)\s+"
                 r"(?:be|go|live|run|end|start|happen)\s*\?$", re.IGNORECASE)
_WHEN = re.compile(rf"^(?:when|where)(?:'s|\s+is|\s+are|\s+does|\s+do)\s+(?P<x>{_DET}\s+[^?]{{2,80}}?)(?:\s+(?:live|sit|run|go|happen|start|end|land))?\s*\?$", re.IGNORECASE)
_WHO = re.compile(rf"^who\s+(?:owns|maintains|runs|leads|manages|is\s+responsible\s+for)\s+(?P<x>{_DET}\s+[^?]{{2,80}}?)\s*\?$", re.IGNORECASE)


def _bare(np: str) -> str:
    return re.sub(rf"^{_DET}\s+", "", np.strip(), flags=re.IGNORECASE)


def named(q: str) -> str | None:
    """The thing a question of another shape than ``_ASKS`` names, as a subject phrase ("the cache port"), or None."""
    for pat in (_WHICH, _HOW_MANY):
        m = pat.match(q)
        if m:
            n, np = m.group("n"), m.group("np")
            head = (m.group("v") if m.group("v").lower() != "use" else "") if re.fullmatch(_PRON, np, re.IGNORECASE) else _bare(np)
            return " ".join(w for w in ("the", head, n, "count" if pat is _HOW_MANY else "") if w)
    for pat in (_BE, _WHEN):
        m = pat.match(q)
        if m:
            return m.group("x")
    m = _WHO.match(q)
    return f"the {_bare(m.group('x'))} owner" if m else None


# what opens an answer: a no (only with a separator after it: "no idea" is no "no"), a change said, then "it's" / "use" / "go with"
_OPENS = re.compile(r"^(?:(?:(?:no|nope|nah|not any ?more|not anymore|yes|yeah|sure)\s*[,:;.!—–-]+|nope|nah|it changed|that changed|changed)\s*[,:;.!—–-]*\s*)?"
                    r"(?:(?:it's|it is|that's|use|go with|we use|we're on|make it)\s+)?", re.IGNORECASE)
# what closes it: "now", "instead", "thanks", "please" (stripped one word at a time from the end: no backtracking)
_CLOSE = re.compile(r"(?:^|[\s,])(?:now|these days|instead|thanks|thank you|please|for now)$", re.IGNORECASE)
MAX_ANSWER_CHARS = 120  # an answer of only a value is short; a longer clause is a statement of its own
_NEGATIVE = re.compile(r"^(?:(?:no|not any ?more|not anymore)\s*[,:;.!—–-]|nope\b|nah\b|it changed\b|that changed\b|changed\b)", re.IGNORECASE)


def _closed(body: str) -> str:
    """``body`` without its closing words ("800 now, thanks." → "800")."""
    body = body.rstrip(" \t,.!")
    while (m := _CLOSE.search(body)) is not None:
        body = body[: m.start()].rstrip(" \t,.!")
    return body


def question(asked: str) -> str:
    """The last sentence of the assistant's message when it is a question, else "".
    (``sentences`` reads each line on its own, so the last sentence is the last line's that has one:
    a long message is not split whole for it.)"""
    for line in reversed(asked.strip().splitlines()):
        said = sentences(line)
        if said:
            last = said[-1].strip()
            return last if last.endswith("?") else ""
    return ""


def answered(asked: str, clause: str) -> tuple[str, tuple[str, ...]] | None:
    """(the statement ``clause`` makes about what the question ``asked`` names, the old values the question named when
    the answer says no) — "The batch size is 800." and ("500",) for "Is the batch size still 500?" / "no, 800 now." —
    or None when ``clause`` is not only a value answering a question that names one thing."""
    if len(clause) > MAX_ANSWER_CHARS:
        return None
    q = re.sub(r"^[^,:?]{1,30}[,:]\s+", "", question(asked))  # a lead before it: "Quick question, …", "Before I go on: …"
    if not q:
        return None
    m = next((found for pat in _ASKS if (found := pat.match(q))), None)
    thing = m.group("x").strip() if m else named(q)
    if thing is None:
        return None
    pat = m.re if m else None
    body = _closed(_OPENS.sub("", clause.strip(), count=1))
    if not body or len(body.split()) > 6 or body.endswith("?"):
        return None
    vals = find_values(body)
    if not vals and _WHO.match(q):
        # "Who owns the X?" → "Priya.": a name said alone, typed as the subject of a sentence would be ("Me." is none)
        vals = [v for v in find_values(f"{body} is on it") if v.kind == "name" and v.start == 0 and v.end == len(body)]
    if not vals and pat is not _ASKS[1]:
        return None  # plain words answer only "what should I use for X?" ("go with short bullet lists"); "hello." names nothing
    # (a name's first word is typed as one only before a verb: here every capitalised word is part of the value)
    plain = not re.search(r"[A-Za-z]{2,}", re.sub(r"\b[A-Z][\w-]*", " ", frame(body, vals).replace("<v>", " "))) if vals else bool(re.fullmatch(r"[a-z][\w' -]{1,40}", body))
    if not plain:
        return None  # more than a value: a statement of its own
    x = re.sub(r"^your\b", "my", thing, flags=re.IGNORECASE)
    olds: tuple[str, ...] = ()
    if m and "u" in m.groupdict() and m.group("u") and _NEGATIVE.match(clause.strip()):
        was = find_values(m.group("u"))
        typed = [v.text for v in was if v.kind != "name"]
        # a "no" answers with a new value of the kind asked about: "no, maybe later" / "no, it's fine as is" say no value
        if not vals or (was and not {v.kind for v in was} & {v.kind for v in vals}):
            return None
        olds = tuple(typed) or (m.group("u").strip(),)  # a name of several words as one value
    return f"{x[:1].upper()}{x[1:]} is {body}.", olds
