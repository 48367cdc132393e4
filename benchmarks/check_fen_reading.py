"""The ``fen`` checker's own reading of the text (``check_family_fen.py``): which kind a sentence states,
whether a sentence is the form the ground truth records, and whether every line the user typed is either a
recorded plant, a bare reference or one of the family's known non-binding lines.

It renders the family's sentence templates (``memory_fen_text``) with each plant's own noun and values and
compares them with the messages: it trusts no kind, form or coverage the generator recorded.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

import memory_fen_text as T
from memory_family_fen import FenPlant, FenSession
from memory_fen_text import Situation, Subject

_WILD = "(.+?)"


def situation(g: FenSession) -> Situation:
    return next(s for s in T.SITUATIONS if s.key == g.situation)


def subject(g: FenSession, p: FenPlant) -> Subject | None:
    key = p.subject.split(".", 1)[1] if p.subject.startswith(f"{g.situation}.") else ""
    return next((s for s in situation(g).subjects if s.key == key), None)


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _fill(tpl: str, noun: str, v: str, o: str = "") -> str:
    return tpl.format(n=noun, N=_cap(noun), v=v, o=o, g=v, V=v)


def first_kinds(g: FenSession, p: FenPlant) -> set[str]:
    """The kinds whose first-statement templates, filled with ``p``'s noun and first value, give ``p``'s first sentence."""
    text, v, n = p.texts[0], p.said[0], p.noun
    sub = subject(g, p)
    rule = sub.rule.format(v=v, n=n) if sub is not None and sub.rule and "{v}" in sub.rule and not sub.rule.startswith("{n}") else None
    forms: dict[str, set[str]] = {
        "goal": {_fill(t, n, v) for t in T.GOAL},
        "safety": {t.format(r=rule) for t in (*T.SAFETY.values(), T.LIST_SAFETY)} if rule else set(),
        "constraint": {_fill(t, n, v) for t in (*T.CONSTRAINT.values(), T.LIST_CONSTRAINT)},
        "preference": {_fill(t, n, v) for t in T.PREFERENCE.values()},
        "fact": {_fill(t, n, v) for t in T.FACT.values()},
    }
    return {k for k, texts in forms.items() if text in texts}


def change_texts(p: FenPlant, k: int, partner: FenPlant | None, pk: int) -> set[str]:
    """Every sentence that states ``p``'s change k (k ≥ 1) in its recorded form; ``partner``/``pk``: the other
    change of a ``two`` sentence."""
    form, v, o, n = p.forms[k], p.said[k], p.said[k - 1], p.noun
    if p.kind == "goal":
        return {t.format(o=o, v=v) for t in T.GOAL_RESCOPE} if form == "rescope" else set()
    if p.kind == "safety":
        return {t.format(ref=p.ref, v=v, o=o) for t in T.SAFETY_UPDATE} if form == "safety" and p.ref else set()
    limit = p.kind == "constraint"
    if form == "split":
        return {_fill(t, n, v) for t in T.SPLIT_2}
    if form == "restate":
        return {_fill(t, n, v) for t in (T.RESTATE_LIMIT if limit else T.RESTATE)}
    if form == "two":
        if partner is None:
            return set()
        c1 = T.CLAUSE["constraint" if limit else "other"].format(n=n, v=v)
        c2 = T.CLAUSE["constraint" if partner.kind == "constraint" else "other"].format(n=partner.noun, v=partner.said[pk])
        return {t.format(C1=_cap(a), c1=a, c2=b) for t in T.TWO for a, b in ((c1, c2), (c2, c1))}
    if limit:
        return {_fill(T.UPDATE_LIMIT[form], n, v, o)} if form in T.UPDATE_LIMIT else set()
    if form not in T.UPDATE or (p.kind == "preference" and form in ("bumped", "lowered")):
        return set()
    if form in ("bumped", "lowered"):
        try:
            if T.change_form("bumped", o, v) != form:
                return set()  # "bumped up" to a lower value, "taken down" to a higher one
        except ValueError:
            return set()
    return {_fill(T.UPDATE[form], n, v, o)}


def _rx(tpl: str, fixed: dict[str, Iterable[str]], raw: dict[str, str] | None = None) -> str:
    """``tpl`` as a regex: each placeholder one of ``fixed``'s strings, ``raw``'s regex, or anything."""
    out = []
    for lit, name, _, _ in string.Formatter().parse(tpl):
        out.append(re.escape(lit))
        if name is not None:
            opts = fixed.get(name)
            out.append("(?:" + "|".join(re.escape(x) for x in opts) + ")" if opts else (raw or {}).get(name, _WILD))
    return "".join(out)


def _one_of(rxs: Iterable[str]) -> re.Pattern[str]:
    return re.compile("^(?:" + "|".join(f"(?:{r})" for r in rxs) + ")$")


def non_binding(g: FenSession, plants: list[FenPlant]) -> re.Pattern[str]:
    """One line of the user's that states nothing to keep: chatter, tasks, questions, other things' values,
    hypotheticals, colleagues' rules, bare references, retractions, the "not O" half of a split, leads."""
    sit = situation(g)
    nouns = [p.noun for p in plants if p.kind != "goal"]
    limits = [p.noun for p in plants if p.kind == "constraint"]
    rest = [p.noun for p in plants if p.kind not in ("goal", "constraint")]
    refs = [p.ref for p in plants if p.kind == "safety" and p.ref]
    rxs = [re.escape(x) for x in (*T.CHATTER, *T.LIST_LEAD, *T.LOG_LEAD, *T.DOCS_LEAD, *T.SPEC_LINES, T.SPEC_LEAD, "Requirements:",
                                  f"## {sit.key} work: requirements")]
    rxs += [_rx("Next, {t}.", {"t": sit.tasks})]
    rxs += [_rx(t, {"n": rest}) for t in T.QUESTION] + [_rx(t, {"n": limits}) for t in T.QUESTION_LIMIT]
    rxs += [_rx(t, {"s": [name for name, _ in sit.others]}) for t in T.OTHER]
    rxs += [_rx(t, {"n": nouns}) for t in T.HYPOTHETICAL]
    rule = "(?:" + "|".join(_rx(x, {}) for x in sit.colleague_rules) + ")"
    rxs += [_rx(t, {"c": T.COLLEAGUES}, {"x": rule}) for t in T.COLLEAGUE]
    rxs += [_rx(t, {"ref": refs}) for t in T.REFER] + [_rx(t, {"n": nouns}) for t in (*T.RETRACT, *T.SPLIT_1)]
    return _one_of(rxs)



def docs_rule(g: FenSession, plants: list[FenPlant]) -> re.Pattern[str]:
    """The pasted docs' rule line, naming a planted subject with one of the session's trap values."""
    nouns = [p.noun for p in plants if p.kind != "goal"]
    return _one_of(_rx(t, {"n": nouns, "w": g.traps or ["\0"]}) for t in T.DOCS_RULE.values())


def gives_value(g: FenSession, p: FenPlant, line: str) -> bool:
    """``line`` states a value for ``p``'s subject (any value): a first statement, an update, a restatement or
    one half of a ``two`` sentence."""
    n = p.noun
    if p.kind == "goal":
        return bool(_one_of(_rx(t, {}) for t in (*T.GOAL, *T.GOAL_RESCOPE)).match(line))
    if p.kind == "safety":
        sub = subject(g, p)
        rxs = [_rx(t, {"ref": [p.ref]}) for t in T.SAFETY_UPDATE] if p.ref else []
        if sub is not None:
            rule = _rx(sub.rule, {"n": [n]})
            rxs += [_rx(t, {}, {"r": rule}) for t in (*T.SAFETY.values(), T.LIST_SAFETY)]
        return bool(rxs) and bool(_one_of(rxs).match(line))
    whole = (*T.FACT.values(), *T.CONSTRAINT.values(), *T.PREFERENCE.values(), T.LIST_CONSTRAINT, *T.UPDATE.values(),
             *T.UPDATE_LIMIT.values(), *T.RESTATE, *T.RESTATE_LIMIT)
    if _one_of(_rx(t, {"n": [n], "N": [_cap(n)]}) for t in whole).match(line):
        return True
    clause = "|".join(_rx(c, {"n": [n]}) for c in T.CLAUSE.values())
    return bool(re.search(rf"(?:^|[\s:,])(?:{clause}|{_rx(T.CLAUSE['other'], {'n': [_cap(n)]})})(?:[,.]|\s+and\s)", line))


def withdrawal(p: FenPlant) -> re.Pattern[str]:
    """A line withdrawing ``p``'s value in force ("forget what I said about X", "not O for X"): it is stale from there."""
    return _one_of(_rx(t, {"n": [p.noun]}) for t in (*T.RETRACT, *T.SPLIT_1))
