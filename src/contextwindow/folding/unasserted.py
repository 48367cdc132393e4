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
never to exceed V for the X; ignore that, it's not our policy" had replaced the rule in force): the sentence reports a
third party ("X says / keeps telling / wants", "apparently") and disowns what it reports ("ignore that", "not our
policy", "their wish, not a rule", "doesn't apply here"), or the sentence right after does so and nothing else ("We never
agreed to that.", "Ignore that."); a sentence that agrees with what it reports ("… and I agree") is not disowned.

Only the supposed or reported clauses go (review rledger: whole sentences had gone, and with them the rules beside the
aside: "Suppose the import fails: never rerun it against V", "Never run migrations on V, even if someone ever asks,
because it would break billing"): a clause holding an order (a negated imperative, an imperative) that reports nobody
is kept, and so is everything after it in a supposed sentence; the if-ever consequence is only the clause right after
the condition ("even if" concedes, it supposes nothing). :func:`held` says how many clauses it dropped: the ledger counts
them (ledger.unasserted_clauses), a drop is never silent.
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


# a clause ends at ; : ? — or a comma; a comma inside a number ("$8,000") does not end one
_PARTS = re.compile(r"(?<=[;:?])\s+|\s+[\u2014\u2013]\s+|\s+-\s+|(?<=,)\s+")
# a clause that is an order: a negated imperative ("never X", "don't X", "no one may X") or an imperative of a rule
_ORDER = re.compile(r"^(?:please\s+|just\s+|then\s+|so\s+|but\s+|and\s+)*(?:never|don't|dont|do\s+not|always|(?:no\s+one|nobody|no-one)\s+(?:may|should|must)|"
                    r"keep|make\s+sure|be\s+sure|ask|page|call|stop|use|stay|leave|treat|only)\b", re.IGNORECASE)
_NOT_A_CONSEQUENCE = re.compile(r"^(?:because|since|as|so|which|and|but|though|although)\b", re.IGNORECASE)
_EVEN_IF = re.compile(r"\beven\s+if\b", re.IGNORECASE)


def _parts(sentence: str) -> list[str]:
    """``sentence`` cut into its clauses, each with its own punctuation (joined by " " they give it back)."""
    return [p for p in _PARTS.split(sentence) if p]


def _order(part: str) -> bool:
    return _ORDER.match(_LEAD.sub("", part)) is not None


def _conditional(part: str) -> bool:
    return _CONDITIONAL.search(part) is not None and not _order(part)


def _supposed_parts(parts: list[str]) -> set[int]:
    """Indices of the clauses of a sentence that only suppose (see the module's docstring)."""
    first = _LEAD.sub("", parts[0])
    if _SUPPOSED.match(first) or _DECIDES_NOTHING.search(" ".join(parts)):
        # the supposing clauses up to the first order: "Suppose the import fails: never rerun it against V" keeps the order
        orders = [k for k, p in enumerate(parts) if _order(p)]
        return set(range(orders[0] if orders else len(parts)))
    for k, p in enumerate(parts):
        m = _EVER_IF.search(p)
        if m is None or _EVEN_IF.search(p):
            continue
        before = p[: m.start()].strip()
        if before and re.search(r"\w", before):  # "We'd Y if we ever X": the main clause is in the same clause
            if _conditional(before):
                return {k}
            continue
        after = parts[k + 1] if k + 1 < len(parts) else ""
        if after and not _NOT_A_CONSEQUENCE.match(_LEAD.sub("", after)) and _conditional(after):
            return {k, k + 1}
    return set()


def entertains(sentence: str) -> bool:
    """``sentence`` supposes a value without stating it, in some clause of it (see the module's docstring)."""
    return bool(_supposed_parts(_parts(sentence)))


_DISOWN = (r"ignore\s+(?:that|it|this|them|him|her)|(?:that's|that\s+is|it's|it\s+is)\s+not\s+(?:our|my|the\s+team's|a)\s+"
           r"(?:policy|rule|call|decision|requirement)|not\s+(?:a|our)\s+rule|(?:their|his|her)\s+(?:wish|opinion|preference|idea|rule)|"
           r"we\s+never\s+agreed(?:\s+to\s+(?:that|it|this))?|nobody\s+agreed(?:\s+to\s+(?:that|it|this))?|"
           r"(?:doesn't|does\s+not|don't|do\s+not)\s+apply\s+(?:to\s+us|here)")
_DISOWNS = re.compile(rf"\b(?:{_DISOWN})\b", re.IGNORECASE)
_ONLY_DISOWNS = re.compile(rf"^[\s\"'(*_]*(?:(?:but|and|so|well|honestly)\b[\s,]*)?(?:{_DISOWN})\b[^.!?]{{0,30}}[.!]?\s*$", re.IGNORECASE)
# a third party reported: "Bob keeps telling people …", "The auditor said …", "Marketing wants …", "Apparently …"
_SAYING = (r"says?|said|saying|keeps?\s+(?:telling|saying|asking|insisting|pushing)|wants?|wanted|would\s+like|thinks?|"
           r"suggest(?:s|ed)?|insists?|insisted|claims?|claimed|proposed?|asked\s+for|told\s+(?:me|us|people|everyone|the\s+team)")
_REPORTS = re.compile(rf"\b(?:apparently|reportedly|according\s+to|rumou?r)\b|(?<![\w'])(?!(?:I|we|you)\b)[A-Za-z][\w'-]*\s+(?:{_SAYING})\b", re.IGNORECASE)
_AGREES = re.compile(r"\b(?:I|we)\s+(?:fully\s+|also\s+|do\s+)?(?:agree|agreed|concur)\b|\b(?:is|are)\s+right\b|\bwe\s+(?:adopted|accepted)\s+(?:it|that|this)\b", re.IGNORECASE)


def _reports(part: str) -> bool:
    return any(not re.fullmatch(r"(?i:I|we|you)", m.group(0).split()[0]) for m in _REPORTS.finditer(part))


def disowned(sentence: str, after: str = "") -> bool:
    """``sentence`` reports a third party's rule the person disowns, in its own words or in the sentence ``after`` it
    (see the module's docstring)."""
    if not _reports(sentence) or _AGREES.search(sentence):
        return False
    return _DISOWNS.search(sentence) is not None or _ONLY_DISOWNS.match(after) is not None


# a word without which no clause of a text supposes or disowns (a cheap first test: most messages have none)
_CUE = re.compile(r"\b(?:hypothetically|theoretically|theory|suppos\w*|imagine|what\s+if|world|ideally|ever|planned|plans?|decision|decided|"
                  r"nothing|curious|musing|thinking|ignore|policy|rule|call|requirement|wish|opinion|preference|idea|agreed|apply)\b", re.IGNORECASE)


def may_state_nothing(text: str) -> bool:
    """Whether any clause of ``text`` may state nothing (False: :func:`held` keeps every sentence of it whole)."""
    return _CUE.search(text) is not None


def held(sentence: str, after: str = "") -> tuple[str, int]:
    """(what ``sentence`` states, the number of its clauses dropped as stating nothing): the supposed clauses, or in a
    sentence that reports a rule disowned every clause but an order that reports nobody (see the module's docstring)."""
    parts = _parts(sentence)
    gone = _supposed_parts(parts)
    if disowned(sentence, after):
        gone |= {k for k, p in enumerate(parts) if _reports(p) or not _order(p)}
    if not gone:
        return sentence, 0
    return " ".join(p for k, p in enumerate(parts) if k not in gone), len(gone)
