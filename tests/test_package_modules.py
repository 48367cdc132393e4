"""Every module of the package is the product's: imported by another module of it, by a benchmark,
named in the CLI's command list or by its dotted name (``ctxw``'s entry point, ``python -m``), or a documented entry point of its own (``contextwindow.integrations``).
A module only the tests import is test equipment and lives in ``tests/`` (found on 2026-11-24:
``llm/promptcache.py``, a model of Anthropic's prompt cache that only tests used, now
``tests/anthropic_cache.py``, the oracle the breakpoints of ``formats/cache_marks.py`` are checked against)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "contextwindow"


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)


def _imported_names(text: str) -> set[str]:
    """Every name on the import lines of ``text`` (modules and what is taken from them)."""
    return {w for line in _IMPORT.findall(text) for w in re.findall(r"\w+", line)}


def test_no_module_of_the_package_is_used_by_the_tests_alone() -> None:
    if not (ROOT / "benchmarks").is_dir():
        import pytest

        pytest.skip("needs the repository's benchmarks/ next to src/")
    sources = [p for p in [*PACKAGE.rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")] if "__pycache__" not in p.parts]
    texts = {p: p.read_text(encoding="utf-8") for p in sources}
    names = {p: _imported_names(t) for p, t in texts.items()}
    scripts = (ROOT / "pyproject.toml").read_text(encoding="utf-8") if (ROOT / "pyproject.toml").is_file() else ""
    commands = (PACKAGE / "cli" / "main.py").read_text(encoding="utf-8")
    unused = []
    for module in sorted(PACKAGE.rglob("*.py")):
        if module.name == "__init__.py" or "__pycache__" in module.parts or module.parent.name == "integrations":
            continue
        if module.parent.name == "cli" and f'"{module.stem}"' in commands:
            continue
        dotted = ".".join(module.relative_to(PACKAGE.parent).with_suffix("").parts)
        if dotted in scripts or any(dotted in t for p, t in texts.items() if p != module):  # an entry point, a module run by name
            continue
        if not any(p != module and module.stem in got for p, got in names.items()):
            unused.append(str(module.relative_to(PACKAGE)))
    assert unused == []
