"""Whether an "only" in a clause directs or describes (pure).

"Only" fences a choice when the clause tells someone what to do — "Only deploy from main", "Reply only in
English", "Please only touch the docs folder", "The nightly job may only write to /srv/out" — and reports
when it describes what is the case: "Only Firefox shows the bug", "The crash happens only on ARM", "Only
two of the runs failed", "Only the staging box has the new driver" (review finding 5: these were read as
hard constraints, and a wrong rule is kept verbatim through every fold).

Read from the sentence's structure, not from a list of verbs: a directive has a modal or an obligation
("must", "should", "may", "has to", "is to", "allowed") — those are rule words of their own —, or is an
imperative: its first word (after a lead and "please") is "only" before a verb in its base form, or a verb
in its base form before "only". A word that is a value, a number, a determiner or a pronoun is no verb;
a word ending in "-ed" is past, one ending in a single "-s" is a third person or a plural (no base form):
"Only Firefox shows …", "Only crashed once", "Runs only on Fridays" describe.
"""

from __future__ import annotations

import re

# what cannot be a verb in its base form at the head of an imperative
_NOT_VERB = re.compile(
    r"^(?:<v>|\d[\w.,]*|the|a|an|this|that|these|those|my|our|your|his|her|its|their|some|any|no|all|both|each|every|one|two|three|"
    r"four|five|six|seven|eight|nine|ten|few|several|many|most|i|we|you|he|she|it|they|there|here|what|which|who|is|are|was|were|"
    r"be|been|has|had|have|do|does|did|when|if|on|in|at|for|to|from|by|with|of|once|twice|then|so|and|but|or)$",
    re.IGNORECASE,
)
_OPENING = re.compile(r"^(?:(?:please|just|and|so|also|ok(?:ay)?|then)\b[\s,]*)+", re.IGNORECASE)
_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
_COUNT = re.compile(r"^(?:<v>|\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|a|an)$", re.IGNORECASE)
_AUX = re.compile(r"^(?:is|are|was|were|has|have|had|does|do|did|got|gets|shows?|happens?|fails?|went|came|ran|broke)$", re.IGNORECASE)
# a label before the sentence: "Important: use only …", "**Rule**: only …"
_LABEL = re.compile(r"^[*_\s]*(?:[A-Za-z][\w ]{0,24}?)?[*_]*\s*:\s+")
_PLEASE = re.compile(r"\bplease\b", re.IGNORECASE)
# a thing kept for someone: "Voiding labels is for the dispatch lead only", "The deploy key is reserved for CI only"
_RESERVED = re.compile(r"\b(?:is|are)\s+(?:reserved\s+|meant\s+)?for\s+[^.;!?]{1,60}?\bonly\b", re.IGNORECASE)


# the common irregular past forms (English grammar, not a family's words): "Staging only went down twice"
_PAST = re.compile(
    r"^(?:went|came|ran|broke|got|took|gave|saw|left|found|made|said|told|knew|thought|began|fell|froze|hit|kept|lost|"
    r"met|paid|put|sent|set|shut|spent|stood|stuck|threw|understood|woke|wrote|built|bought|caught|drove|felt|held|led|"
    r"meant|rose|sold|shook|shot|slept|spoke|stole|swung|taught|tore|won|wore)$",
    re.IGNORECASE,
)


def _past(word: str) -> bool:
    """``word`` is a past form: "-ed" (not "-eed": "proceed", "need", "seed" are base forms) or an irregular one."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and ((w.endswith("ed") and not w.endswith("eed")) or bool(_PAST.match(w)))


def _finite(word: str) -> bool:
    """``word`` ends like a past or a third-person form ("shows", "crashed", "went"), or like a plural ("-s", but not
    "-ss", "-us", "-is": "pass", "focus" are base forms)."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and (_past(w) or (w.endswith("s") and not w.endswith(("ss", "us", "is"))) or w.endswith("ing"))


def _base_verb(word: str) -> bool:
    """``word`` may be a verb in its base form ("deploy", "use", "pass"), not a past or third-person form."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and not _NOT_VERB.match(w) and not _finite(w)


def only_directs(clause: str) -> bool:
    """An "only" in ``clause`` (values already masked as ``<v>``) is part of a directive: "Only use <v>", "Deploy
    only from <v>", "Run the migrations only on Sundays", "Only <v> retries, please". False for a clause with no
    "only", and for "Only <v> shows the bug", "<v> only crashes on <v>", "We only saw it once"."""
    if not _ONLY.search(clause):
        return False
    if _PLEASE.search(clause) or _RESERVED.search(clause):
        return True
    label = _LABEL.match(clause.strip())
    if label and _ONLY.search(label.group()):
        # "Only deploy from main: the branch is frozen" — the "only" is in what looks like a label: it is the rule
        words = _OPENING.sub("", label.group().strip(" *_:")).split()
    else:
        words = _OPENING.sub("", _LABEL.sub("", clause.strip())).split()
    if len(words) >= 2 and words[0].lower() == "only":
        if _COUNT.match(words[1]):
            # a limit written as a noun phrase ("Only <v> per second from the scraper"), unless a verb says what happened
            return not any(_past(w) or _AUX.match(w.rstrip(",;:.!?")) for w in words[2:])
        # "only" + a verb + its object, no subject before the verb ("Only proceed once …", "Only focus on …", "Only seed
        # the database …"); the suffix of a plural or third person is no test here (finding 6). A name ("Only Firefox
        # shows …") or a word followed by a verb of its own ("Only admins merge …") is a subject; a past form describes.
        w1 = words[1].strip(",;:.!?")
        nxt = words[2] if len(words) > 2 else ""
        def _s_form(w: str) -> bool:
            w = w.lower().strip(",;:.!?")
            return w.isalpha() and w.endswith("s") and not w.endswith(("ss", "us", "is"))

        # a plural first word with a word after it that is not a function word is a subject and its verb ("Only
        # admins merge …"); "Only rotate keys …" is a verb and its object (a singular subject with no determiner, "Only
        # prod runs …", reads as a directive: a known miss of this reading)
        follows = not nxt or bool(_NOT_VERB.match(nxt.strip(",;:.!?"))) or not nxt[:1].isalpha() or not _s_form(w1)
        return w1.isalpha() and w1.islower() and not _NOT_VERB.match(w1) and not _past(w1) and not w1.endswith("ing") and follows
    # an imperative: a verb in its base form first, and no finite verb after it ("Firefox only shows …" has one)
    rest = [w for w in words[1:] if w.lower() != "only"]
    return bool(words) and _base_verb(words[0]) and not (rest and _finite(rest[0]))
