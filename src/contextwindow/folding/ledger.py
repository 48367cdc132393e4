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

Pure functions over plain values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from . import pronouns
from .clauses import Value, find_values, frame, sentences, split_environment

KINDS = ("safety", "constraint", "goal", "preference", "fact")
#: the order entries are given up in when even the condensed ledger does not fit (first goes first)
DROP_ORDER = ("fact", "preference", "goal", "constraint", "safety")
MAX_CLAUSE_CHARS = 400


@dataclass(frozen=True, slots=True)
class Entry:
    text: str  # the clause as the user wrote it
    kind: str
    subject: str  # normalised words, space-separated
    value: str  # normalised values + polarity: what a later statement is compared on
    values: tuple[str, ...] = ()  # the values as written (what a superseded entry must never show again)
    source: str = ""  # where it was stated (message key)
    active: bool = True
    updated_to: str = ""  # for a superseded entry: the newer value as written
    signature: str = ""  # the kinds (and units) of its values: what a loosely worded update must match

    @property
    def key(self) -> str:
        return self.subject


# --- words --------------------------------------------------------------------------------------
_STOP = {
    "the", "a", "an", "this", "that", "these", "those", "our", "my", "your", "their", "its", "his", "her", "we", "i", "you", "they",
    "it", "he", "she", "us", "me", "them", "of", "for", "to", "in", "on", "at", "by", "with", "from", "into", "onto", "as", "and",
    "or", "is", "are", "was", "were", "be", "been", "being", "will", "would", "should", "shall", "can", "could", "may", "might",
    "must", "do", "does", "did", "done", "have", "has", "had", "not", "no", "never", "always", "please", "now", "instead",
    "actually", "anymore", "longer", "any", "more", "only", "just", "also", "still", "again", "ever", "all", "every", "each",
    "so", "then", "than", "under", "below", "above", "over", "within", "least", "most", "up", "down", "out", "about", "there",
    "here", "going", "forward", "make", "sure", "ensure", "keep", "let", "lets", "let's", "don't", "dont", "doesn't", "isn't",
    "aren't", "won't", "can't", "shouldn't", "mustn't", "i'd", "i'm", "we're", "we've", "you're", "it's", "that's", "rather",
    "prefer", "like", "want", "'d", "set", "until", "till", "per", "v", "ok", "okay", "oh", "well", "yes", "yeah",
    "hey", "thanks", "remember", "note", "heads", "fyi", "btw", "update", "correction", "change", "plan", "quick", "one", "thing",
    "very", "really", "much", "many", "some", "other", "another", "new", "old", "current", "currently", "moved", "slipped",
    "shifted", "pushed", "changed", "switched", "got", "gets", "get", "becomes", "become", "stays", "remains",
    "long", "short", "big", "large", "small", "high", "low", "exceed", "go", "side", "today", "allowed", "allow", "need", "needs",
    "fine", "permitted", "alright", "welcome", "able", "later", "earlier", "older", "newer", "latest", "previous",
    "updated", "adjusted", "revised", "raised", "lowered", "bumped", "increased", "decreased", "reduced", "extended", "postponed",
    "delayed", "rescheduled", "upped", "if", "possible", "after",
    "favourite", "favorite", "favour", "favor", "aiming", "targeting", "ready", "before", "nowadays", "glad", "happy", "grateful",
    "appreciate", "love", "pleased", "content",
    # verbs of change and bounds ("slid out to", "the cap rose to", "any pull request past V"): how it changed, not what
    "slid", "slide", "slides", "drifted", "lifted", "rose", "risen", "eased", "grew", "grown", "fell", "fallen", "expanded",
    "relaxed", "loosened", "tightened", "past", "beyond",
    "go-to",  # "our go-to person for X" is X's person
}
_SYNONYMS = {
    "bill": "budget", "spend": "budget", "spending": "budget", "cost": "budget", "costs": "budget", "budget": "budget",
    "due": "deadline", "deadline": "deadline", "called": "name", "named": "name", "title": "name", "oncall": "on-call",
    "maintainer": "owner", "ownership": "owner", "lead": "owner", "responsible": "owner", "owns": "owner", "owned": "owner",
    "person": "owner", "codename": "name", "codenamed": "name", "ceiling": "limit", "cap": "limit", "maximum": "limit", "max": "limit",
}


def _singular(w: str) -> str:
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith(("oes", "shes", "ches", "xes")) and w not in ("shoes",):
        return w[:-2]  # "goes" → "go", "pushes" → "push"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def subject_words(text: str) -> list[str]:
    """Content words of a subject phrase, normalised (case, plural, a few synonyms), in order."""
    acronyms = {w.lower() for w in re.findall(r"\b[A-Z]{2,5}\b", text)}  # "US" is a region here, not "us"
    t = text.lower().replace("on call", "on-call").replace("on-call", " oncall ")
    t = re.sub(r"\b[a-z]+\s+than\b", " ", t)  # "bigger than", "more than": how, not what
    t = re.sub(r"\bfree to\b", " ", t)  # "you're free to …" (but "the free tier" names a tier)
    words = [w.strip("'-") for w in re.findall(r"[a-z0-9][a-z0-9'_.-]*", t)]
    out = []
    for w in words:
        possessor = w.endswith("'s") and w[:-2] not in _NOT_POSSESSORS  # "Large's quota": whose, a content word
        w = re.sub(r"'s?$", "", w.rstrip("."))
        if not w or (w in _STOP and w not in acronyms and not possessor) or w == "<v>" or (len(w) == 1 and w.isalpha()):  # "s" of a possessive split off a value
            continue
        w = _SYNONYMS.get(w, _singular(w))
        if w not in out:
            out.append(w)
    if "budget" in out:
        # "the monthly cloud budget" / "the cloud budget … per month": the period is how the amount
        # is counted, not which budget; elsewhere ("the daily launch" / "the hourly launch") it names it
        out = [w for w in out if w not in _PERIODS] or out
    return out


_NOT_POSSESSORS = {"it", "that", "let", "there", "here", "he", "she", "what", "who", "where", "how", "this", "one", "everything", "nothing"}
_PERIODS = {"monthly", "weekly", "daily", "yearly", "annual", "hourly", "annually"}


def same_subject(a: str, b: str) -> bool:
    """``b`` (the newer subject) names ``a`` (the older): the same words, or ``b``'s words all
    inside ``a``'s — two words or more, or one word that is ``a``'s head ("the release" names
    "the frontend release"). A newer, MORE specific subject ("frontend release" after
    "release") is a new subject, and a word on each side that the other lacks means two
    different subjects (no false merge)."""
    wa, wb = a.split(), b.split()
    sa, sb = set(wa), set(wb)
    if not sa or not sb:
        return False
    if sa == sb:
        return True
    if not sb <= sa:
        return False
    return len(sb) >= 2 or wb[-1] == wa[-1]


# --- reading a clause ---------------------------------------------------------------------------
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|but|oh|ah|well|hey|actually|update|correction|change of plans?|heads[- ]up|fyi|note|btw|"
    r"by the way|one more thing|quick update|sorry|just so you know|for the record|remember(?: that)?|please note(?: that)?|"
    r"keep in mind(?: that)?|new info|for context|context|important|reminder|scratch that|never mind|wait|on second thought|"
    r"i (?:was|'ve been|have been) told(?: that)?|i heard(?: that)?|i (?:just )?learned(?: that)?|apparently|it turns out(?: that)?|"
    r"turns out(?: that)?|good news|bad news)\b[\s,:;!.-]*)+",
    re.IGNORECASE,
)
_NEG = re.compile(r"\b(never|not|no longer|avoid|stop|without|nobody|no one|nothing|none|under no circumstances|don't|dont|doesn't|mustn't|shouldn't|can't|won't|isn't|aren't)\b|n't\b", re.IGNORECASE)
_SAFETY_WORDS = re.compile(
    r"\b(delet\w*|remov\w*|drop\w*|wip\w*|truncat\w*|destroy\w*|rm\b|rm -rf|force[- ]?push\w*|--force|push\w* to (?:main|master|prod\w*)|"
    r"prod\b|production|secret\w*|credential\w*|password\w*|api keys?|tokens?|private keys?|\.env\b|customer data|pii|personal data|"
    r"deploy\w*|migrat\w*|database|reset --hard|rewrite history|billing|payment\w*|money|charge\w*|email\w* (?:customers|users)|"
    r"disable\w* (?:tests|ci|auth)|sudo|chmod|permissions?)",
    re.IGNORECASE,
)
_SAFETY_POS = re.compile(
    r"\b(always|must)\s+(ask|confirm|check with|get approval|get sign-?off)\b|\bwithout (asking|approval|confirmation|sign-?off)\b|\bsafety\b|\bdestructive\b"
    # ask first: "Check with me before you modify …", "Get my OK before …", "Ask me before any write to …"
    r"|^(?:please\s+)?(?:always\s+)?(?:ask|check with|confirm with|clear it with|run it by|talk to|ping)\s+(?:me|us|the team|someone)\b(?:\s+first)?\s+before\b"
    r"|^(?:please\s+)?(?:always\s+)?get\s+(?:my|our|an?)\s+(?:ok|okay|approval|sign-?off|go-?ahead|green light)\s+(?:first\s+)?before\b",
    re.IGNORECASE,
)
_PREF = re.compile(
    r"\b(i(?:'d| would)(?:\s+(?:much|really|still|now))? rather|i(?:'d| would)?(?:\s+(?:now|still|really|also|actually|much|strongly|generally|usually))*\s+"
    r"(?:prefer|like|love|want|favou?r|appreciate|be (?:glad|happy|grateful|pleased|content|fine|ok|okay) (?:to|if|for|with))|prefer(?:ably)?|my preference|rather than|i'm partial to|ideally)\b",
    re.IGNORECASE,
)
_RULE = re.compile(
    r"\b(never|always|must|mustn't|only|at most|at least|no more than|not more than|no less than|no later than|don't|do not|"
    r"from now on|going forward|from here on|in future|by default|every|each|whenever|any time|cap(?:ped)?|limit(?:ed)?|"
    r"deadline|due (?:by|on)|required?|mandatory|make sure|ensure|should(?:n't)?|under no circumstances|forbidden|not allowed|"
    r"no longer|budget|maximum|minimum|max|min|quota|up to|as (?:long|many|much) as|may(?: not| now)?|can(?:not| now)?|exceed|"
    r"allowed|has to|have to|needs? to|due|limit)\b",
    re.IGNORECASE,
)
_STYLE_VERBS = (  # verbs whose bare imperative states how to work, not a one-off task
    "use|keep|write|answer|reply|respond|format|stick|avoid|stop|follow|default|address|sign|prefix|suffix|indent|wrap|limit|"
    "cap|pin|quote|cite|speak|talk|round|express|measure|prefer|name|always|never"
)
_IMPERATIVE = re.compile(rf"^(?:please\s+)?(?:{_STYLE_VERBS})\b", re.IGNORECASE)
_GOAL_HEAD = {"goal", "objective", "aim", "mission", "task", "priority", "focus", "target"}
_CONSTRAINT_HEAD = {"budget", "deadline", "cap", "limit", "quota", "maximum", "minimum", "max", "min", "freeze", "sla", "timeout"}
_WH = re.compile(r"^(what|who|whom|whose|why|how|where|when|which|can|could|would|will|should|is|are|do|does|did|have|has)\b", re.IGNORECASE)
_CHATTER = re.compile(r"^(thanks?|thank you|great|nice|cool|sounds good|looks good|lgtm|perfect|awesome|ok(?:ay)?|sure|got it|hi|hello|hey|good (?:morning|night|evening))\b", re.IGNORECASE)

_IDENTITY = {"path", "url", "email", "id", "host"}
_V = r"<v>"
# an imperative that points a subject at a value: "Repoint the replica host to <v>"
_POINT_AT = re.compile(rf"^(?:please\s+)?(?!(?:talk|ask|send|email|tell|reply|write|give|show|explain|add|fix)\b)[a-z]+\s+(?P<s>(?:the|our|my|this)\s+[^<]+?)\s+(?:to|at)\s+(?P<v>{_V}.*)$")
_RELATIONS: list[tuple[str, re.Pattern[str]]] = [
    ("rename", re.compile(rf"^(?:(?:we|i|they|you)\s*(?:'ve|have|had|are|'re|will)?\s+)?(?:now\s+)?(?:just\s+)?(?:renamed|renaming|rename)\s+(?P<s>.+?)\s+(?:to|as)\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:(?:we|i|they|you|let's|everyone|everybody|people|folks|the team)\s*(?:'re|are|will|'ll)?\s+)?(?:now\s+)?(?:be\s+)?(?:calling|calls|call|naming|name)\s+(?P<s>.+?)\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|was|will be|has been|gets|is going to be|are going to be)\s+(?:now\s+)?(?:called|named|codenamed|renamed(?: to)?|known as|rechristened|dubbed|redubbed|retitled)\s+(?P<v>{_V}.*)$")),
    ("owner", re.compile(rf"^(?P<v>{_V})\s+(?:now\s+|will\s+|has\s+)*(?:owns|own|is the owner of|is responsible for|runs|leads|maintains|handles|takes over|took over|taken over|is in charge of|"
               rf"takes care of|took care of|is taking care of|takes on|took on|has taken on|picks up|picked up|has picked up|looks after|looked after|oversees|oversaw|"
               rf"manages|managed|is handling|is managing)\s+(?P<s>.+)$")),
    ("owner", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|will be)\s+(?:now\s+)?(?:owned|run|led|maintained|handled)\s+by\s+(?P<v>{_V}.*)$")),
    ("owner", re.compile(rf"^(?P<s>.+?)\s+(?:now\s+|will\s+)?(?:belongs?|goes|went|passe[sd]|has passed|has gone)\s+(?:now\s+)?to\s+(?P<v>{_V})$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:now\s+)?(?:goes|will go|went)\s+by\s+(?:the\s+name\s+(?:of\s+)?)?(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:(?:we|i|they|you|let's)\s*(?:'ll|will|'re|are|shall)?\s+)?(?:now\s+)?(?:refer(?:ring)? to|think of)\s+(?P<s>.+?)\s+as\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|was|has been|will be)\s+(?:now\s+)?(?:rebranded|relabell?ed|re-?titled)\s+(?:as|to)\s+(?P<v>{_V}.*)$")),
    ("change", re.compile(
        rf"^(?:we|they|i|you|someone|management|the team)\s+(?:have\s+|'ve\s+|just\s+|had\s+to\s+)*(?:moved|pushed|shifted|changed|switched|bumped|updated|adjusted|revised|"
        rf"postponed|delayed|rescheduled|set|raised|lowered|extended|brought|pulled|cut|migrated|upgraded|downgraded|relocated|transferred)\s+(?P<s>.+?)\s+(?:back\s+|out\s+|forward\s+|up\s+|in\s+|over\s+)?"
        rf"(?:to|onto|into|until|till|at|on)\s+(?P<v>.*{_V}.*)$"
    )),
    ("change", re.compile(
        rf"^(?P<s>.+?)\s+(?:(?:has|have|got|was|were|is|are|been|had|will|'s)\s+)*(?:now\s+|just\s+|officially\s+)?"
        rf"(?:moved|slipped|shifted|pushed|pulled|bumped|changed|switched|raised|lowered|increased|decreased|reduced|dropped|cut|"
        rf"extended|reset|updated|upgraded|downgraded|migrated|went|gone|go|move|slip|change|switch|postponed|delayed|rescheduled|planned|"
        rf"scheduled|expected|set)\s+(?:back\s+|up\s+|down\s+|out\s+|in\s+|over\s+)?"
        rf"(?:from\s+{_V}\s+)?(?:to|onto|into|until|till|at|on|for)\s+(?P<v>.*{_V}.*)$"
    )),
    # "the idle timeout turned into <v>", "the quota became <v>"
    ("change", re.compile(rf"^(?P<s>.+?)\s+(?:has\s+|have\s+|now\s+)*(?:became|become|becomes|turned into|turns into|has turned into)\s+(?P<v>.*{_V}.*)$")),
    # "Commit titles top out at <v>": a limit
    ("set", re.compile(rf"^(?P<s>.+?)\s+(?:tops?|maxe?s?|caps?|peaks?)\s+out\s+at\s+(?P<v>.*{_V}.*)$")),
    # "The image store is marketed as <v>", "the X ships under the name <v>", "the public name of X is <v>"
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:is|are|was|will be|gets|now)?\s*(?:marketed|sold|branded|released|shipped|published|ships|sells|goes out)\s+(?:as|under the name)\s+(?P<v>{_V}.*)$")),
    ("rename", re.compile(rf"^(?:the\s+)?(?:[a-z]+\s+)?(?:name|codename|label|nickname|alias)\s+(?:of|for)\s+(?P<s>.+?)\s+(?:is|will be|becomes|is now)\s+(?P<v>{_V}.*)$")),
    ("set", re.compile(
        rf"^(?:please\s+)?(?:let's\s+|let us\s+|we should\s+|we'll\s+)?(?:set|cap|limit|keep|hold|pin|fix|move|change|switch|raise|lower|bump|reduce|increase|restrict|make|push|slip)\s+"
        rf"(?P<s>.+?)\s+(?:at|to|under|below|above|within|at most|at least|no more than|no higher than|no lower than|as|back to)\s+(?P<v>.*{_V}.*)$"
    )),
    ("set", re.compile(rf"^(?:please\s+)?(?:(?:we|i|let's|let us)(?:'ll|'d| will| should| can)?\s+)?(?:use|prefer|pick|choose|go with|stick with|stick to|target|run|treat|take|count|assume|settle on)\s+(?P<v>{_V})\s+(?:for|when|in|on|as)\s+(?P<s>.+)$")),
    # "We say Orion-7 for the indexer", "X has a fresh name, V"
    ("rename", re.compile(rf"^(?:internally\s+)?(?:we|people|everyone|everybody|the team)\s+(?:now\s+)?(?:say|write|use the name)\s+(?P<v>{_V})\s+for\s+(?P<s>.+)$")),
    ("rename", re.compile(rf"^(?P<s>.+?)\s+(?:has|got|gets|now has)\s+(?:a\s+)?(?:new|fresh|different)\s+(?:name|codename)\s*[,:]?\s*(?P<v>{_V}.*)$")),
    # "We run the staging cache TTL at <v>", "We plan to open the launch on <v>"
    ("change", re.compile(rf"^(?:we|i|they)(?:'re|'ll|'ve|'d)?\s+(?:'ll\s+|will\s+|now\s+)?(?:[a-z']+\s+){{1,3}}?(?P<s>(?:the|our|my)\s+.+?)\s+(?:at|on|to|onto|into|until|till|with|by)\s+(?P<v>{_V}.*)$")),
    # "The on-call rotation has Dana this week"
    ("is", re.compile(rf"^(?P<s>(?:the|our|my)\s+[^<]+?)\s+(?:now\s+)?(?:has|holds|lists|shows)\s+(?P<v>{_V}.*)$")),
    ("is", re.compile(rf"^(?P<s>.+?)\s*(?:\bis\b|\bare\b|\bwas\b|\bwill be\b|\bshould be\b|\bmust be\b|\bneeds to be\b|\bhas to be\b|\bstays\b|\bremains\b|\bbecomes\b|=|:|\bis set to\b|\bis now\b|\bare now\b|'s now)\s+(?:now\s+)?(?:still\s+)?(?P<v>.*{_V}.*)$")),
    ("when", re.compile(rf"^(?P<s>(?:the|our|my|your|this|that)\s+[^<]+?)\s+[a-z]+\s+(?:on|at|by|in|to|until|till|for|from|around|off|onto)\s+(?P<v>{_V})$")),
    # "The launch goes live <v>", "The beta ships out <v>"
    ("when", re.compile(rf"^(?P<s>(?:the|our|my|your|this|that)\s+[^<]+?)\s+[a-z]+\s+(?:live|out|up|ahead|back|off)\s+(?:(?:on|at|by|in|until|for|around)\s+)?(?P<v>{_V})$")),
    # "Yuki swapped in as this week's on-call engineer", "Omar took over as release manager"
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:(?:now|will|has|have|had|is|was|just|'s)\s+)*(?!(?:known|referred|called|named|listed|described|seen|used)\b)"
                       rf"[a-z]{{3,}}\s+(?:(?:in|up|over|on|back)\s+)?as\s+(?:the\s+|our\s+|my\s+)?(?P<s>[^<]*(?:<v>[^<]*)?)$")),
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:is|are|'s|will be|has been|has|holds|carries|covers|gets|got)\s+(?:now\s+)?(?P<s>.+)$")),
    # "Rosa looks after the audit pipeline", "Mei inherited the billing dashboard"
    ("who", re.compile(rf"^(?P<v>{_V})\s+(?:now\s+)?[a-z]{{3,}}(?:s|ed)\s+(?:(?:after|over|up|on|for|into|with)\s+)?(?:now\s+)?(?P<s>(?:the|our|my|this)\s+.+)$")),
    # an imperative that points a subject at a value: "Repoint the replica host to <v>"
    ("set", _POINT_AT),
]


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


_ATTRIBUTE = re.compile(
    r"^\s*(?:the\s+)?(?:(?:change|switch|update|move)\s+(?:of|in|to)\s+)?(?:new\s+|updated\s+|current\s+|latest\s+|target\s+|planned\s+|expected\s+)?(?:date|day|time|value|number|figure|amount|hostname|host name|address|location|url|endpoint|ip)\s+(?:for|of)\s+",
    re.IGNORECASE,
)
_META_SUBJECT = {"preference", "choice", "pick", "default", "setting", "rule", "request", "plan", "idea", "suggestion", "swap", "call", "that", "it", "this", "update"}
_FOR_PHRASE = re.compile(r"<v>[^<]*?\b(?:for|on|of)\s+(?P<p>[^<]+)$")
_LEAD_TIME = re.compile(r"^(?P<d>(?:(?:from|starting|as of|beginning)\s+)?(?:(?:this|next|coming) (?:week|month|sprint|quarter|monday|tuesday|wednesday|thursday|friday|weekend)|today|tomorrow|tonight))\s*,?\s+(?P<r>.+?)(?P<e>[.!]?)$", re.IGNORECASE)
_LEAD_FOR = re.compile(r"^(?:for|on|in) (?P<p>(?:the )?[^,<]{2,40}?),\s+(?P<r>.+?)(?P<e>[.!]?)$", re.IGNORECASE)
_LEAD_COLON = re.compile(r"^(?P<h>[^:<]{2,40}):\s+(?P<r>\S.*)$")
_GOAL_RE = re.compile(r"^(?P<s>(?:[\w'-]+\s+){0,4}(?:goal|objective|aim|mission|main task|task|priority|focus)(?:\s+[\w'-]+){0,4}?)\s*(?:\bis\b|:|=|\bwill be\b|\bfor (?:this|the|today)\b[^:]*?\bis\b)\s+(?P<v>.{6,})$", re.IGNORECASE)
# goals said without the word "goal": "This session is about …", "What we're doing today: …"
_GOAL_ABOUT = re.compile(
    r"^(?:(?:this|the|today's|our)\s+(?:session|conversation|chat|work(?:ing session)?)(?:\s+today)?\s+is\s+(?:all\s+|mainly\s+|mostly\s+)?(?:about|for)"
    r"|what (?:we|i)(?:'re| are| will be| want to be)\s+(?:doing|working on|after|here for|trying to do)(?:\s+(?:in|during|for) (?:this|the) (?:session|conversation|chat))?(?:\s+today)?\s*(?:\bis\b|:)"
    r"|(?:today|in this session|this session),?\s+(?:we(?:'re| are| will be| will)?|i(?:'m| am))\s+(?:going to|here to|trying to|working on|focus(?:ing|ed)? on)"
    r"|(?:we|i)(?:'re| are| am|'m) here to"
    r"|(?:today's|this session's|the session's|our|my) (?:job|work|mission|plan)(?: for today| today| here| in this session)?\s*(?::|\bis\b))\s+(?P<v>.{6,})$",
    re.IGNORECASE,
)
# ownership said around the name: "Talk to Dana about X, they own it", "X is Dana's responsibility"
_OWN = re.compile(
    r"\b(?:owns?|owned|owner|ownership|in charge|responsib\w*|'s (?:job|area|call|turf|baby))\b"
    r"|\b(?:ask|ping|contact|talk to|go(?:es)? to|goes through|reach out to)\b(?=.*\b(?:about|on|regarding|for)\s+(?:the|our|my)\b)"
    r"|\b(?:about|on|regarding|for)\s+(?:the|our|my)\b.*\b(?:ask|ping|contact|talk to|go(?:es)? to|reach out to)\b"
    r"|^(?:please\s+)?(?:send|forward|route|escalate|assign)\b.*\bto\s+<v>",
    re.IGNORECASE,
)
_ABOUT = re.compile(r"\b(?:about|for|of|on|regarding)\s+(?P<x>(?:the|our|my)\s+[^,<;]+?)(?=,|;|$|\s+(?:they|he|she|who|which|go|goes|should)\b)")
# a trailing contrast with no value of its own: ", not the older one", ", rather than before"
_TRAILING_CONTRAST = re.compile(r",\s*(?:not|rather than|instead of)\b[^,<$€£\d]{0,40}?([.!]?)$", re.IGNORECASE)
#: value kinds that make a clause a fact even without a relation ("Expect the launch on May 15")
_TYPED = {"date", "time", "money", "version", "number"}


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


_MAKE_THAT = re.compile(r"^(?:please\s+)?(?:let's\s+)?(?:make|set|change|switch|bump|raise|lower)\s+(?:that|it|this)\s+(?:to\s+)?(?P<v><v>)(?:\s+(?:for|on)\s+(?P<s>.+))?$")


#: words that alone name no subject: headings, labels and generic nouns or verbs
_GENERIC_SUBJECT = {
    "definition", "scope", "argument", "description", "result", "status", "summary", "note", "phase", "step", "task",
    "depend", "scenario", "example", "output", "input", "usage", "overview", "context", "background", "item", "list",
    "section", "detail", "info", "thing", "stuff", "it", "once", "run", "write", "done", "next", "todo", "approval",
}


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


# --- the ledger over time -------------------------------------------------------------------------
def add(ledger: Sequence[Entry], entry: Entry) -> list[Entry]:
    """``ledger`` with ``entry`` added: the active entries about the same subject are superseded
    (an ambiguous match — several different subjects the new one only partly names — supersedes
    none of them; both stay)."""
    out = list(ledger)
    matches = [i for i, e in enumerate(out) if e.active and same_subject(e.subject, entry.subject)]
    exact = [i for i in matches if set(out[i].subject.split()) == set(entry.subject.split())]
    if len(matches) > 1 and not exact:
        distinct = {out[i].subject for i in matches}
        matches = matches if len(distinct) == 1 else []
    elif exact:
        matches = exact
    if not matches or (entry.values and all(not out[i].values for i in matches)):
        # nothing, or only a value-less mention of the subject ("We eased the X limit;" before "V is fine
        # now"): the entry holding the old value may still be named in looser words
        matches = [*matches, *(i for i in _named_in_clause(out, entry) or _cued_update(out, entry) if i not in matches)]
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


_ROLE_WORDS = {"owner", "name"}  # "X has a new owner: V" names X's owner, not a more specific X


def _other_role(a: Entry, b: Entry) -> bool:
    """Two attributes of one thing ("owner of X" and "X name"): not an update of each other."""
    ra, rb = set(a.subject.split()) & _ROLE_WORDS, set(b.subject.split()) & _ROLE_WORDS
    return bool(ra and rb and ra != rb)


def _named_in_clause(ledger: Sequence[Entry], entry: Entry) -> list[int]:
    """Active entries a loosely worded update names: a value of the same kind (and unit), and
    every word of the old subject in the new clause ("It's fine to open pull requests up to 90
    lines" names "open pull request": 76 lines). Only the most specific such subject, only when
    it is one subject, never one the new subject makes more specific (that is a new subject),
    never a safety rule or a goal."""
    if not entry.signature or entry.kind in ("safety", "goal"):
        return []
    said = set(subject_words(frame(entry.text, find_values(entry.text)).replace("<v>", " "))) | set(subject_words(entry.text))
    new = set(entry.subject.split())
    cands = []
    for i, e in enumerate(ledger):
        words = set(e.subject.split())
        if not e.active or e.kind in ("safety", "goal") or e.signature != entry.signature or not words <= said or _other_role(e, entry):
            continue
        if words < new and not new - words <= _ROLE_WORDS:
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


# words that say a statement changes something said before
_UPDATE_CUE = re.compile(
    r"\b(?:now|instead|anymore|no longer|from now on|going forward|moved|changed|switched|swapped|replaced|updated|upgraded|downgraded|"
    r"migrated|renamed|rebranded|delayed|postponed|rescheduled|slipped|pushed|bumped|raised|lowered|took over|taking over|taken over|"
    r"new|correction|scratch that|actually|not the|rather than|after all|went(?: up| down)? to|turned into|became|increased|decreased|"
    r"reassigned|loosened|relaxed|tightened|shortened|lengthened|reduced|doubled|halved|handed over|switched over|cut over|"
    r"slid|drifted|lifted|rose|eased|grew|fell|expanded|passed (?:along|on)|handed to|grabbed|picked up|"
    r"(?:from|as of|starting|effective) (?:today|tomorrow|this week|next week|monday|immediately))\b",
    re.IGNORECASE,
)


def _words_of(text: str) -> list[str | None]:
    """The clause's content words in order (values and stop words as None)."""
    fr = frame(text, find_values(text)).lower()
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
    new_words = _words_of(entry.text)
    said = {w for w in new_words if w}
    scored: list[tuple[int, int]] = []
    for i, e in enumerate(ledger):
        if not e.active or e.kind in ("safety", "goal") or e.signature != entry.signature or _other_role(e, entry):
            continue
        old_words = _words_of(e.text)
        shared = said & {w for w in old_words if w}
        if not shared & set(e.subject.split()):
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


def update(ledger: Sequence[Entry], text: str, source: str = "") -> list[Entry]:
    out = list(ledger)
    for e in detect(text, source):
        out = add(out, e)
    return out


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
    if not olds:
        return text
    for t in sorted({e.text for e in ledger if e.active and e.text.strip()}, key=len, reverse=True):
        if t in text:
            text = text.replace(t, hold(t))
    for e in olds:
        note = f"[updated later: {e.updated_to}]"
        if e.text in text:
            text = text.replace(e.text, hold(note))
        for v in _with_cores(e.values):
            if v.lower() in live or not v.strip():
                continue
            pat = re.compile(rf"(?<![\w$€£]){re.escape(v)}(?![\w])", re.IGNORECASE)
            if not pat.search(text):
                continue
            if len(v) >= 4 and not v.isdigit():
                text = pat.sub(hold(note), text)
                continue
            text = _sub_in_sentences(text, pat, hold(note), set(e.subject.split()))
    return re.sub("\x00([\U000f0000-\U000fffff])\x00", lambda m: notes[ord(m.group(1)) - 0xF0000], text) if notes else text


_CORE = re.compile(r"^[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM]\b)?|^(?:python|node|java|go|ruby|php|rust)\s+(?P<ver>\d+(?:\.\d+)+)$", re.IGNORECASE)


def _with_cores(values: Sequence[str]) -> list[str]:
    """Each value and its core ("$4100 a month" → "$4100", "Python 3.12.1" → "3.12.1"): the old
    value may come back in other words around the same core."""
    out = list(values)
    for v in values:
        m = _CORE.match(v.strip())
        core = (m.group("ver") or m.group(0)).strip() if m else ""
        if core and core != v and core not in out:
            out.append(core)
    return out


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
    t = _FILLER.sub("", e.text).strip()
    t = re.sub(r",?\s*(?:from now on|going forward|please)([.!]?)$", r"\1", t, flags=re.IGNORECASE)
    t = t[:1].upper() + t[1:] if t else e.text
    return t if all(v in t for v in e.values) else e.text


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
        t = condensed(e) if condense else e.text
        if t.lower() in seen:
            continue
        seen.add(t.lower())
        lines.append(f"- {t}")
    if left_out:
        lines.append(left_out)
    return HEADING + "\n" + "\n".join(lines)


_BLOCK = re.compile(r"^## (?:Memory: the user's|Constraints & preferences)[^\n]*\n(?P<body>(?:[-\[].*(?:\n|$))*)", re.MULTILINE)


def from_text(text: str) -> list[Entry]:
    """Entries carried in a summary's ledger block (a fold carries the ledger to the next one)."""
    out: list[Entry] = []
    for m in _BLOCK.finditer(text):
        for line in m.group("body").splitlines():
            if line.startswith("- "):
                for e in _parse_with_pronoun(line[2:].strip(), "", "summary"):
                    out = add(out, e)
    return out
