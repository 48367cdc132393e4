"""The importers package has one-way imports: the registry imports the importers, never the reverse,
and formats/ (provider wire formats) imports nothing from importers/."""

from __future__ import annotations

import ast
from pathlib import Path

import contextwindow

PKG = Path(contextwindow.__file__).parent


def _relative_imports(path: Path) -> set[str]:
    """Modules a file imports relative to its own package (``from .x import``/``from . import x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return found


def test_no_importer_imports_the_registry() -> None:
    folder = PKG / "importers"
    offenders = {
        p.name: sorted(_relative_imports(p) & {"registry"})
        for p in folder.glob("*.py")
        if p.name not in ("__init__.py", "registry.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_formats_holds_no_importer() -> None:
    names = {p.stem for p in (PKG / "formats").glob("*.py")}
    assert not names & {"claude_code", "codex", "swe_agent", "openhands", "transcript", "detect", "payload_files"}
    for p in (PKG / "formats").glob("*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        mods = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in mods if m.startswith("importers") or ".importers" in m], p.name
