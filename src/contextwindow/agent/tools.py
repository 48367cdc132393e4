"""The agent's built-in tools: specs the model sees and the code that runs a call.

:class:`Toolbox` runs every call of one response together (a thread per call) and answers
them in call order in one tool message. Nothing a model sends can break the loop: malformed
JSON arguments, a missing argument, a path outside the working directory or a tool that raises
all become an error result the model reads.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..admission import READ_SKILL_TOOL, Admission
from ..clipping import RETRIEVE_TOOL
from ..messages import Message, TextPart, ToolCallPart, ToolResultPart
from ..tools import ToolSpec
from . import files
from .files import ToolError
from .shell import run_bash

MAX_PARALLEL = 8


def _obj(props: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


_S = {"type": "string"}
_I = {"type": "integer", "minimum": 0}

BUILTIN_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("read_file", "Read a text file in the working directory: numbered lines from `offset` (0-based) for `limit` lines (default 2000).",
             _obj({"path": _S, "offset": _I, "limit": {"type": "integer", "minimum": 1}}, ["path"])),
    ToolSpec("grep", "Search file contents under `path` (default the working directory) for a regular expression; `glob` filters file names (e.g. '*.py'). Prints path:line:text.",
             _obj({"pattern": _S, "path": _S, "glob": _S}, ["pattern"])),
    ToolSpec("list_dir", "List a directory of the working directory (default '.'): names, '/' after directories, sizes.",
             _obj({"path": _S}, [])),
    ToolSpec("bash", "Run a bash command in the working directory; stdout and stderr are returned with the exit code. Killed after `timeout_s` seconds (default 120).",
             _obj({"command": _S, "timeout_s": {"type": "number", "exclusiveMinimum": 0}}, ["command"])),
    ToolSpec("edit_file", "Replace the one exact occurrence of `old` in the file with `new` (whitespace included; an absent or repeated `old` is an error).",
             _obj({"path": _S, "old": _S, "new": _S}, ["path", "old", "new"])),
    ToolSpec("write_file", "Create or overwrite a file in the working directory with `content`.",
             _obj({"path": _S, "content": _S}, ["path", "content"])),
)


def _args(call: ToolCallPart, spec: ToolSpec) -> dict[str, Any]:
    try:
        args = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError as exc:
        raise ToolError(f"the arguments of {call.name} are not valid JSON ({exc}); send a JSON object like {{\"path\": \"x\"}}") from None
    if not isinstance(args, dict):
        raise ToolError(f"the arguments of {call.name} must be a JSON object, got {type(args).__name__}")
    props = spec.parameters.get("properties", {})
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise ToolError(f"{call.name} has no argument(s) {', '.join(unknown)} (it takes {', '.join(props) or 'none'})")
    missing = [k for k in spec.parameters.get("required", ()) if k not in args]
    if missing:
        raise ToolError(f"{call.name} needs argument(s) {', '.join(missing)}")
    for k, v in args.items():
        want = props[k].get("type")
        if want == "integer" and (not isinstance(v, int) or isinstance(v, bool)):
            raise ToolError(f"{call.name}: {k} must be an integer, got {v!r}")
        if want == "string" and not isinstance(v, str):
            raise ToolError(f"{call.name}: {k} must be a string, got {type(v).__name__}")
    return args


class Toolbox:
    """The built-in tools confined to ``cwd``, ``retrieve`` (answered by the callable the agent
    loop passes in: the Session's offload store) and ``read_skill`` when ``admission`` found skills."""

    def __init__(self, cwd: str | os.PathLike[str], admission: Admission | None = None) -> None:
        root = Path(os.path.realpath(os.fspath(cwd)))
        if not root.is_dir():
            raise ToolError(f"working directory {os.fspath(cwd)!r} is not a directory")
        self.root = root
        self.admission = admission
        self._run: dict[str, Callable[[dict[str, Any]], tuple[str, bool]]] = {
            "read_file": lambda a: (files.read_file(root, a["path"], a.get("offset", 0), a.get("limit", files.DEFAULT_READ_LINES)), False),
            "grep": lambda a: (files.grep(root, a["pattern"], a.get("path", "."), a.get("glob")), False),
            "list_dir": lambda a: (files.list_dir(root, a.get("path", ".")), False),
            "bash": lambda a: run_bash(root, a["command"], a.get("timeout_s")),
            "edit_file": lambda a: (files.edit_file(root, a["path"], a["old"], a["new"]), False),
            "write_file": lambda a: (files.write_file(root, a["path"], a["content"]), False),
        }
        # the Session lists read_skill itself (from the Admission), so it is not in ``specs``
        self.specs: list[ToolSpec] = [*BUILTIN_SPECS, RETRIEVE_TOOL]
        self._by_name = {s.name: s for s in self.specs}
        if admission is not None and READ_SKILL_TOOL in admission.tools:
            self._by_name[READ_SKILL_TOOL.name] = READ_SKILL_TOOL
            self._run[READ_SKILL_TOOL.name] = self._read_skill

    def _read_skill(self, a: dict[str, Any]) -> tuple[str, bool]:
        assert self.admission is not None
        text = self.admission.read_skill(a.get("name", ""))
        return text, text.startswith("Error:")

    def run_call(self, call: ToolCallPart, retrieve: Callable[[ToolCallPart], ToolResultPart] | None = None) -> ToolResultPart:
        """One call → its result; any failure is an error result naming the tool and the reason."""
        spec = self._by_name.get(call.name)
        if spec is None:
            return _error(call, f"there is no tool {call.name!r}; the tools are {', '.join(self._by_name)}")
        try:
            if call.name == RETRIEVE_TOOL.name:
                if retrieve is None:
                    raise ToolError("retrieve is not available here")
                part = retrieve(call)
                return ToolResultPart(call.id, part.content, is_error=part.is_error, name=call.name)
            text, failed = self._run[call.name](_args(call, spec))
        except ToolError as exc:
            return _error(call, str(exc))
        except OSError as exc:
            return _error(call, f"{type(exc).__name__}: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
        except Exception as exc:  # a tool that raises must not end the loop
            return _error(call, f"{call.name} failed: {type(exc).__name__}: {exc}")
        return ToolResultPart(call.id, (TextPart(text),), is_error=failed, name=call.name)

    def run_all(
        self,
        calls: Sequence[ToolCallPart],
        retrieve: Callable[[ToolCallPart], ToolResultPart] | None = None,
        on_done: Callable[[ToolCallPart, ToolResultPart, float], None] | None = None,
    ) -> Message:
        """Run the calls of one response together; one tool message answers them all, in call order."""

        def one(call: ToolCallPart) -> ToolResultPart:
            started = time.perf_counter()
            part = self.run_call(call, retrieve)
            if on_done is not None:
                on_done(call, part, time.perf_counter() - started)
            return part

        if len(calls) == 1:
            parts = [one(calls[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(calls)), thread_name_prefix="ctxw-tool") as pool:
                parts = list(pool.map(one, calls))
        return Message("tool", tuple(parts))


def _error(call: ToolCallPart, text: str) -> ToolResultPart:
    return ToolResultPart(call.id, (TextPart(f"error: {text}"),), is_error=True, name=call.name)


def describe_call(call: ToolCallPart, limit: int = 80) -> str:
    """One line for a tool call: ``bash(ls -la)``, ``read_file(src/app.py)``."""
    args = call.parsed_arguments()
    if isinstance(args, Mapping):
        key = next((k for k in ("command", "path", "pattern", "ref", "name") if isinstance(args.get(k), str)), None)
        inner = str(args[key]) if key else ", ".join(f"{k}={v!r}" for k, v in args.items())
    else:
        inner = str(args)
    inner = inner.replace("\n", " ")
    if len(inner) > limit:
        inner = inner[: limit - 1] + "…"
    return f"{call.name}({inner})"
