"""Claude Code ``attachment`` records (2.1.x: a nested CLAUDE.md loaded on a first read, reminders, an @ file…)
are text the model was sent: the importer puts it where the model read it, so the estimate follows the bill
on the step that attached it; kinds whose text the log does not hold are counted as dropped, by kind. On
logs written here (seeded): the bill of each call is the project's count of the same conversation with the
attached text already inside the message the API merged it into."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from contextwindow.importers import load_all
from contextwindow.importers.claude_attachments import ATTACHMENT_MARKER, attachment_text
from contextwindow.importers.claude_code import ATTACHMENT_UNSIZED
from contextwindow.importers.report import import_report
from contextwindow.messages import TextPart, ToolResultPart
from contextwindow.replay.accuracy import CAUSES, points, unexplained
from contextwindow.replay.engine import user_constraints
from contextwindow.turns import turn_starts, validate

CWD = "/work/app"
NESTED = f"{CWD}/src/agents/CLAUDE.md"
MODEL = "claude-sonnet-4-5-20250929"


def _memory(rng: random.Random) -> str:
    rules = ["Agents must register in registry.ts", "Never import from ../cli", "Every plugin exports a factory", "Keep adapters pure"]
    return "# Agents\n\n" + "\n".join(f"- {rng.choice(rules)} ({i}): see src/agents/core/{rng.randrange(10**4)}.ts" for i in range(150))


def _log(seed: int, *, inline: bool, drop_attachments: bool = False, usage: list[int] | None = None) -> list[dict[str, Any]]:
    """A user turn; a skills listing; Read a.ts (its result followed by the nested CLAUDE.md attachment — or,
    ``inline``, with that text inside the result as the API merges it); Read b.ts; a date change; a reply."""
    rng = random.Random(seed)
    memory = _memory(rng)
    out: list[dict[str, Any]] = []
    parent: str | None = None
    k = 0

    def add(kind: str, **body: Any) -> None:
        nonlocal parent
        uid = f"u{len(out):04d}"
        out.append({"type": kind, "uuid": uid, "parentUuid": parent, "sessionId": "s", "cwd": CWD, "version": "2.1.170", **body})
        parent = uid

    def reply(content: list[dict[str, Any]]) -> None:
        nonlocal k
        total = usage[k] if usage else 10
        add("assistant", message={"role": "assistant", "id": f"msg_{k}", "model": MODEL, "content": content,
                                  "usage": {"input_tokens": 2, "cache_read_input_tokens": total - 2, "cache_creation_input_tokens": 0, "output_tokens": 0}})
        k += 1

    def attach(att: dict[str, Any]) -> None:
        if not drop_attachments:
            add("attachment", attachment=att)

    add("user", message={"role": "user", "content": "The agents registry: what must a plugin export?"})
    attach({"type": "skill_listing", "content": "- review: you must review every diff\n- release: never skip the changelog"})
    for n, name in enumerate(("a.ts", "b.ts")):
        reply([{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": f"{CWD}/src/agents/{name}"}}])
        body = "\n".join(f"{i:6}\u2192export const v{i} = {rng.randrange(10**6)};" for i in range(1, 40))
        blocks: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": body}]
        if n == 0 and inline:
            blocks.append({"type": "text", "text": f"<system-reminder>\nContents of {NESTED}:\n\n{memory}\n</system-reminder>"})
        add("user", message={"role": "user", "content": blocks})
        if n == 0 and not inline:
            attach({"type": "nested_memory", "path": NESTED, "content": {"path": NESTED, "content": memory, "type": "Project"}})
    attach({"type": "date_change", "newDate": "2026-02-02"})
    reply([{"type": "text", "text": "A plugin exports a factory and registers in registry.ts."}])
    return out


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _billed(tmp_path: Path, seed: int) -> list[int]:
    """The bill: a fixed prefix + the project's count of each call's prompt with the attached text inline."""
    merged = load_all(_write(tmp_path / "merged.jsonl", _log(seed, inline=True)))[0]
    return [18_000 + p.estimated for p in points(merged)]


def test_attachment_text_per_kind() -> None:
    kind, text = attachment_text({"attachment": {"type": "nested_memory", "content": {"path": NESTED, "content": "# rules"}}})
    assert kind == "nested_memory" and text is not None and f"Contents of {NESTED}:\n\n# rules" in text and text.startswith("<system-reminder>")
    _, todos = attachment_text({"attachment": {"type": "todo_reminder", "content": [{"content": "write tests", "status": "pending"}]}})
    assert todos is not None and "1. [pending] write tests" in todos
    assert attachment_text({"attachment": {"type": "date_change", "newDate": "2026-02-02"}}) == ("date_change", None)  # fixed client wording
    assert attachment_text({"attachment": {"type": "nested_memory", "content": {}}}) == ("nested_memory", None)
    assert attachment_text({"attachment": "not an object"}) == ("?", None)


def test_the_nested_claude_md_is_counted_on_the_call_that_read_it(tmp_path: Path) -> None:
    billed = _billed(tmp_path, 3)
    s = load_all(_write(tmp_path / "log.jsonl", _log(3, inline=False, usage=billed)))[0]
    pts = points(s)
    assert len(pts) == 3
    for p in pts:  # the same conversation: the estimate follows the bill call by call
        assert abs((p.reported - 18_000) - p.estimated) <= 15
    assert unexplained(pts) == []
    # the same log as versions that logged no attachment wrote it: that step is what the log cannot show
    old = load_all(_write(tmp_path / "old.jsonl", _log(3, inline=False, drop_attachments=True, usage=billed)))[0]
    (step,) = unexplained(points(old))
    assert step.tokens > 1_500 and step.cause == CAUSES[4]  # a first read under src/agents/ that grew beyond the log


def test_where_the_attached_text_goes_and_what_is_said(tmp_path: Path) -> None:
    s = load_all(_write(tmp_path / "log.jsonl", _log(4, inline=False, usage=_billed(tmp_path, 4))))[0]
    # beside the Read result it followed (the API merges it into that user message)
    tool = next(m for m in s.messages if m.role == "tool" and any(isinstance(p, TextPart) for p in m.parts))
    assert isinstance(tool.parts[0], ToolResultPart) and "Contents of " + NESTED in tool.parts[-1].text  # type: ignore[union-attr]
    # after the prompt: a marked user message — not a turn, not the user's words ("must", "never" are the skill's)
    listing = next(i for i, m in enumerate(s.messages) if m.meta.get("cw") == ATTACHMENT_MARKER)
    assert listing == 1 and listing not in turn_starts(s.messages)
    assert [c.text for c in user_constraints(s.messages)] == [c.text for c in user_constraints([s.messages[0]])]
    assert validate(s.messages, "openai") == []
    # the date change is the client's own wording: not in the log, counted by kind
    assert s.meta["dropped"][ATTACHMENT_UNSIZED] == 1 and s.meta["unsized_attachments"] == {"date_change": 1}
    assert import_report(s)["dropped"][ATTACHMENT_UNSIZED] == 1
