"""Every module of the package is the product's: imported by another module of it, by a benchmark,
named in the CLI's command list or by its dotted name (``ctxw``'s entry point, ``python -m``), or a documented entry point of its own (``contextwindow.integrations``).
A module only the tests import is test equipment and lives in ``tests/`` (found on 2026-11-24:
``llm/promptcache.py``, a model of Anthropic's prompt cache that only tests used, now
``tests/anthropic_cache.py``, the oracle the breakpoints of ``formats/cache_marks.py`` are checked against)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "contextwindow"


def _dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, tree: ast.Module) -> set[str]:
    """The dotted names ``path`` imports: modules, and ``pkg.name`` for each name taken from a package
    (it may be a submodule). Relative imports are resolved against the file's own package, so two
    modules that share a file name (``tokens/select.py``, ``clipping/select.py``) are told apart."""
    if not path.is_relative_to(PACKAGE):  # a benchmark: absolute imports only
        package = ""
    else:
        package = _dotted(path) if path.name == "__init__.py" else _dotted(path).rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            mod = ".".join([*base, *([node.module] if node.module else [])])
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def test_no_module_of_the_package_is_used_by_the_tests_alone() -> None:
    if not (ROOT / "benchmarks").is_dir():
        import pytest

        pytest.skip("needs the repository's benchmarks/ next to src/")
    sources = [p for p in [*PACKAGE.rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")] if "__pycache__" not in p.parts]
    texts = {p: p.read_text(encoding="utf-8") for p in sources}
    imports = {p: _imported(p, ast.parse(t)) for p, t in texts.items()}
    scripts = (ROOT / "pyproject.toml").read_text(encoding="utf-8") if (ROOT / "pyproject.toml").is_file() else ""
    dotted_names = re.compile(r"(?<![\w.])contextwindow(?:\.\w+)+")  # an entry point, a module run by its dotted name
    named = {p: set(dotted_names.findall(t)) for p, t in texts.items()}
    in_scripts = set(dotted_names.findall(scripts))
    commands = (PACKAGE / "cli" / "main.py").read_text(encoding="utf-8")
    unused = []
    for module in sorted(PACKAGE.rglob("*.py")):
        if module.name == "__init__.py" or "__pycache__" in module.parts or module.parent.name == "integrations":
            continue
        if module.parent.name == "cli" and f'"{module.stem}"' in commands:
            continue
        dotted = _dotted(module)
        if dotted in in_scripts or any(p != module and dotted in got for p, got in named.items()):
            continue
        if not any(p != module and dotted in got for p, got in imports.items()):
            unused.append(str(module.relative_to(PACKAGE)))
    assert unused == []
