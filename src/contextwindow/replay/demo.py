"""The embedded demo session: scripted actions, real outputs.

:func:`demo_session` plays a fixed script of an agent auditing contextwindow's own installed source
tree: it really runs ``grep -rn``, reads files, runs ``python -m pydoc`` and ``python -m tabnanny``
and a ``pytest --version`` check, and records what they printed as tool results. The assistant's words
and the choice of actions are scripted (no model is called), which the session says in its title
and its first message. No network, no API key; bounded (each command has a timeout, the whole
script runs a few seconds).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..importers import CallRecord, ImportedSession
from ..messages import Message, TextPart, ToolCallPart, assistant, dump_arguments, tool_result, user

DEMO_MODEL = "gpt-4o-mini"
DEMO_WINDOW = 32_000
DEMO_TITLE = "contextwindow demo: scripted agent actions, real command outputs"
COMMAND_TIMEOUT_S = 8.0
MAX_OUTPUT_CHARS = 200_000
SCRIPTED_NOTE = (
    "[demo] The agent's actions in this session are scripted (no model was called); every tool result is the "
    "real output of the command run on this machine over contextwindow's installed source tree."
)


@dataclass(frozen=True, slots=True)
class Action:
    tool: str  # "bash" or "read_file"
    arg: str  # a command line (argv joined by spaces) or a path relative to the package root
    argv: tuple[str, ...] = ()


def _bash(*argv: str) -> Action:
    return Action("bash", " ".join(argv), tuple(argv))


def _read(path: str) -> Action:
    return Action("read_file", path)


def _py_files(root: Path, sub: str, limit: int) -> list[str]:
    folder = root / sub
    if not folder.is_dir():
        return []
    files = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    return [str(p.relative_to(root)) for p in files[:limit]]


def script(root: Path) -> list[tuple[str, list[Action], str]]:
    """The turns: (user request, actions, closing assistant text). Files are picked from the tree."""
    py = sys.executable
    return [
        (
            "Audit how this package decides when to compact the context. Never modify any file under store/. "
            "Keep the final report under 400 words.",
            [
                _bash("grep", "-rn", "--include=*.py", "def compact", "."),
                _read("budget.py"),
                *[_read(p) for p in _py_files(root, "compaction", 6)],
                _bash("grep", "-rn", "--include=*.py", "trigger", "."),
                _read("session.py"),
            ],
            "Compaction is decided in budget.should_compact (trigger × history budget) and done by compaction.compact, "
            "cheapest strategy first: mask, truncate, summarize, then emergency drops.",
        ),
        (
            "Now look at how tokens are counted. Always cite file paths with line numbers in your answers.",
            [
                *[_read(p) for p in _py_files(root, "tokens", 6)],
                _bash("grep", "-rn", "--include=*.py", "def count_", "."),
                _bash(py, "-m", "pydoc", "contextwindow.tokens"),
            ],
            "Counting lives in tokens/: exact tiktoken vocabularies for OpenAI models (tokens/exact.py), a class-rate "
            "estimator elsewhere (tokens/estimate.py), message framing in tokens/counting.py.",
        ),
        (
            "Check the transcript importers too. Do not run anything that needs the network.",
            [
                *[_read(p) for p in _py_files(root, "importers", 7)],
                _bash("grep", "-rn", "--include=*.py", "class ", "importers"),
                _bash(py, "-m", "pydoc", "contextwindow.importers"),
            ],
            "The importers share the importers/ package: detection by content, repair of broken tool pairs, one "
            "CallRecord per model call with the provider's usage.",
        ),
        (
            "Finally run quick checks of the source tree and summarize what you found.",
            [
                _bash(py, "-m", "tabnanny", "-v", "compaction"),
                _bash(py, "-m", "pytest", "--version"),
                *[_read(p) for p in _py_files(root, "folding", 4)],
                _bash("grep", "-rn", "--include=*.py", "-c", "def ", "."),
            ],
            "Checks ran clean. Summary: the window is budgeted in budget.py, compacted in compaction/, folded in "
            "folding/, and every payload is assembled by session.Session.build.",
        ),
    ]


def run_action(action: Action, root: Path) -> tuple[str, bool]:
    """The real output of ``action`` (text, is_error). Never raises for a failing command."""
    if action.tool == "read_file":
        try:
            lines = (root / action.arg).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            return f"error: {exc}", True
        return "\n".join(f"{n:>5}\t{line}" for n, line in enumerate(lines, 1)), False
    try:
        done = subprocess.run(
            list(action.argv), cwd=root, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, errors="replace", check=False
        )
    except FileNotFoundError as exc:
        return f"error: command not found: {exc.filename}", True
    except subprocess.TimeoutExpired:
        return f"error: timed out after {COMMAND_TIMEOUT_S:.0f} s", True
    out = (done.stdout + (("\n" + done.stderr) if done.stderr else "")).strip()
    if len(out) > MAX_OUTPUT_CHARS:
        out = out[:MAX_OUTPUT_CHARS] + "\n[output cut by the demo]"
    return out or f"(no output; exit {done.returncode})", done.returncode != 0


def demo_session(root: Path | None = None) -> ImportedSession:
    """Run the script over ``root`` (default: the installed ``contextwindow`` package) and return the
    session as if it had been imported from a log: messages plus one call per assistant message."""
    if root is None:
        import contextwindow

        root = Path(contextwindow.__file__).resolve().parent
    messages: list[Message] = []
    calls: list[CallRecord] = []
    n = 0

    def reply(m: Message) -> None:
        calls.append(CallRecord(index=len(messages), reply_end=len(messages) + 1, model=DEMO_MODEL))
        messages.append(m)

    for turn_no, (request, actions, closing) in enumerate(script(root)):
        text = f"{SCRIPTED_NOTE}\n\n{request}" if turn_no == 0 else request
        messages.append(user(text))
        for action in actions:
            n += 1
            cid = f"call_{n:03d}"
            key = "path" if action.tool == "read_file" else "command"
            call = ToolCallPart(cid, action.tool, dump_arguments({key: action.arg}))
            reply(assistant(f"Step {n}: {_intent(action)}", call))
            out, err = run_action(action, root)
            messages.append(tool_result(cid, out, name=action.tool, is_error=err))
        reply(Message("assistant", (TextPart(closing),)))
    return ImportedSession(
        format="demo",
        source="demo (scripted actions over " + str(root) + ")",
        messages=messages,
        calls=calls,
        model=DEMO_MODEL,
        title=DEMO_TITLE,
        meta={"scripted": True, "root": str(root)},
    )


def _intent(action: Action) -> str:
    if action.tool == "read_file":
        return f"read {action.arg}."
    return f"run `{_short(action.argv)}`."


def _short(argv: Sequence[str]) -> str:
    return " ".join(Path(a).name if i == 0 else a for i, a in enumerate(argv))
