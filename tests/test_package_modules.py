"""Every module of the package is the product's: imported by another module of it, by a benchmark,
named in the CLI's command list, or a documented entry point of its own (``contextwindow.integrations``).
A module only the tests import is test equipment and lives in ``tests/`` (found on 2026-11-24:
``llm/promptcache.py``, a model of Anthropic's prompt cache that only tests used, now
``tests/anthropic_cache.py``, the oracle the breakpoints of ``formats/cache_marks.py`` are checked against)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "contextwindow"


def _imports(text: str, module: Path) -> bool:
    name = module.stem
    dotted = ".".join(module.relative_to(ROOT / "src").with_suffix("").parts)
    return bool(re.search(rf"(\b{re.escape(dotted)}\b|from\s+[.\w]*\b{name}\b\s+import|from\s+\.+\s+import\s+[^\n]*\b{name}\b|import\s+[.\w]*\b{name}\b)", text))


def test_no_module_of_the_package_is_used_by_the_tests_alone() -> None:
    if not (ROOT / "benchmarks").is_dir():
        import pytest

        pytest.skip("needs the repository's benchmarks/ next to src/")
    sources = {p: p.read_text(encoding="utf-8") for p in [*PACKAGE.rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")] if "__pycache__" not in p.parts}
    commands = sources[PACKAGE / "cli" / "main.py"]
    unused = []
    for module in sorted(PACKAGE.rglob("*.py")):
        if module.name == "__init__.py" or "__pycache__" in module.parts or module.parent.name == "integrations":
            continue
        if module.parent.name == "cli" and f'"{module.stem}"' in commands:
            continue
        if not any(p != module and _imports(text, module) for p, text in sources.items()):
            unused.append(str(module.relative_to(PACKAGE)))
    assert unused == []
