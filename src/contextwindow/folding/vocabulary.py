"""The ledger's shared words: verbs of change, correction cues, words of a relative value, and the
attribute nouns a thing's bound is named by. Data only, read by ``subjects.py`` (stop words),
``reading.py`` (deltas and results), ``relations.py`` (leads, change relations), ``corrections.py``
(leads, filler) and ``supersession.py`` (update cues), so that a word added here counts everywhere.

Before this module each of those kept its own list with small differences ("drops" was a verb of
change for the delta reader and a content word of the subject; "that leaves V" said a result
nowhere; "slid" was an update cue but no change relation). A verb of change says how a value moved,
never what it is about.
"""

from __future__ import annotations

import re

# --- verbs of change ------------------------------------------------------------------------------
#: lemma → its irregular forms (past, participle); regular ones are made by ``_regular``
_IRREGULAR = {
    "cut": ("cut", "cutting"), "grow": ("grew", "grown"), "rise": ("rose", "risen"), "fall": ("fell", "fallen"),
    "slide": ("slid",), "shrink": ("shrank", "shrunk"), "go": ("went", "gone"), "take": ("took", "taken"), "give": ("gave", "given"),
    "bring": ("brought",), "hold": ("held",), "set": ("set", "setting"),
}
#: how a value moves: said of a limit, a date, a size, a count ("slipped to", "drops by 2 to 42", "was eased to")
CHANGE_LEMMAS = (
    "move", "slip", "shift", "push", "pull", "bump", "change", "switch", "raise", "lower", "increase", "decrease", "reduce",
    "drop", "cut", "extend", "shorten", "lengthen", "postpone", "delay", "reschedule", "update", "adjust", "revise", "lift",
    "ease", "relax", "loosen", "tighten", "trim", "expand", "widen", "narrow", "shrink", "grow", "rise", "fall", "slide", "drift",
    "double", "halve", "up", "bring", "tweak", "modify", "amend", "alter",
)
#: lemmas whose base or -s form is also a common noun of a subject ("push notifications", "the night shift", "a network
#: switch", "the slide deck", "the fall release", "the retry delay", "clock drift"): only their past and -ing forms are never content words
_NOUN_TOO = {"push", "pull", "shift", "switch", "move", "cut", "lift", "slide", "fall", "double", "up", "bring", "set", "go", "take",
             "give", "hold", "delay", "drift"}


def _regular(lemma: str) -> tuple[str, str, str]:
    """(-s, -ed, -ing) of a regular verb."""
    if lemma in _DOUBLE:
        return lemma + "s", lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"  # slip → slipped
    if lemma.endswith("e"):
        return lemma + "s", lemma + "d", lemma[:-1] + "ing"
    if lemma.endswith("y") and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"  # modify → modified
    if lemma.endswith(("sh", "ch", "x", "ss")):
        return lemma + "es", lemma + "ed", lemma + "ing"
    return lemma + "s", lemma + "ed", lemma + "ing"


_DOUBLE = {"slip", "drop", "trim", "up"}


def _forms(lemma: str) -> dict[str, tuple[str, ...]]:
    third, past, ing = _regular(lemma)
    irregular = _IRREGULAR.get(lemma)
    if irregular:
        past_forms: tuple[str, ...] = tuple(f for f in irregular if not f.endswith("ing"))
        ing = next((f for f in irregular if f.endswith("ing")), ing)
    else:
        past_forms = (past,)
    return {"base": (lemma,), "third": (third,), "past": past_forms, "ing": (ing,)}


CHANGE_FORMS: dict[str, dict[str, tuple[str, ...]]] = {lemma: _forms(lemma) for lemma in CHANGE_LEMMAS}
#: every form of every verb of change
CHANGE_WORDS = frozenset(f for forms in CHANGE_FORMS.values() for group in forms.values() for f in group)
#: the past forms ("slipped", "rose", "was eased"): a statement that something changed
CHANGE_PAST = frozenset(f for forms in CHANGE_FORMS.values() for f in forms["past"])
#: forms that are never a content word of a subject (a verb that is a noun too keeps its base and -s forms)
CHANGE_NOT_SUBJECT = frozenset(
    f for lemma, forms in CHANGE_FORMS.items() for kind, group in forms.items() for f in group
    if lemma not in _NOUN_TOO or (kind in ("past", "ing") and f != lemma)  # "the release cut" keeps its noun
)


def alternation(words: frozenset[str] | set[str] | tuple[str, ...]) -> str:
    """A regex alternation of ``words``, longest first (no group, no anchors)."""
    return "|".join(sorted((w.replace(" ", r"\s+") for w in words), key=lambda w: (-len(w), w)))


#: any form of a verb of change, as a regex alternation
CHANGE_VERB = alternation(CHANGE_WORDS)
#: a past form (or participle) of a verb of change, as a regex alternation
CHANGE_PAST_VERB = alternation(CHANGE_PAST)
#: the -s form of a verb of change ("the cap drops by 2 to 42"), as a regex alternation
CHANGE_THIRD_VERB = alternation(tuple(forms["third"][0] for forms in CHANGE_FORMS.values()))
#: the -ing form ("we're moving to 115 columns"), as a regex alternation
CHANGE_ING_VERB = alternation(tuple(forms["ing"][0] for forms in CHANGE_FORMS.values()))

# --- corrections ----------------------------------------------------------------------------------
#: a lead that says the speaker corrects what they said before ("Scratch that.", "Hold on,", "Hmm, no.", "I misspoke.")
CORRECTION_LEAD = (
    r"scratch that|correction|(?:hold on|hang on|wait)(?=\s*[,.!:;\u2014\u2013-])|(?:hmm+|uh+|um+|ah+),?\s+no|no,?\s+wait|actually,?\s+no|on second thought|"
    r"i misspoke(?:\s+(?:before|earlier|there|above))?|let me correct (?:that|myself)|i stand corrected|my mistake|my bad"
)
#: words that say a statement changes something said before (besides the verbs of change)
UPDATE_WORDS = (
    r"now|instead|anymore|no longer|from now on|going forward|swapped|replaced|upgraded|downgraded|migrated|renamed|rebranded|"
    r"took over|taking over|taken over|new|correction|scratch that|in total|in all|making it|that leaves|which leaves|leaving|"
    r"actually|not the|rather than|after all|went(?: up| down)? to|turned into|became|reassigned|swap to|switch to|handed over|"
    r"switched over|cut over|passed (?:along|on)|handed to|grabbed|picked up|misspoke|was a typo|had it wrong|"
    r"(?:from|as of|starting|effective) (?:today|tomorrow|this week|next week|monday|immediately)"
)


def _update_cue() -> re.Pattern[str]:
    return re.compile(rf"\b(?:{UPDATE_WORDS}|{CHANGE_PAST_VERB}|{CHANGE_THIRD_VERB}|{CHANGE_ING_VERB}|relax|loosen|tighten)\b", re.IGNORECASE)


#: a word that says a statement changes something said before (a verb of change in any form but the base, or an update word)
UPDATE_CUE = _update_cue()
#: a verb of change in any form but the base ("we're moving to V", "X slipped to V")
CHANGE_CUE = re.compile(rf"\b(?:{CHANGE_PAST_VERB}|{CHANGE_THIRD_VERB}|{CHANGE_ING_VERB})\b", re.IGNORECASE)

# --- a relative value that states its result
#: words right before an amount that says how much something moved ("add 2 days", "Take 5 minutes off X", "another $200")
DELTA_LEAD = r"add|added|adding|gained|got|get|give|gave|another|extra|trimmed|cut|knock(?:ed)?|shave[d]?|take|took|taking|subtract(?:ed)?|shaved off|knocked off"

#: words between a change ("drops by 2", "Take 5 minutes off X") and the value it leaves ("to 42", "; that leaves 40")
RESULT_WORDS = (
    r"so|to|making it|making|which makes it|bringing it to|leaving it at|leaving|that leaves|which leaves|leaves|i\.e\.|meaning|"
    r"it's|it is|in total|total|for a total of|that gives|which gives|landing at|landing on|ending up at|for a new total of|"
    r"(?:which|that|this)\s+(?:puts|brings|takes|sets)\s+(?:it|us|them)\s+(?:at|to)|that makes|which makes|that's|that is|now at"
)

# --- attribute nouns ------------------------------------------------------------------------------
#: nouns that name a thing's bound or figure, not a more specific thing ("the tier-2 first-response SLA" is the
#: tier-2 first response's; "the crash-free sessions floor" the crash-free sessions')
BOUND_NOUNS = frozenset({
    "deadline", "date", "budget", "limit", "size", "floor", "target", "length", "count", "timeout", "ceiling", "cap",
    "threshold", "sla", "quota", "window", "maximum", "minimum", "max", "min",
})
#: bound nouns that name the same bound; two subjects whose bound nouns share no class name two bounds of one thing
#: ("the autoscaler minimum" and "the autoscaler maximum", "the error rate floor" and its ceiling, a timeout and a window)
BOUND_CLASS = {
    **dict.fromkeys(("minimum", "min", "floor"), "lower"),
    **dict.fromkeys(("maximum", "max", "ceiling", "cap", "limit", "quota"), "upper"),
    **dict.fromkeys(("deadline", "date"), "date"),
    **dict.fromkeys(("size", "length", "count"), "size"),
    **{w: w for w in ("budget", "target", "timeout", "threshold", "sla", "window")},
}

#: abbreviations a full stop ends without ending the sentence, whatever follows (one source: ``clauses.sentences`` kept
#: two lists that had drifted); dotted forms as written ("e.g"; "i.e")
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "eg", "ie", "etc", "vs", "approx", "no", "nr", "cf", "incl", "esp", "resp", "al", "viz", "ca", "fig", "vol", "ch", "dept",
})
#: titles and times: a capital follows them inside a sentence ("Dr. Okafor", "9 a.m. Monday"); a stop after "ms" before a
#: lower-case word ends "40 ms. my mistake …"
TITLE_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "jr", "sr", "a.m", "p.m"})
#: abbreviations of a measure: inside a sentence before a lower-case word ("max. five"), its end before a capital ("5 min. The …")
MEASURE_ABBREVIATIONS = frozenset({"min", "max", "sec"})
#: words that fence one thing off (``reading``: a safety rule with or without a negation word)
FENCE_WORDS = r"\bhands[- ]off\b|\boff[- ]limits\b"
#: "under no circumstances" negates (``relations._NEG``); with "any" after a negation it fences (``reading._FENCE``)
NO_CIRCUMSTANCES = r"under no circumstances"
