"""Tool definitions: :class:`~contextwindow.tools.ToolSpec` ↔ each provider's tool list.

``to_*`` accept ToolSpecs and, for tools a ToolSpec cannot describe (built-in tools, extra
flags such as ``strict`` or ``cache_control``), provider-shaped dicts that pass through
unchanged. ``tools_from_*`` return the function tools as ToolSpecs; built-in tools (web
search, code execution, ...) have no ToolSpec and are left out (pass the raw list through
instead when you need them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from ..errors import PayloadError
from ..tools import ToolSpec

__all__ = [
    "ToolLike",
    "to_anthropic_tools",
    "to_gemini_tools",
    "to_openai_tools",
    "to_responses_tools",
    "tools_from_anthropic",
    "tools_from_gemini",
    "tools_from_openai",
    "tools_from_responses",
]

ToolLike: TypeAlias = ToolSpec | Mapping[str, Any]


def _described(d: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
    if spec.description:
        d["description"] = spec.description
    return d


def to_openai_tools(specs: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """Chat Completions: ``[{"type": "function", "function": {name, description, parameters}}]``."""
    out: list[dict[str, Any]] = []
    for s in specs:
        if isinstance(s, ToolSpec):
            fn = _described({"name": s.name}, s)
            fn["parameters"] = dict(s.parameters)
            out.append({"type": "function", "function": fn})
        else:
            out.append(dict(s))
    return out


def to_responses_tools(specs: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """Responses API: ``[{"type": "function", name, description, parameters}]`` (flat)."""
    out: list[dict[str, Any]] = []
    for s in specs:
        if isinstance(s, ToolSpec):
            d = _described({"type": "function", "name": s.name}, s)
            d["parameters"] = dict(s.parameters)
            out.append(d)
        else:
            out.append(dict(s))
    return out


def to_anthropic_tools(specs: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """Anthropic Messages: ``[{name, description, input_schema}]``."""
    out: list[dict[str, Any]] = []
    for s in specs:
        if isinstance(s, ToolSpec):
            d = _described({"name": s.name}, s)
            d["input_schema"] = dict(s.parameters)
            out.append(d)
        else:
            out.append(dict(s))
    return out


def to_gemini_tools(specs: Sequence[ToolLike]) -> list[dict[str, Any]]:
    """Gemini: one ``{"functionDeclarations": [...]}`` tool holding every ToolSpec; dicts pass through."""
    decls: list[dict[str, Any]] = []
    raw: list[dict[str, Any]] = []
    for s in specs:
        if isinstance(s, ToolSpec):
            d = _described({"name": s.name}, s)
            d["parameters"] = dict(s.parameters)
            decls.append(d)
        else:
            raw.append(dict(s))
    return ([{"functionDeclarations": decls}] if decls else []) + raw


# --- back to ToolSpecs ------------------------------------------------------------------


def _tool_list(tools: Any) -> list[Any]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise PayloadError(f"expected list of tools, got {type(tools).__name__}", field="tools")
    return tools


def _spec(d: Any, i: int, name_key: str, schema_key: str, where: str) -> ToolSpec:
    if not isinstance(d, Mapping):
        raise PayloadError(f"{where} {i} must be an object", field="tools")
    name = d.get(name_key)
    if not isinstance(name, str) or not name:
        raise PayloadError(f"{where} {i} has no name", field="tools")
    desc = d.get("description") or ""
    params = d.get(schema_key)
    if params is None:
        params = {"type": "object", "properties": {}}
    if not isinstance(desc, str) or not isinstance(params, Mapping):
        raise PayloadError(f"{where} {i} ({name}): description must be a string and {schema_key} an object", field="tools")
    return ToolSpec(name=name, description=desc, parameters=dict(params))


def tools_from_openai(tools: Any) -> list[ToolSpec]:
    out = []
    for i, t in enumerate(_tool_list(tools)):
        if isinstance(t, Mapping) and t.get("type", "function") == "function" and isinstance(t.get("function"), Mapping):
            out.append(_spec(t["function"], i, "name", "parameters", "tool"))
    return out


def tools_from_responses(tools: Any) -> list[ToolSpec]:
    return [
        _spec(t, i, "name", "parameters", "tool")
        for i, t in enumerate(_tool_list(tools))
        if isinstance(t, Mapping) and t.get("type") == "function"
    ]


def tools_from_anthropic(tools: Any) -> list[ToolSpec]:
    # Client tools have an input_schema; server tools (web_search_..., bash_...) have a versioned type.
    return [
        _spec(t, i, "name", "input_schema", "tool")
        for i, t in enumerate(_tool_list(tools))
        if isinstance(t, Mapping) and ("input_schema" in t or t.get("type") in (None, "custom"))
    ]


def tools_from_gemini(tools: Any) -> list[ToolSpec]:
    out = []
    for i, t in enumerate(_tool_list(tools)):
        if not isinstance(t, Mapping):
            raise PayloadError(f"tool {i} must be an object", field="tools")
        decls = t.get("functionDeclarations", t.get("function_declarations"))
        if decls is None:
            continue
        if not isinstance(decls, list):
            raise PayloadError(f"tool {i}: functionDeclarations must be a list", field="tools")
        for j, d in enumerate(decls):
            key = "parameters" if not (isinstance(d, Mapping) and "parametersJsonSchema" in d) else "parametersJsonSchema"
            out.append(_spec(d, j, "name", key, f"tool {i} declaration"))
    return out
