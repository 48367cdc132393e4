"""Subjects of ledger entries: content words, normalised (case, plurals, a few synonyms), and when
two subjects are the same one (``same_subject``). Pure."""

from __future__ import annotations

import re

from .scoped import kept_in_scope
from .vocabulary import CHANGE_NOT_SUBJECT

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
    "hey", "thanks", "remember", "note", "heads", "fyi", "btw", "correction", "plan", "quick", "one", "thing",
    "very", "really", "much", "many", "some", "other", "another", "new", "old", "current", "currently",
    "got", "gets", "get", "becomes", "become", "stays", "remains",
    "long", "short", "big", "large", "small", "high", "low", "exceed", "go", "side", "today", "allowed", "allow", "need", "needs",
    "fine", "permitted", "alright", "welcome", "able", "later", "earlier", "older", "newer", "latest", "previous",
    "if", "possible", "after",
    "favourite", "favorite", "favour", "favor", "aiming", "targeting", "ready", "before", "nowadays", "glad", "happy", "grateful",
    "appreciate", "love", "pleased",
    # bounds ("any pull request past V") and the verb "slide" ("slid out to"; its other forms in vocabulary.py): how it changed, not what
    "slide", "slides", "past", "beyond",
    # imperative verbs of a relative change ("Raise the X by D, so V", "Finance added D to the X"; the others in vocabulary.py): how, not what
    "add", "added", "adding", "scale", "scaled", "take", "took", "taking", "off", "leaves", "leaving",
    # verbs of motion that say how a value came about ("came out at V", "goes up by D"): never what it is about
    "came", "comes", "come", "goes", "went", "puts", "makes",
    "go-to",  # "our go-to person for X" is X's person
    # relative pronouns, prepositions and placeholders that name nothing ("V is who owns X", "wait V between tries",
    # "anything meant for X"), and verbs of staying ("have to stay smaller than V")
    "who", "whom", "which", "when", "while", "between", "anything", "everything", "something", "meant", "stay", "remain",
    "whatever", "happens", "best",
} | CHANGE_NOT_SUBJECT  # a verb of change says how a value moved, not what it is about (vocabulary.py)
#: the stop words, for ``typos.py`` (a slip in one of them is read as the word meant)
STOP_WORDS = frozenset(_STOP)
_SYNONYMS = {
    "bill": "budget", "allowance": "budget", "spend": "budget", "spending": "budget", "cost": "budget", "costs": "budget", "budget": "budget",
    "due": "deadline", "deadline": "deadline", "called": "name", "named": "name", "title": "name", "oncall": "on-call",
    "maintainer": "owner", "ownership": "owner", "lead": "owner", "responsible": "owner", "owns": "owner", "owned": "owner",
    "person": "owner", "codename": "name", "db": "database", "repo": "repository", "env": "environment", "config": "configuration",
    "prod": "production", "codenamed": "name", "ceiling": "limit", "cap": "limit", "maximum": "limit", "max": "limit",
    # found on `field`: the words a paraphrase uses for the same thing
    "settings": "configuration", "setting": "configuration", "conf": "configuration", "pager": "on-call", "rota": "on-call",
    "merged": "merge", "retries": "retry", "polling": "poll",
}


def _singular(w: str) -> str:
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith(("oes", "shes", "ches", "xes")) and w not in ("shoes",):
        return w[:-2]  # "goes" → "go", "pushes" → "push"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


_POSSESSIVE_END = re.compile(r"'s?$")


@kept_in_scope  # a ledger update reads the same subject phrase many times (scoped.py)
def subject_words(text: str) -> list[str]:
    """Content words of a subject phrase, normalised (case, plural, a few synonyms), in order."""
    text = re.sub(r"\b([A-Z]{2,5})s\b", r"\1", text)  # "PRs", "APIs": the acronym's plural
    acronyms = {w.lower() for w in re.findall(r"\b[A-Z]{2,5}\b", text)}  # "US" is a region here, not "us"
    t = text.lower().replace("on call", "on-call")
    t = re.sub(r"\b(on-call|pager)\s+duty\b", r"\1", t).replace("on-call", " oncall ")  # the duty of a role is the role
    t = re.sub(r"\bthe\s+rest\s+of\s+(?:the|this|that)\s+(day|week|month|quarter|year|sprint)\b", r"this \1", t)  # "the rest of the week" is this week
    t = re.sub(r"\b(?:(?:last|this|yesterday|tomorrow)\s+(?:night|morning|afternoon|evening)|yesterday)\b(?!['’]s)", " ", t)  # when it was said, not what about (but "this morning's standup" is one standup)
    t = re.sub(r"\b[a-z]+\s+than\b", " ", t)  # "bigger than", "more than": how, not what
    t = re.sub(r"\bpinned\s+(?=(?:to|at|on)\b)", " ", t)  # "we're pinned to lib V": how it is held (but "the pinned tab")
    t = _HOW_BINDING.sub(" ", t)  # "Hard requirement: …", "It's non-negotiable that …": how firmly it binds, not what about
    t = re.sub(r"\bfree to\b", " ", t)  # "you're free to …" (but "the free tier" names a tier)
    t = re.sub(r"\b(?:be|am|'m|are|'re|is|feel)\s+content\b", " ", t)  # "I'd be content with …" (but "the content delivery network")
    # Kind: a setting's key in snake case names the same words as prose ("retry_limit: 5" is the retry limit; before, one
    # word no prose subject shares): letters only on both sides of each underscore (a name with digits keeps its form)
    t = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", lambda m: m.group(0).replace("_", " "), t)
    words = [w.strip("'-") for w in re.findall(r"[a-z0-9][a-z0-9'_.-]*", t)]
    out = []
    for w in words:
        possessor = w.endswith("'s") and w[:-2] not in _NOT_POSSESSORS  # "Large's quota": whose, a content word
        w = w.rstrip(".")
        w = _POSSESSIVE_END.sub("", w) if "'" in w else w
        if not w or (w in _STOP and w not in acronyms and not possessor) or w == "<v>" or (len(w) == 1 and w.isalpha()):  # "s" of a possessive split off a value
            continue
        w = _SYNONYMS.get(w, w if w in acronyms else _singular(w))  # "OMS" is no plural
        if w not in out:
            out.append(w)
    if "budget" in out:
        # "the monthly cloud budget" / "the cloud budget … per month": the period is how the amount
        # is counted, not which budget; elsewhere ("the daily launch" / "the hourly launch") it names it
        out = [w for w in out if w not in _PERIODS] or out
    return out


#: words that say how firmly a rule binds ("Hard requirement: X …", "X, no exceptions", "It's non-negotiable that X …"): two
#: rules marked alike are not one subject (brook: a "hard requirement" on a collector host and one on a freeze date were merged)
_HOW_BINDING = re.compile(
    r"\b(?:(?:hard|strict|firm|absolute|strong)\s+(?:requirements?|rules?|constraints?|musts?)|non-?negotiable|"
    r"(?:no|without)\s+exceptions?|under\s+no\s+circumstances)\b"
)
_NOT_POSSESSORS = {"it", "that", "let", "there", "here", "he", "she", "what", "who", "where", "how", "this", "one", "everything", "nothing"}
_PERIODS = {"monthly", "weekly", "daily", "yearly", "annual", "hourly", "annually"}


def _initials(words: list[str]) -> str:
    return "".join(p[0] for w in words for p in w.split("-") if p)


def _run_for(word: str, words: list[str]) -> tuple[int, int] | None:
    """(start, end) of the run of ``words`` whose initials spell ``word`` ("cdn" → "content delivery
    network"; a hyphen splits a word: "sso" → "single sign-on"), two letters or more."""
    if not (2 <= len(word) <= 5 and word.isalpha()) or word in words:
        return None
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            got = _initials(words[i:j])
            if got == word and (j - i >= 2 or len(got) >= 2):
                return i, j
            if not word.startswith(got):
                break
    return None


def caps(text: str) -> set[str]:
    """The abbreviations ``text`` writes in capitals ("OMS", "CDN"), lower-cased as in a subject."""
    return {w.lower() for w in re.findall(r"\b[A-Z]{2,5}\b", text)}


def align(new: list[str], old: list[str], new_caps: set[str], old_caps: set[str]) -> list[str]:
    """``new`` subject words in ``old``'s vocabulary: an abbreviation written in capitals on either side
    (``new_caps`` / ``old_caps``) stands for the words it abbreviates on the other ("the CDN DB" / "the
    content delivery network database"; "ds = Dataset()" abbreviates nothing)."""
    out: list[str] = []
    for w in new:
        run = _run_for(w, old) if w in new_caps else None
        out.extend(old[run[0] : run[1]] if run else [w])
    for w in old:
        run = _run_for(w, out) if w in old_caps else None
        if run:
            out[run[0] : run[1]] = [w]
    return out


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
