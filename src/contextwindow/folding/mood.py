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
"Only Firefox shows …", "Only crashed once", "Runs only on Fridays" describe. "Only" before a role or a group and what
it does in a present or modal form is a policy of who may act: "Only admins merge to main", "Only the release manager
tags releases", "Only maintainers get to cut a release" (review debt of issue 11) — but only with a modal ("can", "may", "must"),
"get to", "is/are allowed to", or a verb of an act the team's work grants or gates (merge, deploy, approve, tag,
release, push, delete, access …); any other verb says what the role happens to do and describes ("Only admins saw the
banner", "Only admins were online", "Only engineers in Berlin run Linux", "Only interns break the build").
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


# who a policy names: a role or a group (English words for who holds a job, not one family's words); "-ist"/"-ian" name a
# person ("pharmacists", "technicians")
_AGENT = re.compile(
    r"^(?:(?:admin|administrator|maintainer|owner|reviewer|approver|manager|lead|engineer|developer|dev|contributor|committer|"
    r"member|employee|operator|sre|moderator|editor|author|assignee|officer|director|supervisor|auditor|accountant|tester|"
    r"architect|intern|contractor|signer|superuser|steward|custodian|clerk|team|group|squad|crew|board|committee|department|"
    r"human|person|partner|owner|senior|nurse|doctor|teacher|parent|guardian|designer|writer|analyst|researcher|planner|user|"
    r"customer|worker|volunteer|student|agent)s?|people|staff|personnel|folks|ops|on-?call|"
    r"signatory|signatories|[a-z]{3,}(?:ist|ian)s?)$"
)
# a modal after the subject: "Only admins can/may/should/must merge"
_MODAL = re.compile(r"^(?:can|may|should|must|shall)$")
# the acts of a team's work that a policy grants or gates — what changes the shared work, its releases, its records or
# its access (English verbs, not one family's words): "Only admins merge to main", "Only the release manager tags
# releases". Any other present verb said of a role describes what the role happens to do ("Only engineers in Berlin run
# Linux", "Only interns break the build", "Only contractors complain about the VPN"): a rule needs one of these, or a
# modal, "get to", "is/are allowed to" (review finding 5 of issue 11)
_GATED = re.compile(
    r"^(?:merge|deploy|redeploy|approve|sign|tag|release|publish|push|force-push|cut|ship|delete|remove|purge|drop|access|"
    r"touch|edit|modify|change|commit|restart|reboot|rollback|revert|withdraw|export|import|grant|revoke|issue|close|reopen|"
    r"rotate|provision|promote|override|bypass|authori[sz]e|review|upload|install|configure|invite|ban|refund|assign|create|"
    r"archive|unlock|disable|enable|truncate|migrate|sudo)(?:e?s)?$"
)
_ALLOWED = re.compile(r"^(?:allowed|permitted|authori[sz]ed|entitled|cleared|supposed)$")
_OF = re.compile(r"^(?:of|on|in|from|at|with|for|under|inside|within|the|a|an|our|your|their|its)$")


def _past(word: str) -> bool:
    """``word`` is a past form: "-ed" (not "-eed": "proceed", "need", "seed" are base forms) or an irregular one."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and ((w.endswith("ed") and not w.endswith("eed")) or bool(_PAST.match(w)))


def _s_form(word: str) -> bool:
    """``word`` ends like a third-person form or a plural ("-s", but not "-ss", "-us", "-is": "pass", "focus" are base
    forms)."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and w.endswith("s") and not w.endswith(("ss", "us", "is"))


def _finite(word: str) -> bool:
    """``word`` ends like a past, a third-person form or a plural ("shows", "crashed", "went", "admins"), or in "-ing"."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and (_past(w) or _s_form(w) or w.endswith("ing"))


def _base_verb(word: str) -> bool:
    """``word`` may be a verb in its base form ("deploy", "use", "pass"), not a past or third-person form."""
    w = word.lower().strip(",;:.!?")
    return w.isalpha() and not _NOT_VERB.match(w) and not _finite(w)


def _subject_role(words: list[str]) -> tuple[str, str] | None:
    """The two words after a subject that names a role or a group at the head of ``words`` (the subject's own
    phrase "of the billing group", "on the release team", "in <v>" skipped), or ``None`` when the words open with
    no such subject."""
    i, role = 0, False
    while i < min(len(words), 10):
        w = words[i].lower().strip(",;:.!?")
        if w != words[i].lower():  # a clause break inside the subject
            return None
        if _AGENT.match(w):
            role = True
        elif role and (_OF.match(w) or w == "<v>" or words[i][:1].isupper()):
            pass  # the role's own phrase: "members of the <v> group", "engineers in <v>"
        elif role and i >= 1 and _OF.match(words[i - 1].lower()) and i + 1 < len(words) and _AGENT.match(words[i + 1].lower().strip(",;:.!?")):
            pass  # a word before a role inside that phrase: "on the release team"
        elif role and any(_OF.match(p.lower()) for p in words[1:i]) and not _grants(w) and any(_grants(n.lower()) for n in words[i + 1 : 10]):
            pass  # a word of that phrase before what the role is granted: "contractors with a badge should …", "in the night shift"
        elif role:
            return w, (words[i + 1].lower() if i + 1 < len(words) else "")
        elif _past(w) or _MODAL.match(w) or w.endswith("ing") or not (_OF.match(w) or w.isalpha()):
            return None  # a verb (or a value) before any role: the role is no subject
        i += 1
    return None


def _grants(word: str) -> bool:
    """``word`` can open what a role is granted: a modal, "get(s)", "is/are" (before "allowed to") or a gated act."""
    return bool(_MODAL.match(word) or _GATED.match(word)) or word in ("get", "gets", "is", "are")


def _acts(verb: str, after: str) -> bool:
    """``verb`` (and the word ``after`` it), said of a role, grants or gates: a modal, "get(s) to", "is/are allowed
    to", or a present form of an act the team's work gates ("merge", "tags", "pushes"). Any other verb — a past, an
    "-ing", a copula, a state, an adverb ("ever"), a verb of what the role happens to do ("run Linux", "complain") —
    describes."""
    if _MODAL.match(verb) or (verb in ("get", "gets") and after == "to") or (verb in ("is", "are") and _ALLOWED.match(after)):
        return True
    return bool(_GATED.match(verb))


def agent_fence(words: list[str]) -> bool | None:
    """``words`` (what follows an opening "only") name a role or a group and then what it does, in a present or modal
    form: "admins merge to main", "the release manager tags releases", "people on the release team merge …",
    "maintainers get to cut a release", "members of the billing group can issue refunds" — a policy of who may act.
    False for any other verb after the subject ("admins merged it", "admins see the banner", "admins were online",
    "engineers in Berlin run Linux"); ``None`` when the subject is no role ("Firefox shows the bug", "integration tests
    fail")."""
    got = _subject_role(words)
    return None if got is None else _acts(*got)


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
        # the database …"); the suffix of a plural or third person is no test here (finding 6). A role or a group and
        # what it does is a policy ("Only admins merge …", "Only the release manager tags …": agent_fence); a name
        # ("Only Firefox shows …") or another word followed by a verb of its own is a subject; a past form describes.
        role = agent_fence(words[1:])
        if role is not None:
            return role
        w1 = words[1].strip(",;:.!?")
        nxt = words[2] if len(words) > 2 else ""
        # a plural first word with a word after it that is not a function word is a subject and its verb ("Only
        # interns' builds …", "Only tests fail …"); "Only rotate keys …" is a verb and its object (a singular subject with no determiner, "Only
        # prod runs …", reads as a directive: a known miss of this reading)
        follows = not nxt or bool(_NOT_VERB.match(nxt.strip(",;:.!?"))) or not nxt[:1].isalpha() or not _s_form(w1)
        return w1.isalpha() and w1.islower() and not _NOT_VERB.match(w1) and not _past(w1) and not w1.endswith("ing") and follows
    # an imperative: a verb in its base form first, and no finite verb after it ("Firefox only shows …" has one)
    rest = [w for w in words[1:] if w.lower() != "only"]
    return bool(words) and _base_verb(words[0]) and not (rest and _finite(rest[0]))
