"""Sentences of the held-out ``heath`` family (``memory_family_heath.py``), written for it.

A first statement or an update is written in one FORM; each form is a few templates with ``{n}`` (the
subject's noun), ``{v}`` (the value), ``{o}`` (the value it replaces, for the forms in ``NAMES_OLD``),
``{r}`` (a safety rule's sentence) and ``{b}`` (a constraint's bound). Voices real users write in: terse
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
        "plain": ("The {n} is {b} {v}.", "We can do {b} {v} for the {n}, that's firm."),
        "terse": ("{n}: {b} {v}. hard limit.", "{n} {b} {v}, not negotiable"),
        "paren": ("keep the {n} inside the limit ({b} {v})", "And the {n} (hard limit, {b} {v}) is not something we can bend."),
        "dash": ("{N} — {b} {v}, no flexibility there.",),
        "nonnative": ("The {n} it must be {b} {v}, please respect this.",),
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
}
#: the assistant's question before a "qa" update (names the value in force)
UPDATE_QUESTION = ("Is the {n} still {o}?", "Just checking, the {n} stays at {o}, yes?")
#: update forms that name the value they replace
NAMES_OLD = ("negation", "instead", "paren", "revert")
#: two updates in one sentence
TWO_UPDATES = ("change of plan: the {n1} is {v1} now, and the {n2} goes to {v2}.", "{n1} now {v1}; {n2} now {v2}.")
SAFETY_UPDATES = ("now", "negation", "correction")
#: the goal changed once, naming the old one
GOAL_CHANGE = ("Forget the {o} for now — the real goal is {v}.", "Change of goal: drop {o}, I need you on {v} instead.")

#: a long rambling message: filler around the one binding line
RAMBLE_OPEN = (
    "Sorry, long message, it's been a day. I was on the phone with the accountant for an hour and then the "
    "printer jammed again, so I'm only now getting back to this.",
    "Ok so a bunch of things, in no particular order, because I keep forgetting to write them down and then "
    "they come back to me at 2am.",
    "Right, catching up after the meeting. Half of it was about parking, honestly, and the other half was "
    "people agreeing to meet again next week to decide things.",
)
RAMBLE_CLOSE = (
    "Anyway, none of the rest is urgent. Carry on with what you were doing and shout if something looks off.",
    "The rest of the meeting was the usual back and forth, nothing you need to act on. Thanks for bearing with me.",
    "That's everything I can think of right now. I'll probably remember three more things tomorrow morning.",
)
#: a rambling message introduces its binding line with one of these
RAMBLE_LEAD = ("Oh and, important:", "One thing that does matter:", "Also —", "Before I forget,")

#: what the assistant says before a safety rule given as a correction
PROPOSE = ("I can also tidy up the {n} side myself as I go, unless you object.", "While I'm in there I might simplify how the {n} is handled.")
#: the assistant echoing the value in force, and misquoting one (the user corrects it next turn)
ECHO = ("Noted — working with the {n} at {v}.", "Understood, I'll keep the {n} as {v} in the plan.")
MISQUOTE = ("I've put the {n} down as {d}, right?", "So the {n} is {d}, right?")
FIX_MISQUOTE = ("No, not {d}. The {n} is {v}, I never said {d}.", "wrong — {v}, not {d}")
#: the user repeating a value in force, without changing it
REPEAT = ("Just so we're aligned, the {n} is still {v}.", "nothing changed on the {n}, still {v}")
#: another subject with a value of the same type, never an update
OTHER = ("fyi {s} is {d}, which has nothing to do with us.", "Unrelated, but {s} is {d} apparently.", "(side note: {s} — {d}; not our concern)")
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
