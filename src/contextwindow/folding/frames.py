"""The plainer frames a clause is read in, and the readings ``reading._read`` tries before its relations: a relative
change's delta and result (``deltas``), a statement in a plainer frame (``plain_frame``), a tool named for a purpose
(``TOOL_FOR`` / ``FOR_TOOL``), who a thing is with (``ownership``). Pure; split out of ``reading.py`` (one concern each)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import pronouns
from .clauses import Value
from .subjects import subject_words
from .vocabulary import CHANGE_VERB, DELTA_LEAD, RESULT_WORDS

# a relative change that states its result: "Raise X by D, to V", "Add D to X, so V in total", "We got D of extension, so V",
# "Finance trimmed X by D, so V a month now", "X slipped by D, to V": D is how much it moved, V what it is. "by D" is a delta
# only after a verb of change ("Finish X by May 3" is a deadline), and V must be said as the result (a result word, not a
# bare comma: "Deploy by 5pm, then page Dana at 6pm" states two things)
_CHANGE_VERB = rf"(?:{CHANGE_VERB}|went\s+(?:up|down)|go(?:es)?\s+(?:up|down)|come\s+down|came\s+down)"  # vocabulary.py
# Kind: the amount right after a verb of change, without "by": "the quota drops 20 GB, to 180 GB", "the review
# slides 3 days later, landing on June 9" (before, both values were the new one and the subject kept the verb)
_DELTA_BEFORE = re.compile(
    rf"(?:\b{_CHANGE_VERB}\b[^,;.:!?<]{{0,60}}?\bby|\b(?:{DELTA_LEAD})|\b{_CHANGE_VERB}(?:\s+(?:up|down|back|forward|out))?)"
    r"\s+(?:(?:a|an)\s+)?(?:extra\s+|more\s+|further\s+)?$",
    re.IGNORECASE,
)
# "D more", "D of extension", and a range moved at both ends ("Move the window down by 2 at each end: V")
_DELTA_AFTER = re.compile(r"^\s*(?:of\s+(?:extension|extra|slack|headroom|room|more)|extra|more|(?:on|at)\s+(?:both|each)\s+ends?)\b", re.IGNORECASE)
_RESULT = re.compile(rf"\b(?:{RESULT_WORDS}|"
                     r"(?:it|that|this)\s+(?:now\s+)?(?:starts|begins|ends|opens|closes|lands|becomes|comes to|sits at|stands at))\b", re.IGNORECASE)


# what is left of a relative change once its delta and result are known: the verb before the delta, the result words
# before the result ("Bump X up by D, making V" → "Bump X up by D to V"; "X moves D later, so V" → "X D later to V")
_RESULT_BEFORE = re.compile(rf"(?:[,;:]?\s*\b(?:{RESULT_WORDS}|landing on)\s+(?:on\s+|at\s+)?|\s*(?:(?:on|at)\s+(?:both|each)\s+ends?\s*)?:\s*)$", re.IGNORECASE)
_VERB_BEFORE = re.compile(rf"\b{_CHANGE_VERB}(?:\s+(?:up|down|back|forward|out))?\s+$", re.IGNORECASE)


def without_change_words(fr: str, vals: Sequence[Value], found: Sequence[Value]) -> str:
    """``fr`` (the frame of ``vals``) with the words that say how a value moved set aside: the verb of change right before
    a delta in ``found`` (when it is not the clause's first word, an order such as "Raise X by D"), and the result words
    before the value that follows it. What is left names the thing."""
    if not found:
        return fr
    parts = fr.split("<v>")
    if len(parts) != len(vals) + 1:
        return fr
    for i, v in enumerate(vals):
        if v in found:
            verb = _VERB_BEFORE.search(parts[i])
            if verb and parts[i][: verb.start()].strip():
                parts[i] = parts[i][: verb.start()] + " "
        elif i and vals[i - 1] in found:
            parts[i] = _RESULT_BEFORE.sub(" to ", parts[i])
    # an order to move it ("Shift the X down by D: V", "Push the X back by D, so V"): the verb is no word of the thing
    parts[0] = _LEADING_VERB.sub("", parts[0])
    return "<v>".join(parts)


_LEADING_VERB = re.compile(rf"^\s*(?:please\s+)?{_CHANGE_VERB}\s+(?=(?:the|our|my|this|that|its|their)\b)", re.IGNORECASE)


_COLON_RESULT = re.compile(r"^\s*(?:(?:on|at)\s+(?:both|each)\s+ends?\s*)?:\s*$", re.IGNORECASE)  # "by D on both ends: V"


def deltas(body: str, vals: Sequence[Value]) -> list[Value]:
    """The values of ``body`` that say how much something moved, when a later value says what it is now."""
    out = []
    for i, v in enumerate(vals[:-1]):
        if not (_DELTA_BEFORE.search(body[max(0, v.start - 90) : v.start]) or _DELTA_AFTER.match(body[v.end :])):
            continue
        if any(_RESULT.search(body[v.end : w.start]) or _COLON_RESULT.search(body[v.end : w.start]) for w in vals[i + 1 :]):
            out.append(v)
    return out


_DONE = {"merged": "merge", "shipped": "ship", "released": "release", "finished": "finish", "landed": "landing", "delivered": "delivery", "submitted": "submission"}
# the same statement in a plainer frame (found on `field`): a bound is a floor or a limit ("X can't drop below <v>" → "X
# floor is <v>"), an amount of something is that thing ("X gets <v> of memory" → "X memory is <v>"), where a thing reads its
# settings is where its settings are, "has to be <done> by <v>" is a deadline
_PLAIN = (
    (re.compile(r"^(?P<s>.+?)\s+(?:can't|cannot|can not|mustn't|must not|shouldn't|should not|may not|won't|never)\s+(?:drop|fall|go|dip|sink)\s+(?:below|under|beneath|lower than)\s+(?P<v><v>)"), r"\g<s> floor is \g<v>"),
    (re.compile(r"^(?P<s>.+?)\s+(?:stays?|remains?|is|are)\s+(?:at\s+)?(?P<v><v>)\s+or\s+(?:better|more|higher|above)\b.*$"), r"\g<s> floor is \g<v>"),
    (re.compile(r"^(?P<s>.+?)\s+(?:gets?|has|have|runs? with|needs?|uses?|is given|are given|get given)\s+(?P<v><v>)\s+of\s+(?P<n>[a-z]+)\b(?:\s+(?:after|since|following)\s+.*)?$"), r"\g<s> \g<n> is \g<v>"),
    (re.compile(r"^(?P<s>[\w.-]+)\s+(?:reads|loads|takes|gets|pulls|fetches)\s+(?:its|their)\s+(?P<n>settings|config\w*|credentials|secrets|env\w*)\s+from\s+(?P<v><v>)"), r"the \g<s> \g<n> are in \g<v>"),
    (re.compile(r"^(?P<s>.+?)\s+(?:has|have|needs?|must)\s+to\s+be\s+(?P<d>merged|shipped|released|finished|landed|delivered|submitted)\s+by\s+(?P<v><v>)"),
     lambda m: f"the {_DONE[m.group('d').lower()]} deadline for {m.group('s')} is {m.group('v')}"),
)
_PLAIN_MORE = (
    # what a thing is built against is the version it is on: "X has to build against lib <v>" → "X is on lib <v>"
    (re.compile(r"^(?P<s>.+?)\s+(?:has|have|needs?|must)\s+to\s+(?:build|run|compile|link)\s+(?:against|on|with)\s+"), r"\g<s> is on "),
    # what is bounced over a size is a limit: "PRs over <v> get bounced" → "the PR size limit is <v>"
    (re.compile(r"^(?P<s>.+?)\s+(?:over|above|beyond|longer than|bigger than|larger than|past)\s+(?P<v><v>)\s+(?:get|gets|are|is|will be)\s+(?:bounced|rejected|refused|blocked|sent back)\b.*$"), r"the \g<s> size limit is \g<v>"),
    # tries a failed call gets are its retries: "Give a failed X call <v> at most" → "the X retry limit is <v>"
    (re.compile(r"^(?:please\s+)?(?:give|allow)\s+(?:a|each|every|any)\s+failed\s+(?P<s>.+?)\s+(?:call|request|job|run|attempt)s?\s+(?P<v><v>)"), r"the \g<s> retry limit is \g<v>"),
    # what someone does after another thing: "V swapped shifts and carries the pager …" → "V carries the pager …"
    (re.compile(r"^(?P<v><v>)\s+(?:[a-z']+\s+){1,3}and\s+(?=(?:carries|holds|has|takes|covers|owns|runs|keeps)\b)"), r"\g<v> "),
    # how much was gained is no part of what it is about: "We got a week of extension on X, so <v>"
    (re.compile(r"\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+(?:more\s+|extra\s+)?(?:days?|weeks?|months?|hours?|minutes?)\s+(?=of\s+(?:extension|extra|slack|grace|headroom|more)\b)"), ""),
    # an extension (of time) on a thing is about its deadline: "We got <d> of extension on X, so <v>" → "… on the deadline for X"
    # (the word alone names no deadline: "the browser extension version")
    (re.compile(r"\bof\s+(?:extension|grace)\s+(?:on|for|to)\s+(?:the\s+)?"), "on the deadline for the "),
    # when a job is killed is its timeout: "X jobs get killed after <v>", "Give X jobs <v> before killing them"
    (re.compile(r"^(?P<s>.+?)\s+(?:get|gets|are|is|will be)\s+(?:killed|stopped|terminated|cancell?ed|aborted)\s+after\s+(?P<v><v>)"), r"the \g<s> timeout is \g<v>"),
    (re.compile(r"^(?:please\s+)?(?:give|allow)\s+(?P<s>.+?)\s+(?P<v><v>)\s+before\s+(?:killing|stopping|terminating|cancell?ing|aborting)\s+(?:it|them)\b.*$"), r"the \g<s> timeout is \g<v>"),
    # an agreement to change is the change: "We agreed to relax X to <v>"
    (re.compile(r"^(?:(?:we|i|they|everyone)\s+(?:have\s+|'ve\s+)?(?:agreed|decided|chose|opted)\s+)?to\s+(?=[a-z]+\s)"), ""),
)


_PLAIN_ANY_CASE = tuple((re.compile(pat.pattern, re.IGNORECASE), repl) for pat, repl in (*_PLAIN, *_PLAIN_MORE))  # compiled once


def plain_frame(fr: str) -> str:
    """``fr`` (a frame, in either case) in its plainer form."""
    for pat, repl in _PLAIN_ANY_CASE:
        fr = pat.sub(repl, fr, count=1)
    return fr


# a tool named in lower case for a purpose ("I like pnpm for the JS dependencies", "Swap to vcrpy for HTTP mocking, …"):
# the tool is the value, the purpose the subject
TOOL_FOR = re.compile(
    r"^(?:please\s+)?(?:i(?:'d|\s+would)?\s+(?:like|prefer|go with|use|pick|want)|use|let's\s+(?:go with|use|switch to|stick with)|go with|swap to|switch to|stick with|move to)\s+"
    r"(?P<x>[a-z][\w.-]*[a-z0-9])\s+for\s+(?P<s>(?:[^,;<]|<v>)+?)(?:\s+(?:after all|from now on|instead|going forward|please))?(?:[,;].*)?$"
)
FOR_TOOL = re.compile(
    r"^for\s+(?P<s>(?:[^,;<]|<v>)+?),?\s+(?:i(?:'d|\s+would)?\s+(?:go with|use|pick|prefer|like)|(?:please\s+)?use|let's\s+(?:go with|use)|go with)\s+(?P<x>[a-z][\w.-]*[a-z0-9])"
    r"(?:\s+(?:from now on|instead|going forward|please))?(?:[,;].*)?$"
)
NOT_TOOLS = {"it", "that", "this", "them", "one", "something", "anything", "the", "a", "an", "more", "less"}
# a word is read as a tool when it is written like one (code, a digit, "-", "_", "."), or when the clause picks it among
# tools ("I like X for", "go with X", "swap to X", "stick with X", "… after all"); after a bare "use" or a request ("I'd
# like X for") a plain word is as likely a common noun ("Use caution for the deploy", "I'd like help for the docs")
_TOOL_LIKE = re.compile(r"[-_.0-9]")
_CHOOSES = re.compile(r"^(?:please\s+)?(?:i\s+(?:like|prefer|use|pick)|i(?:'d|\s+would)\s+(?:prefer|go with|pick|use)|let's\s+(?:go with|switch to|stick with)|go with|swap to|switch to|stick with|move to)\s"
                      r"|\bfor\s+.+?,?\s+(?:i(?:'d|\s+would)?\s+(?:go with|pick|prefer)|go with)\s|\b(?:after all|instead)\b")


def names_a_tool(tool: re.Match[str], body: str) -> bool:
    x = tool.group("x")
    return bool(_TOOL_LIKE.search(x) or re.search(rf"`{re.escape(x)}`", body, re.IGNORECASE) or _CHOOSES.search(tool.string))


# who a thing is with, in the words people use for it (found on `field`): "V keeps the X running", "the X sits with V",
# "the X is in V's hands", "the X is V's", "V is the one who knows it best / the person to ask about it"
OWNERSHIP = re.compile(
    r"\bkeeps?\s+(?:the|our|my|this)\s+[^<;,]+?\s+(?:running|alive|going|healthy|afloat)\b"
    r"|\b(?:sits|stays|rests|lives|is|are|now sits)\s+(?:now\s+)?with\s+<v>(?![\w'])"
    r"|\bin\s+<v>\s?'s\s+hands\b|\b(?:is|are)\s+(?:now\s+)?<v>\s?'s\b"
    r"|<v>\s+is\s+(?:now\s+)?the\s+(?:one|person|people|contact|go-to)\s+(?:who\s+knows\s+(?:it|them)(?:\s+best)?|to\s+(?:ask|ping|talk to|call|page))\b"
)
_NOT_THINGS = {"one", "person", "people", "contact", "hand", "reshuffle", "reorg", "sprint", "week", "team", "running", "alive", "going", "healthy", "break", "owner"}


def things(fr: str) -> list[list[str]]:
    """The words of each thing a determiner names in ``fr`` (not "the one", "the person", "the reorg")."""
    found = ([w for w in subject_words(m.group("np")) if w not in _NOT_THINGS] for m in pronouns.NP.finditer(fr.replace("<v>", "V")))
    return [t for t in found if t]


def ownership(fr: str, vals: Sequence[Value]) -> tuple[str | None, list[str], list[Value]] | None:
    """("owner", ["owner", *the thing], [the person]) when ``fr`` says who a thing is with in other words than
    "owns" (one name, one thing named by a determiner); None otherwise."""
    names = [v for v in vals if v.kind == "name"]
    if len(names) != 1 or any(v.kind not in ("name", "date") for v in vals) or not OWNERSHIP.search(fr):
        return None
    best = max(things(fr), key=len, default=[])
    return ("owner", ["owner", *best], names) if best else None
