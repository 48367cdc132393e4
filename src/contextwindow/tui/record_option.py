"""One row of a conversation's record (a fold, a turn, or a segment header) as a selectable option;
shared by the curation browser (``ctxw tui``) and the chat's ``/context`` screen."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from textual.content import Content
from textual.widgets.option_list import Option

from . import view

MARK_ON, MARK_OFF = "●", "○"


def record_prompt(key: str, labels: Mapping[str, str], turns: Collection[int], folds: Collection[int]) -> Content:
    """The label of row ``key`` ("turn:N" / "fold:N") with its selection mark; folds stand out."""
    kind, _, n = key.partition(":")
    on = int(n) in (turns if kind == "turn" else folds)
    mark = (MARK_ON, "bold $accent") if on else (MARK_OFF, "dim")
    text = labels[key]
    body = (text, "bold $warning") if kind == "fold" else text
    indent = "   " if kind == "turn" else ""
    return Content.assemble(indent, mark, " ", body)


def record_option(row: view.Row, labels: Mapping[str, str], turns: Collection[int], folds: Collection[int]) -> Option:
    if row.kind == "header":
        return Option(Content.styled(row.text, "dim italic"), id=row.key, disabled=True)
    return Option(record_prompt(row.key, labels, turns, folds), id=row.key)
