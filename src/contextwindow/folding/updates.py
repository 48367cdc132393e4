"""Updates that name the value they replace in the same breath (fitted on brook, heath and moss). Pure.

An update often says the old value beside the new one, in a frame of its own: "We swapped U for V as
the X", "X went from U to V", "X: U → V", "V for the X instead of U", "We dropped U; the X is V now",
"U handed things over — the X is V now", "I've changed my mind on the X: V", "X: make it V". Each is
restated as a plain "The X is V" (what the reader already reads) and U is returned as the value it
replaces (``Entry.replaces``: the entry holding U is superseded, and U is never shown again in the
update's own text). A frame with no subject or no new value is left as it is: "We swapped notes
after the demo" states nothing.
"""

from __future__ import annotations

import re

from .clauses import find_values

_DET = r"(?:the|our|my|their|this)"
# what an old or new value may be: a few words, no clause break
_VAL = r"(?:[^,;:—–]|(?<=\d)[:,](?=\d)){1,60}?"  # a time or a thousands comma inside it ("14:00", "4,650")
_END = r"\s*(?:,?\s*please)?\s*(?P<end>[.!]?)$"

# "We swapped U for V as the X", "Replaced U with V for the X", "Swapped out U for V on the X"
_SWAP = re.compile(
    rf"^(?:(?:we|i|they|you|someone|the team)\s+(?:'ve\s+|have\s+|just\s+|had\s+)*)?(?:swapped|swap|traded|trade|exchanged|replaced|replace|switched|switch)\s+"
    rf"(?:out\s+)?(?P<u>{_VAL})\s+(?:out\s+)?(?:for|with)\s+(?P<v>{_VAL})\s+(?:as|for|on|in)\s+(?P<x>{_DET}\s+[^,;:]{{2,80}}?){_END}",
    re.IGNORECASE,
)
# "the X went from U to V", "After the review the minimum for the X went from U to V"
_FROM_TO = re.compile(
    rf"^(?P<x>.{{3,120}}?)\s+(?:(?:has|have|was|were|got|just)\s+)*(?:went|go|goes|gone|changed|changes|moved|moves|was\s+\w+ed|got\s+\w+ed|\w+ed)\s+"
    rf"from\s+(?P<u>{_VAL})\s+(?:to|into)\s+(?P<v>{_VAL}){_END}",
    re.IGNORECASE,
)
# "X: U → V", "X → V", "X -> V"
_ARROW = re.compile(rf"^(?P<x>[^:→]{{2,80}}?)\s*(?::\s*(?P<u>{_VAL})\s*)?(?:→|->|=>)\s*(?P<v>[^→]{{1,60}}?){_END}")
# "V for the X instead of U", "For the X, V instead of U, please", "V instead of U for the X"
_INSTEAD = (
    re.compile(rf"^(?P<v>{_VAL})\s+for\s+(?P<x>{_DET}\s+[^,;:]{{2,80}}?)\s*,?\s+(?:instead of|rather than|not)\s+(?P<u>{_VAL}){_END}", re.IGNORECASE),
    re.compile(rf"^for\s+(?P<x>{_DET}\s+[^,;:]{{2,80}}?)\s*,\s*(?P<v>{_VAL})\s+(?:instead of|rather than)\s+(?P<u>{_VAL}){_END}", re.IGNORECASE),
    re.compile(rf"^(?P<v>{_VAL})\s+(?:instead of|rather than)\s+(?P<u>{_VAL})\s+for\s+(?P<x>{_DET}\s+[^,;:]{{2,80}}?){_END}", re.IGNORECASE),
)
# "We dropped U; the X is V now", "U handed things over — the X is V now", "U is out: the X is V"
_DROPPED = re.compile(
    rf"^(?:(?:we|i|they)\s+(?:'ve\s+|have\s+|just\s+)*(?:dropped|ditched|retired|scrapped|abandoned|moved on from|gave up on)\s+(?P<u>{_VAL})|"
    rf"(?P<u2>{_VAL})\s+(?:has\s+|just\s+)*(?:handed\s+(?:things|it|that)\s+over|stepped\s+(?:down|away|aside)|left|moved on|is out|is gone))"
    rf"\s*(?:[;:,]|\s[—–-]+)\s*(?P<r>{_DET}\s.+)$",
    re.IGNORECASE,
)
# "I've changed my mind on the X: V", "X: make it V", "X I gave you earlier: make it V"
_SAY_NOW = (
    re.compile(rf"^(?:i(?:'ve| have)?\s+)?changed\s+my\s+mind\s+(?:on|about)\s+(?P<x>{_DET}\s+[^:;,—–]{{2,80}}?)\s*[:;,—–-]+\s*(?:let's\s+(?:go\s+with|use)\s+|make\s+it\s+)?(?P<v>{_VAL}){_END}", re.IGNORECASE),
    re.compile(rf"^(?P<x>[^:;]{{2,80}}?)(?:\s+(?:i|we)\s+(?:gave|told|sent)\s+you(?:\s+(?:earlier|before|above))?)?\s*:\s*(?:make|change|set|switch)\s+(?:it|that)\s+(?:to\s+)?(?P<v>{_VAL}){_END}", re.IGNORECASE),
)


# "Go back to the original X, V", "Let's return the X to the original V", "Revert the X to V": a return to an earlier value
_BACK = (
    re.compile(rf"^(?:let's\s+|please\s+|we\s+should\s+)?(?:go|switch|revert|return)\s+back\s+to\s+(?:the\s+)?(?:original|old|previous|earlier|first)\s+(?P<x>[^,;:]{{2,80}}?)\s*[,:—–-]+\s*(?P<v>{_VAL}){_END}", re.IGNORECASE),
    re.compile(rf"^(?:let's\s+|please\s+|we\s+should\s+)?(?:return|revert|restore|reset|set)\s+(?P<x>{_DET}\s+[^,;:]{{2,80}}?)\s+(?:back\s+)?to\s+(?:the\s+)?(?:original|old|previous|earlier|first)\s+(?:one\s*,?\s*|value\s*,?\s*)?(?P<v>{_VAL}){_END}", re.IGNORECASE),
)
# "Remember what I told you about the X at the start? Change that to V."
_POINT_BACK = re.compile(
    rf"^(?:(?:remember|recall)\s+)?what\s+(?:i|we)\s+(?:told\s+you|said|wrote|gave\s+you)\s+(?:about|for|on)\s+(?P<x>{_DET}\s+[^?]{{2,80}}?)(?:\s+(?:at\s+the\s+start|earlier|before|at\s+first|last\s+time))?\s*\?\s*"
    rf"(?:change|make|set|switch|move|update)\s+(?:that|it)\s+(?:to\s+)?(?P<v>{_VAL}){_END}",
    re.IGNORECASE,
)
# "Invoice number now INV-5432": a thing and its value with "now" for the verb (one part of "X now V; Y now W")
_NOW = re.compile(rf"^(?P<x>(?:{_DET}\s+)?[\w'’-]+(?:\s+[\w'’-]+){{0,5}}?)\s+(?:is\s+)?now\s+(?P<v>{_VAL}){_END}", re.IGNORECASE)
_VERBISH = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|will|can|should|must|we|i|you|they|it)\b", re.IGNORECASE)


_ARROWS = re.compile(r"→|->|=>")
# a log line ("2026-11-24 10:31:02 INFO …", "[10:31:02] scaler: …", "Logs: ERROR 10:30 -> WARN 10:31"): what a tool printed
_LOG_SHAPED = re.compile(r"^\s*(?:\[|\d{4}-\d\d-\d\d|\d\d?:\d\d(?::\d\d)?\b)|\b(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL)\b")


def _arrow(body: str) -> re.Match[str] | None:
    """``body`` read as "X: U → V" or "X → V": one arrow only (a chain "A -> B -> C" is a sequence, not an update), and
    not a line a tool printed: indented (pasted output) or log-shaped (review rledger, 4)."""
    if len(_ARROWS.findall(body)) != 1 or body[:1].isspace() or _LOG_SHAPED.search(body):
        return None
    return _ARROW.match(body.strip())


def _short(v: str) -> str | None:
    """An old or new value as written, without a determiner; None when it is more than a few words (a clause, not a
    value) or reads as plain words ("by the office", "the whole paragraph"): a value has a digit, a mark inside a
    word, a capital, or is one the reader finds."""
    v = re.sub(rf"^(?:{_DET}|a|an)\s+", "", v.strip(), flags=re.IGNORECASE).strip(" .")
    if not v or len(v.split()) > 4:
        return None
    return v if re.search(r"\d|\w[_./#-]\w|^#|\b[A-Z]", v) or find_values(v) else None


def _the(x: str) -> str:
    x = x.strip()
    return x[:1].upper() + x[1:]


def replaced(body: str) -> tuple[str, list[str]]:
    """(``body`` restated as "The X is V", the old values it names) when it is an update that names them; else (``body``, [])."""
    s = body.strip()
    for pat in (_SWAP, *_INSTEAD):
        m = pat.match(s)
        if m:
            u, v = _short(m.group("u")), _short(m.group("v"))
            if u and v and u.lower() != v.lower():
                return f"{_the(m.group('x'))} is {v}{m.group('end')}", [u]
    m = _FROM_TO.match(s)
    if m:
        u, v = _short(m.group("u")), _short(m.group("v"))
        if u and v and u.lower() != v.lower() and re.search(r"\d", u + v):  # "went from bad to worse" states no value
            return f"{_the(m.group('x'))} is {v}{m.group('end')}", [u]
    m = _arrow(body)
    if m and (v := _short(m.group("v"))) and (u := _short(m.group("u") or "")):
        return f"{_the(m.group('x'))} is {v}{m.group('end')}", [u]
    m = _DROPPED.match(s)
    if m:
        u = _short(m.group("u") or m.group("u2") or "")
        if u and u.lower() not in m.group("r").lower():
            return _the(m.group("r")), [u]
    return body, []


def restated(clause: str) -> str:
    """An update that names only its new value in a frame of its own ("I've changed my mind on the X: V", "X: make it V",
    "X → V") restated as "The X is V"; any other clause as it is."""
    s = clause.strip()
    for m in (*(p.match(s) for p in _SAY_NOW), _arrow(clause), *(p.match(s) for p in (*_BACK, _POINT_BACK))):
        if m and not m.groupdict().get("u") and (v := _short(m.group("v"))):
            return f"{_the(m.group('x'))} is {v}{m.group('end')}"
    m = _NOW.match(s)
    if m and not _VERBISH.search(m.group("x")) and (v := _short(m.group("v"))) and find_values(v):
        return f"{_the(m.group('x'))} is {v}{m.group('end')}"
    return clause
