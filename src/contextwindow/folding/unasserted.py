"""Sentences that state nothing the person holds to: a value only supposed, or a rule reported and disowned (pure).

A counterfactual decides nothing: "Hypothetically, the X at V would be nice someday", "In theory the Y
could be V", "If we ever change the X to V, we'd have to redo the alerts", "Suppose the X were V". Read
as statements, they superseded the rule in force with a value nobody chose (brook, review of issue 11:
a hard spending cap replaced by "Hypothetically, … $4,100 would be nice someday"). Read from the
sentence's mood, not from one family's words:

- it opens with a word that frames what follows as supposed (hypothetically, theoretically, in theory,
  suppose, imagine, what if);
- or it is a condition on a future that may never come ("if we ever …", "if … ever …") whose consequence
  is only conditional ("would", "'d", "might", "could"): "If we ever touch prod, ask first" is a rule
  (its consequence is an order) and stays one;
- or it says in so many words that it decides nothing ("not planned", "nothing changes", "not a decision").

A rule someone else holds, reported and disowned, is not the person's rule either (brook: "Bob keeps telling people
never to exceed V for the X; ignore that, it's not our policy" had replaced the rule in force): the sentence disowns
what it reports ("ignore that", "not our policy", "their wish, not a rule", "doesn't apply here"), or the sentence
right after does so and nothing else ("We never agreed to that.", "Ignore that.").
"""

from __future__ import annotations

import re

_LEAD = re.compile(r"^[\s\"'(*_]*(?:(?:ok(?:ay)?|so|and|but|also|just|btw|fwiw)\b[\s,]*)*", re.IGNORECASE)
_SUPPOSED = re.compile(
    r"^(?:hypothetically|theoretically|in\s+theory|purely\s+in\s+theory|suppose|supposing|imagine|what\s+if|in\s+a\s+perfect\s+world|"
    r"in\s+an\s+ideal\s+world|ideally\s+someday)\b",
    re.IGNORECASE,
)
_EVER_IF = re.compile(r"\bif\s+(?:\w+\s+){0,3}?ever\b(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_CONDITIONAL = re.compile(r"(?:\b(?:would|might|could)\b|\w'd\b)", re.IGNORECASE)
_DECIDES_NOTHING = re.compile(
    r"\b(?:not\s+(?:planned|a\s+decision|a\s+plan|decided)|no\s+(?:plans?|decision)\s+(?:yet|here|on\s+that)|"
    r"nothing\s+(?:changes|is\s+changing|changed)\s+(?:now|for\s+now|yet|today)|just\s+(?:curious|thinking\s+out\s+loud|musing))\b",
    re.IGNORECASE,
)


def entertains(sentence: str) -> bool:
    """``sentence`` supposes a value without stating it (see the module's docstring)."""
    s = _LEAD.sub("", sentence)
    if _SUPPOSED.match(s) or _DECIDES_NOTHING.search(s):
        return True
    m = _EVER_IF.search(s)
    if m is None:
        return False
    # the consequence: after the condition's comma ("If we ever X, we'd Y"), or the main clause before it ("We'd Y if we ever X")
    rest = m.group("rest")
    consequence = rest.split(",", 1)[1] if "," in rest else s[: m.start()]
    return _CONDITIONAL.search(consequence) is not None


_DISOWN = (r"ignore\s+(?:that|it|this|them|him|her)|(?:that's|that\s+is|it's|it\s+is)\s+not\s+(?:our|my|the\s+team's|a)\s+"
           r"(?:policy|rule|call|decision|requirement)|not\s+(?:a|our)\s+rule|(?:their|his|her)\s+(?:wish|opinion|preference|idea|rule)|"
           r"we\s+never\s+agreed(?:\s+to\s+(?:that|it|this))?|nobody\s+agreed(?:\s+to\s+(?:that|it|this))?|"
           r"(?:doesn't|does\s+not|don't|do\s+not)\s+apply\s+(?:to\s+us|here)")
_DISOWNS = re.compile(rf"\b(?:{_DISOWN})\b", re.IGNORECASE)
_ONLY_DISOWNS = re.compile(rf"^[\s\"'(*_]*(?:(?:but|and|so|well|honestly)\b[\s,]*)?(?:{_DISOWN})\b[^.!?]{{0,30}}[.!]?\s*$", re.IGNORECASE)


def disowned(sentence: str, after: str = "") -> bool:
    """``sentence`` reports a rule the person disowns, in its own words or in the sentence ``after`` it (see the
    module's docstring)."""
    return _DISOWNS.search(sentence) is not None or _ONLY_DISOWNS.match(after) is not None


def states_nothing(sentence: str, after: str = "") -> bool:
    """``sentence`` only supposes a value or reports a rule disowned: nothing of it enters the ledger."""
    return entertains(sentence) or disowned(sentence, after)
