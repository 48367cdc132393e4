"""What the session is for: a clause that asks for the work (the opening request, read as the goal) and
the phrases that drop a goal when the user changes it. Pure.

A request is read from the clause's shape, not from a list of task verbs: after a greeting or a short label
("The job: …", "Today, …"), either the speaker says what they need ("I need …", "We'd like …", "What I need
from you this week is …", "All we want is …", "Let's …") or the clause is an imperative — a first word that
can be a verb in its base form (no past, third-person, -ing or -ly form, no preposition, pronoun, determiner,
conjunction or interjection), optionally a particle ("put together", "set up", "look into", "get me"), then
the thing asked for, led by a determiner or a possessive: "Please put together a frost alert pipeline",
"Build the delay heatmap". A question is a request only when it asks
for help or for the work ("Could you …"); "Let's not …" is a rule, not a request.
"""

from __future__ import annotations

import re

# what cannot be a verb in its base form at the head of an imperative: function words, greetings, adverbs of a remark
_NOT_VERB = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "his", "her", "its", "their", "some", "any", "no", "all", "both", "each", "every", "one", "two", "three", "i", "we", "you", "he", "she", "it", "they", "there", "here", "what", "which", "who", "whom", "whose", "why", "how", "where", "when", "is", "are", "was", "were", "be", "been", "am", "has", "had", "have", "do", "does", "did", "will", "would", "can", "could", "shall", "should", "may", "might", "must", "about", "above", "across", "after", "against", "along", "among", "around", "as", "at", "before", "behind", "below", "beneath", "beside", "between", "beyond", "by", "despite", "during", "except", "for", "from", "in", "inside", "into", "like", "near", "of", "off", "on", "onto", "out", "outside", "over", "past", "per", "since", "through", "throughout", "to", "toward", "towards", "under", "until", "unlike", "up", "upon", "via", "with", "within", "without", "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while", "whereas", "if", "unless", "once", "then", "now", "also", "just", "only", "even", "still", "maybe", "perhaps", "actually", "basically", "honestly", "anyway", "btw", "fyi", "hi", "hey", "hello", "thanks", "thank", "sorry", "ok", "okay", "yes", "yeah", "yep", "no", "nope", "sure", "great", "cool", "nice", "good", "fine", "welcome", "happy", "morning", "evening", "afternoon", "context", "note", "re", "cc", "not", "please", "again", "first", "next", "last", "today", "tonight", "tomorrow", "yesterday"]
)
# what may stand between the verb and the thing asked for: a particle ("put together", "set up") or who it is for ("get me")
_PARTICLE = frozenset(["up", "out", "together", "down", "over", "into", "through", "on", "off", "in", "back", "away", "around", "forward", "along", "aside", "me", "us", "with", "to", "at", "for", "about"])
_OBJECT = frozenset(["a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "their", "its", "his", "her", "some", "all", "every", "each", "any"])
# the speaker saying what they need: "I need …", "We'd like …", "I would love to …", "I have to get …"
_NEED = re.compile(
    r"^(?:i|we)(?:\s+really|\s+urgently|\s+just|\s+also)?(?:\s+(?:need|want|have to|must|am hoping to|are hoping to)|'d\s+(?:like|love)|\s+would\s+(?:like|love)"
    r"|'m\s+hoping\s+to|'re\s+hoping\s+to)\b(?!\s+(?:answers|replies|responses|you to answer))",
    re.IGNORECASE,
)
# "What I need from you this week is X", "All we want today is X", "What we actually need is X"
_CLEFT = re.compile(
    r"^(?:what|all)\s+(?:i|we)(?:'m|'re|\s+am|\s+are)?(?:\s+(?:actually|really|now|still|do|most|urgently))*\s+"
    r"(?:need|want|would like|'d like|am after|are after|after|looking for|am looking for|are looking for|asking for)\b[^,;:.!?]{0,40}?\s+is\s+(?P<v>\S.{3,})$",
    re.IGNORECASE,
)
_LET = re.compile(r"^(?:let(?:'s|\s+us)\s+(?!not\b|(?:be|keep|stay|stick|say|agree|see|think|recap|take\s+a\s+step\s+back)\b)|help\s+(?:me|us)\b)", re.IGNORECASE)
_GREETING = re.compile(r"^(?:(?:hi|hey|hello|morning|good (?:morning|afternoon|evening)|so|ok(?:ay)?|right|alright|please|today|now)\b[\s,!.-]*)+", re.IGNORECASE)
# a short label before the request: "The job: build …", "Task for you — …", "Ask: …" (at most four words, no digit)
_LABEL = re.compile(r"^(?:[A-Za-z][\w'-]*\s+){0,3}[A-Za-z][\w'-]*\s*(?::|—|–|-)\s+(?=\S)")


# Kind: a verb of courtesy, feeling or attitude at the head of a clause says how the speaker feels or what the reader
# may do while reading ("Hope all is well", "Enjoy the week", "Forgive the long message", "Ignore the typos in my
# notes", "Imagine the worst case"): it asks for no work, whatever follows it
_FEELING = frozenset(["hope", "wish", "enjoy", "love", "hate", "like", "miss", "fear", "trust", "believe", "imagine", "suppose", "guess", "think",
                      "feel", "mind", "excuse", "forgive", "pardon", "ignore", "disregard", "thank", "congratulate", "welcome", "relax", "rest", "bear",
                      "apologize", "apologise", "appreciate", "cheer", "celebrate", "consider", "remember", "recall", "picture", "assume", "happy", "congrats"])
# an idiom of courtesy with an object: "Take your time", "Take care", "Take it easy", "Have a great weekend"
_COURTESY = re.compile(r"^(?:take\s+(?:your|my|our|all\s+the)\s+time|take\s+care|take\s+it\s+easy|have\s+(?:a|an)\s+(?:\w+\s+)?(?:day|week|weekend|evening|time|holiday|trip))\b", re.IGNORECASE)
# "Let's see.", "Let's get started.": a move in the talk with nothing to act on
_LET_ONLY = re.compile(r"^let(?:'s|\s+us)\s+(?:see|think|recap|begin|start|get\s+(?:started|going)|take\s+a\s+step\s+back|dive\s+in)\s*[.!]*$", re.IGNORECASE)
# a need that is the speaker's own act or state, not the work: "I want to be clear …", "I'd like to say thanks …",
# "I need to run to a meeting", "We need to talk about …"
_OWN_ACT = re.compile(r"^(?:to\s+)?(?:be|say|thank|mention|stress|clarify|apologi[sz]e|note|point\s+out|tell\s+you|let\s+you\s+know|ask\s+you|talk|chat|vent|share\s+(?:my|some)\s+thoughts"
                      r"|run\s+(?:to|off|out)|step\s+(?:away|out)|head\s+(?:out|off)|leave|go\s+(?:to|now|soon)|take\s+a\s+break|start\s+by\s+saying)\b", re.IGNORECASE)


# Kind: a verb of thought before the work it names asks for that work ("Consider migrating the X", "Think about how to
# shard the Y", "Remember to rebuild the Z", "Don't forget to tag the W"): the thought's object is an act on a thing —
# an -ing verb before its object, or "to" / "how to" / "whether to" before an imperative. "Consider the worst case",
# "Remember that the API is frozen", "Think about it" ask for no work (they stay courtesy or a fact)
_DELIBERATE = re.compile(
    r"^(?:consider|think\s+(?:about|through|over)|remember|don't\s+forget|do\s+not\s+forget)\s+"
    r"(?:(?P<to>(?:how|whether|if)\s+(?:to|we\s+(?:could|should|can|might))|to)\s+)?(?P<rest>\S.*)$",
    re.IGNORECASE,
)
# a pause the speaker takes is their own act, not the work: "I need a coffee before we start", "I need a minute"
_PAUSE = re.compile(r"^(?:to\s+(?:get|grab|have)\s+)?(?:a|an|some|one\s+more)\s+(?:quick\s+|short\s+|real\s+)?"
                    r"(?:coffee|tea|break|breather|minute|moment|second|sec|rest|nap|snack|drink|lunch|bite|stretch|walk)\b", re.IGNORECASE)


def deliberate(said: str) -> bool:
    """``said`` asks for the work a verb of thought names ("Consider migrating the X", "Remember to rebuild the Y")."""
    m = _DELIBERATE.match(_GREETING.sub("", said.strip()).strip())
    if m is None:
        return False
    rest, words = m.group("rest"), m.group("rest").split()
    if m.group("to"):
        return imperative(rest)
    if len(words) < 2 or not _word(words[0]).endswith("ing") or not words[0].isalpha():
        return False
    k = 1
    while k < len(words) - 1 and k < 3 and _word(words[k]) in _PARTICLE:
        k += 1
    return _word(words[k]) in _OBJECT


def courtesy(said: str) -> bool:
    """``said`` (its greeting set aside) is courtesy, a feeling or the speaker's own act, not a request for work:
    "Hope all is well with the team.", "Take your time.", "I want to be clear about one thing."."""
    said = _GREETING.sub("", said.strip()).strip()
    first = _word(said.split()[0]) if said.split() else ""
    if deliberate(said):
        return False
    if first in _FEELING or _COURTESY.match(said) or _LET_ONLY.match(said):
        return True
    m = _NEED.match(said)
    return m is not None and (_OWN_ACT.match(said[m.end():].strip()) is not None or _PAUSE.match(said[m.end():].strip()) is not None)


#: the signature of a goal read from its shape alone ("Build the X."): a request asked for in so many words in the
#: same or the next message outranks it
SHAPED = "goal shape"
_ITEM = re.compile(r"^[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+(?P<x>\S.*)$", re.MULTILINE)


def list_item(part: str, text: str) -> bool:
    """``part`` is read from an item of a numbered or bulleted list in ``text`` (or is one)."""
    head = part.strip()[:40]
    return bool(head) and any(head in m.group("x") for m in _ITEM.finditer(text))


def _word(w: str) -> str:
    return w.strip(",;:.!?\"'()").lower()


def _base_verb(w: str) -> bool:
    """``w`` may be a verb in its base form: a plain lower-case word with no past, third-person, -ing or -ly ending."""
    return (w.isalpha() and w not in _NOT_VERB and not w.endswith(("ed", "ing", "ly"))
            and not (w.endswith("s") and not w.endswith(("ss", "us", "is"))))


def imperative(said: str) -> bool:
    """``said`` opens with a verb in its base form and the thing it acts on ("Build the X", "Put together a X",
    "Get me the X", "Migrate Orion-7 …")."""
    words = said.split()
    if len(words) < 2 or not words[0][:1].isalpha() or not _base_verb(_word(words[0])) or words[0][-1:] in ",;:":
        return False
    k = 1
    while k < len(words) - 1 and k < 3 and _word(words[k]) in _PARTICLE:
        k += 1
    return _word(words[k]) in _OBJECT


def cleft(said: str) -> str:
    """What a pseudo-cleft request asks for ("What I need from you this week is a X" → "a X"), else ""."""
    m = _CLEFT.match(said.strip().rstrip(".!"))
    return m.group("v").strip() if m else ""


def request(part: str, *, polite: bool = False) -> bool:
    """``part`` asks for the session's work (see the module docstring). ``polite``: it opened with "Could you …",
    already set aside by the caller."""
    said = _GREETING.sub("", part.strip()).strip()
    label = _LABEL.match(said)
    if label and not polite:
        rest = said[label.end():]
        if request(rest):
            return True
    if said.rstrip().endswith("?") and not polite and not re.match(r"(?:please\s+)?help\s+(?:me|us)\b", said, re.IGNORECASE):
        return False
    if courtesy(said):
        return False
    return bool(_NEED.match(said) or cleft(said) or _LET.match(said) or imperative(said) or deliberate(said))


# what a need says about the assistant's replies is a preference, not the work: "I'd like terse answers in metric units"
_ABOUT_REPLIES = re.compile(r"\b(?:answers?|replies|reply|responses?|explanations?|summaries|tone|style|format(?:ting)?|wording|units|language)\b", re.IGNORECASE)


def needed(part: str) -> str:
    """What a need asks for, its lead set aside ("I need to clean up the X before …" → "clean up the X before …"),
    or "" when ``part`` is no need or speaks of the assistant's replies (a preference)."""
    said = _GREETING.sub("", part.strip()).strip()
    m = _NEED.match(said)
    if not m or _ABOUT_REPLIES.search(said):
        return ""
    return re.sub(r"^(?:to\s+)?", "", said[m.end():].strip())


# dropping the work: "forget the X", "drop X —", "scrap the X and …", "X is cancelled" is not read (no phrase to drop)
_DROP = re.compile(
    r"\b(?:drop|never\s+mind|forget(?:\s+about)?|scrap|ditch|abandon|shelve|cancel|kill|stop\s+work(?:ing)?\s+on|no\s+more)\s+"
    r"(?P<x>[^,;.:!?—–()\[\]]{2,70}?)(?=\s*(?:[,;.:!?—–()]|$)|\s+(?:and|for now|for good|entirely|completely|altogether|instead|then|now)\b|\s+-\s)",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"^(?:the|our|my|that|this|your|a|an|all|any)\s+(?:(?:whole|entire|earlier|old|original|first)\s+)?", re.IGNORECASE)
# the message says the plan changes: "New direction:", "Change of goal:", "Different plan —", "Scratch the plan:"
PLAN_CHANGE = re.compile(
    r"^(?:(?:ok(?:ay)?|so|right|actually|hmm|sorry)\b[\s,!.-]*)*(?:change of (?:plans?|goal|focus|direction|priorit\w*|course)|new (?:plan|priority|focus|direction|goal)"
    r"|(?:a\s+)?different (?:plan|goal|direction)|(?:scrap|forget|scratch) (?:the|that|our) (?:earlier |old |original )?(?:plan|goal)|plans? (?:have |has )?changed)\b",
    re.IGNORECASE,
)


def dropped(text: str) -> list[str]:
    """The things ``text`` drops, without their determiner ("New direction: forget the X." → ["X"])."""
    return [x for m in _DROP.finditer(text) if (x := _DETERMINER.sub("", m.group("x").strip()).strip())]


def after_dash(clause: str) -> str:
    """The part of ``clause`` after its last dash ("Drop X — the real goal is Y." → "the real goal is Y."), else ""."""
    parts = re.split(r"\s+[—–-]\s+", clause.strip())
    return parts[-1] if len(parts) > 1 else ""


def without_dropped(body: str, drops: tuple[str, ...]) -> str:
    """``body`` without the phrases that drop one of ``drops`` ("drop the X and build a Y" → "build a Y")."""
    def cut(m: re.Match[str]) -> str:
        return "" if _DETERMINER.sub("", m.group("x").strip()).strip() in drops else m.group(0)

    kept = _DROP.sub(cut, body)
    kept = re.sub(r"^[\s,;:—–-]*(?:and|then)?\s+", "", re.sub(r"\s{2,}", " ", kept))
    return re.sub(r"\s*([:;,])(?:\s*[,;—–-])+", r"\1", re.sub(r"[:;]\s+and\s+", ": ", kept)).strip(" ,;:—–-")
