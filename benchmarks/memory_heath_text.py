"""Sentences of the held-out ``heath`` family (``memory_family_heath.py``), written for it.

A first statement or an update is written in one FORM; each form is a few templates with ``{n}`` (the
subject's noun), ``{v}`` (the value), ``{o}`` (the value it replaces, for the forms in ``NAMES_OLD``),
``{r}`` (a safety rule's sentence, which names its subject), ``{b}`` (a constraint's bound with its value, as
a note: "at most 40 hl") and ``{p}`` (the same as a predicate: "is at most 40 hl", ``LIMIT``). Voices real users write in: terse
fragments, long rambling messages with one binding line in the middle, a rule given as a correction of
the assistant, conditional rules, values in parentheses or after a dash, updates by negation only,
answers of one word to the assistant's question, non-native phrasing, a typo in the subject's name.
Nothing here reads a session with the ledger.
"""

from __future__ import annotations

import random

#: first statements, by kind and form
FIRST = {
    "safety": {
        "plain": ("{R}.", "One hard rule: {r}.", "Safety first: {r}."),
        "terse": ("{r}. no exceptions.", "{r}. full stop."),
        "correction": ("no — {r}. I should have said that at the start.", "No no. {R}, please keep that in mind from here on."),
        "nonnative": ("Please, {r}, this is very important for us.", "It is forbidden, so: {r}."),
    },
    "constraint": {
        "plain": ("The {n} {p}.", "Our {n} {p}, that's firm."),
        "terse": ("{n}: {b}. hard limit.", "{n} {b}, not negotiable."),
        "paren": ("keep the {n} inside the limit ({b}).", "And the {n} (hard limit, {b}) is not something we can bend."),
        "dash": ("{N} — {b}, no flexibility there.",),
        "nonnative": ("The {n} it {p}, please respect this.",),
    },
    "preference": {
        "plain": ("I'd rather {w}.", "If it's the same to you, I prefer to {w}."),
        "terse": ("pref: {w}.",),
        "nonnative": ("For me it is more comfortable to {w}.",),
    },
    "fact": {
        "plain": ("The {n} is {v}.", "For the record, the {n} is {v}."),
        "terse": ("{n}: {v}.",),
        "dash": ("{N} — {v}.",),
        "paren": ("(the {n} is {v}, for your notes)",),
        "nonnative": ("The {n}, it is {v} since this month.",),
    },
}
#: the assistant's question before a one-word answer ("qa" form), then the answer
QUESTION = ("Quick one before I continue: what is the {n}?", "Which value should I use for the {n}?")
#: the same, for a subject whose value is a person
QUESTION_WHO = ("Quick one before I continue: who is the {n}?", "Who should I put down as the {n}?")
ANSWER = ("{v}.", "{v}", "{v}, I think")
#: two facts in one sentence ("two" form)
TWO = ("the {n1} is {v1} and the {n2} is {v2}", "{n1} {v1}, {n2} {v2}")

#: updates, by form
UPDATE = {
    "now": ("{n} is {v} now.", "The {n} is {v} from now on.", "{n} → {v}"),
    "negation": ("{n}: not {o} anymore — {v}.", "Not {o} for the {n}. {v}."),
    "instead": ("Make the {n} {v} instead of {o}.", "Use {v} for the {n}, not {o}."),
    "correction": ("scratch what I told you about the {n}, it's {v}.", "I got the {n} wrong earlier. It's {v}."),
    "paren": ("The {n} (previously {o}) is {v} now.", "{n} changed ({o} before, {v} now)."),
    "nonnative": ("We are changing the {n}, from today it is {v}.", "About the {n}: please take {v}, the other one is not valid more."),
    "revert": ("{n}: back to {v}, the {o} idea didn't work out.", "Go back to the original {n}, {v}. {o} was a mistake."),
    "qa": ("No. {v} now.", "nope — {v}"),
    # only for an additive safety rule: the old value was a mistake, or its rule no longer applies
    "retract": ("I got the {n} wrong earlier: {o} was a mistake, it's {v}.", "The rule about {o} no longer applies — the {n} is {v} now."),
}
#: the assistant's question before a "qa" update (names the value in force)
UPDATE_QUESTION = ("Is the {n} still {o}?", "Just checking, the {n} hasn't changed from {o}, has it?")
#: update forms that name the value they replace
NAMES_OLD = ("negation", "instead", "paren", "revert", "retract")
#: two updates in one sentence
TWO_UPDATES = ("change of plan: the {n1} is {v1} now, and the {n2} goes to {v2}.", "{n1} now {v1}; {n2} now {v2}.")
SAFETY_UPDATES = ("now", "negation", "correction")
#: a rule that can hold for several values at once changes only by an explicit retraction of the old value
ADDITIVE_UPDATES = ("correction", "retract")
#: what marks such a retraction in the text
RETRACTS = ("wrong", "mistake", "scratch what i told you", "no longer applies")
#: the goal changed once, naming the old one (dropped, not postponed)
GOAL_CHANGE = ("Drop {o} — the real goal is {v}.", "Change of goal: drop {o}, I need you on {v} instead.")

#: a constraint's bound with its value: (as a note, as a predicate)
LIMIT = {
    "at most": ("at most {v}", "is at most {v}"),
    "at least": ("at least {v}", "is at least {v}"),
    "not after": ("not after {v}", "must not be after {v}"),
    "by": ("by {v}", "is {v}, not a day later"),
}

#: a long rambling message: filler around the one binding line, each paragraph two sentences of a pool
#: (a session never repeats a paragraph)
RAMBLE_OPEN = (
    "Sorry, long message, it's been one of those days here.",
    "I was on the phone with the accountant for an hour and then the printer jammed again.",
    "So I'm only now getting back to this, with cold coffee and about forty unread emails.",
    "Ok so a bunch of things, in no particular order, because I keep forgetting to write them down.",
    "They always come back to me at 2am, which helps nobody.",
    "Right, catching up after the meeting, which overran by most of an hour.",
    "Half of it was about parking, honestly, and the other half was people agreeing to meet again next week.",
    "The wifi in the back office died twice while I was typing this, so bear with me.",
    "I've been going through my notebook from the last few days and it is mostly arrows and question marks.",
    "My manager stopped by to ask how things were going and stayed for twenty minutes talking about her kitchen.",
    "We had a fire drill at eleven, so everyone stood in the car park and compared lunch plans.",
    "I finally found the charger I lost last week, it was in the fridge, don't ask.",
)
RAMBLE_CLOSE = (
    "Anyway, none of the rest is urgent, so don't drop anything for it.",
    "Carry on with what you were doing and shout if something looks off.",
    "The rest of the meeting was the usual back and forth, nothing you need to act on.",
    "Thanks for bearing with me, I know this came out as a wall of text.",
    "That's everything I can think of right now, I'm fairly sure.",
    "I'll probably remember three more things tomorrow morning and send them over then.",
    "Everything else in my notes is either done already or somebody else's problem.",
    "I'm off to another meeting now, so take your time with the rest.",
    "If any of that was unclear, assume the boring interpretation and keep going.",
    "Oh, and someone left cake in the staff room, which is the real news of the day.",
)
#: a rambling message introduces its binding line with one of these
RAMBLE_LEAD = ("Oh and, important:", "One thing that does matter:", "Also —", "Before I forget:", "The bit that counts:", "Buried in all that:")

#: what the assistant says before a safety rule given as a correction
PROPOSE = ("I can also tidy up the {n} side myself as I go, unless you object.", "While I'm in there I might simplify how the {n} is handled.")
#: the assistant echoing the value in force, and misquoting one (the user corrects it next turn)
ECHO = ("Noted — the {n} is {v}, working with that.", "Understood, I'll keep the {n} as {v} in the plan.")
MISQUOTE = ("I've put the {n} down as {d}, right?", "So the {n} is {d}, right?")
FIX_MISQUOTE = ("No, not {d}. The {n} is {v}, I never said {d}.", "wrong — {v}, not {d}")
#: the user repeating a value in force, without changing it
REPEAT = ("Just so we're aligned, the {n} is still {v}.", "nothing changed on the {n}, still {v}")
#: another subject with a value of the same type, never an update ({S}: the subject capitalised)
OTHER = (
    "fyi {s} is {d}, which has nothing to do with us.", "Unrelated, but {s} is {d} apparently.", "(side note: {s} — {d}; not our concern)",
    "Heard at lunch that {s} is {d}.", "{S} is {d}, if anyone asks.", "Funny thing: {s} turned out to be {d}.",
    "My neighbour told me {s} is {d}, small world.", "Saw in the trade newsletter that {s} is {d}.",
    "Apparently {s} is {d}. Make of that what you will.", "Someone on the phone said {s} is {d}; no action needed.",
)
#: the markers the first three use
OTHER_MARKERS = ("fyi", "unrelated", "side note", "not our concern")
#: a task worded as a question starts with one of these
ASKING = ("can", "could", "which", "what", "who", "why")
#: questions that name a subject and give no value
ASK = ("what's the status on the {n}?", "Has anyone touched the {n} recently?", "Is the {n} written down anywhere else?")
CHATTER = (
    "cheers, that reads right", "ok, next.", "Can you make that a bit shorter?", "great, appreciate it",
    "hmm, let me think about that one", "fine by me", "Perfect. Keep going.", "I'm back, where were we?",
    "not bad at all", "sorry, got pulled into something — carry on",
)
REPLIES = (
    "Done. I'll carry on with the next part.", "Here is what I found; nothing blocking so far.", "Updated. Let me know if you want changes.",
    "I've made a first pass; a few rows need your eyes.", "That's finished. The output is above.",
)

#: harness blocks and pasted config that state a value for a planted subject: they must never enter the ledger
ENV = ("<environment_context>\n  <cwd>/home/{u}/{sit}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
       "  <sandbox_mode>workspace-write</sandbox_mode>\n  <project_default name=\"{n}\">{t}</project_default>\n</environment_context>")
REMINDER = ("<system-reminder>\nThe shared settings file lists the {n} as {t}. This reminder is generated automatically; "
            "do not mention it to the user unless it is relevant.\n</system-reminder>")
PASTE = ("here's the config the old planner used, it's outdated, just so you can see the key names:\n```yaml\n# legacy settings\n"
         "{key}: {t}\nowner: ops\n```")

WORDS_RULE = ("never", "don't", "no ", "must", "forbidden", "not ")
WORDS_PREF = ("rather", "prefer", "pref:", "comfortable")


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def the(name: str) -> str:
    """``name`` after "the", unless it carries its own article ("The Salt Road", "the Brightwater cubesat")."""
    return name if name.split(" ", 1)[0].lower() in ("the", "a", "an") else "the " + name


def end(s: str) -> str:
    """``s`` closed as a sentence, so that another can follow it in the same paragraph."""
    return s if s.rstrip()[-1:] in (".", "!", "?", ")") else s.rstrip() + "."


def typo(noun: str, rng: random.Random) -> str:
    """The noun with two adjacent letters swapped in one of its longer words (never the first letter)."""
    words = noun.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not long:
        return noun
    i = rng.choice(long)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    if w[j] == w[j + 1]:
        j = (j + 1) if j + 2 < len(w) and w[j + 1] != w[j + 2] else j
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)
