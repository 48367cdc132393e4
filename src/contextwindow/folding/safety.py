"""How a clause fences a thing off (pure): the words and shapes of a safety rule that reading.py weighs when it
types a clause — a fence without a negation word ("Hands off X", "X is off limits", "Read-only: X"), a negated act on a
path, host or id, an exclusive channel ("… and nowhere else", "Only X rotates Y"), the passive fence, and "X comes to
me first"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .clauses import Value
from .relations import _IDENTITY, _SAFETY_POS, _SAFETY_WORDS
from .vocabulary import FENCE_WORDS, NO_CIRCUMSTANCES

# a rule that fences something off without a negation word: "Hands off X unless I …", "X is off limits"
_GUARDED = re.compile(FENCE_WORDS + r"|\bunless (?:i|we|you get my|someone)\b", re.IGNORECASE)
# "read-only" is a fence only as an order or a label ("Keep /srv/archive read-only", "X must stay read-only", "Read-only:
# the billing replica V"); "The docs mount is read-only now, so builds write to V" describes a thing (review of the quarry
# round: it had made V a safety rule)
_READ_ONLY = re.compile(r"^read[- ]?only\s*:|^(?:please\s+)?(?:keep|treat|leave|mount|make|consider|mark)\b[^.;]*?\bread[- ]?only\b"
                        r"|\b(?:must|should|has to|have to|needs? to|is to|are to)\s+(?:stay|be|remain)\s+read[- ]?only\b", re.IGNORECASE)
# Kind: a fence around one named thing — it is what the rule protects, whatever the thing is: "Tickets tagged legal-hold
# are off limits for the triage script", "Don't touch /var/lib/ledger under any circumstances", "Read-only: the billing
# replica db-bill-2.internal". A fencing word (off limits, hands off, read-only), or a negation with "under any
# circumstances" / a verb of writing whose object is a path, host, URL or id ("Never edit /etc/hosts on the gateway").
# A bound is not a fence ("never touch more than 50 files in one pass" stays a hard constraint).
# "do not touch X, it's the shipped schema" typed without a full stop: a prohibition, not a question that opens with "do"
_PROHIBITION = re.compile(r"(?:do|does|did)\s+not\b", re.IGNORECASE)
_FENCE = re.compile(FENCE_WORDS + r"|\bunder any circumstances\b|\b" + NO_CIRCUMSTANCES + r"\b", re.IGNORECASE)
_WRITE_TO = re.compile(r"\b(?:touch|edit|modify|overwrite|write|commit|push|change|alter|copy|upload|print|log|cat)\s+(?:(?:to|into|from)\s+)?(?:anything\s+(?:under|in|on|from)\s+|the\s+)?<v>", re.IGNORECASE)
# the same, whatever the verb, when the negation governs it directly: "don't rename files under V", "never paste the
# contents of V into the chat", "don't share anything from V" (review of the quarry round: _WRITE_TO was one family's verbs)
_NEG_ANY = r"(?:never|don't|dont|do not|doesn't|does not|mustn't|must not|shouldn't|should not|can't|cannot|won't|no one should)"
# the object of the act, right after it ("don't rename files under V")
_OBJECT = (r"(?:(?:to|into|from|on|in)\s+)?(?:(?:any|the|all)\s+)?"
           r"(?:(?:anything|everything|files?|contents?|data|folders?|directories|entries|rows|records)\s+(?:of\s+|under\s+|in\s+|on\s+|from\s+|at\s+)(?:the\s+)?)?")
# Kind (brook): the act may name what it does before the thing ("never launch jobs on the reserved GPU node V", "no one may
# train or tune on the held-out split in V"): a short object phrase of its own between the verb and the thing (no bound word:
# "never touch more than V files" stays a hard constraint) — only when the negation is an order: "never"/"don't" opening the
# clause (or after a modal: "we must never", "never to"), "no one / nobody may|should|must|gets to". A statement of what
# cannot be done or does not work is no rule (review rledger: "We can't reproduce the crash on the staging box V", "It
# doesn't work on the old build server V", "Nobody can find the runbook for V" had become safety rules).
_IMPERATIVE_NEG = (r"(?:(?:^|[:;,(\u2014]\s*|\b(?:and|but|so|please|also|just|then|and\s+please)\s+)(?:never|don't|dont|do\s+not)"
                   r"|\b(?:must|should|shall|will|to|please)\s+never|\bnever\s+(?=to\b)"
                   r"|\b(?:no one|nobody|no-one)\s+(?:should|may|must|is allowed to|gets to))")
_NEG_VERB_ON = re.compile(
    rf"\b{_NEG_ANY}\s+(?:ever\s+|again\s+|please\s+)?[a-z]+\s+{_OBJECT}<v>"
    rf"|{_IMPERATIVE_NEG}\s+(?:ever\s+|again\s+|please\s+)?[a-z]+(?:\s+or\s+[a-z]+)?\s+{_OBJECT}"
    r"(?:(?!(?:more|less|fewer|over|under|above|below|than|past|beyond|up|at)\b)[a-z][\w'-]*\s+){0,6}?<v>",
    re.IGNORECASE,
)
_BOUND_WORDS = re.compile(r"\b(?:more|less|fewer|over|under|above|below|at most|at least|up to)\s+(?:than\s+)?<v>", re.IGNORECASE)
# a verb of a bound, not of destruction: "Coverage can't drop below V", "never cut under V"
_BOUND_VERB = re.compile(r"\b(?:drop\w*|cut\w*|remov\w*)\s+(?=(?:below|under|beneath|past|beyond|lower than|less than)\b)", re.IGNORECASE)


# Kind: a policy that lets one channel alone act on a thing, without always/never — "Payroll exports go out through
# the finance share and nowhere else", "Only Rasmus rotates the VPN certificates", "Schema changes are applied by the
# migration runner alone", "Backups are restored from vault-7 and from no other host". It fences everything else
# off: a safety rule (before, a hard constraint or nothing, given up before the rules it stands beside). A bound is
# not one ("only 3 retries"), nor an order about style ("use only tabs").
_EXCLUSIVE = re.compile(
    r"\b(?:and|but)\s+(?:(?:from|through|via|by|in|on|to)\s+)?(?:no other|nowhere else|nowhere outside|nothing else|no one else|nobody else)\b"
    r"|\bnowhere (?:else|outside)\b|\b(?:by|through|via)\s+[^,;.<]{1,60}?\balone\b|\bonly\s+(?:through|via|by|from|inside|within)\b"
    r"|^only\s+(?:<v>\s+)+[a-z]+s\b|\bis\s+for\s+(?:the\s+)?[a-z][\w\s-]{1,40}?\s+only\b",
    re.IGNORECASE,
)
# Kind: a thing under a path, host or id that is not to be acted on, said in the passive — "Anything in /srv/legal is
# never shared outside the team", "Logs on ops-vault2.lan are not copied off the box" (the active form is _NEG_VERB_ON)
_PASSIVE_FENCE = re.compile(r"<v>\s+(?:is|are|gets?|will be)\s+(?:not|never)\s+(?:be\s+)?[a-z]+(?:ed|en|wn|ad|pt|ut|de|nt)\b", re.IGNORECASE)
# review of the tarn round: "only"/"alone"/"nowhere else" and the passive fence also describe ("Only Firefox shows the bug",
# "This bug happens only through the proxy", "I reached the office by train alone", "Logs on V are not rotated", "The
# old config at V is not used"). They fence a thing off only when the clause says a safety word or an act on the thing
# (handling it, moving it out, changing it); "is for X only" only with a safety word ("The signing key is for the
# release job only", not "The coupon is for the weekend only").
_ACT = re.compile(
    r"\b(?:rotat\w*|restor\w*|deploy\w*|appl(?:y|ies|ied)|push\w*|merg\w*|ship\w*|export\w*|(?:go|goes|went)\s+out|sen[dt]s?|shar\w*|"
    r"cop(?:y|ies|ied)|mov\w*|approv\w*|sign(?:s|ed)?|access\w*|writ\w*|wrote|delet\w*|remov\w*|releas\w*|publish\w*|handl\w*|"
    r"chang\w*|edit\w*|touch\w*|modif\w*|grant\w*|issu\w*|upload\w*|download\w*|commit\w*|migrat\w*|restart\w*|reboot\w*|"
    r"provision\w*|transfer\w*|pa(?:y|ys|id)|refund\w*|overwrit\w*|email\w*|post(?:s|ed)?|print\w*|past(?:e|es|ed)|sync\w*|"
    r"leak\w*|expos\w*|open(?:s|ed)?|read|run|runs|ran|execut\w*|install\w*|drop\w*|truncat\w*|wip\w*)\b",
    re.IGNORECASE,
)
_FOR_ONLY = re.compile(r"\bis\s+for\s+(?:the\s+)?[a-z][\w\s-]{1,40}?\s+only\b", re.IGNORECASE)
# "Payouts over V come to me first" asks first; "The intern's PRs come to me first" routes work
_ROUTED_FIRST = re.compile(r"\b(?:go|goes|come|comes|pass|passes|run|runs|get sent|are sent|is sent)\s+(?:to|through|past|by)\s+(?:me|us)\s+first\b", re.IGNORECASE)


def _fences(masked: str, clause: str, found: Sequence[Value]) -> bool:
    """Whether an "only"/"alone"/passive-fence reading of ``clause`` states a policy rather than describes."""
    words = _SAFETY_WORDS.search(clause) is not None
    if _EXCLUSIVE.search(masked) and (words or (_ACT.search(masked) and not _FOR_ONLY.search(masked))):
        return True
    fence = _PASSIVE_FENCE.search(masked)
    # a passive of upkeep ("are not rotated", "is not used") says how a thing is kept, not that it is fenced off
    acted = fence is not None and _ACT.search(fence.group(0)) is not None and not re.search(r"\b(?:rotat|us|run|read|open)\w*\s*$", fence.group(0))
    return fence is not None and any(v.kind in _IDENTITY for v in found) and (words or acted)


def _asks_first(masked: str, clause: str, found: Sequence[Value]) -> bool:
    """_SAFETY_POS, with "X comes to me first" counted only for a safety word or an amount ("Payouts over V")."""
    if _SAFETY_POS.search(_ROUTED_FIRST.sub(" ", masked)):
        return True
    return _ROUTED_FIRST.search(masked) is not None and (_SAFETY_WORDS.search(clause) is not None or any(v.kind == "money" for v in found))
