"""Outline lines of source code: imports and the signatures of classes, functions and methods,
for Python, JS/TS, Go, Rust, Java/Kotlin/C#, C/C++, Ruby, Elixir, PHP and Swift.

A line either opens a definition (``DEF``), imports something (``IMPORT``) or neither. The
patterns look at one line at a time, so they run in the streaming pass over any size.
"""

from __future__ import annotations

import re

_MODS = r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|synchronized|native|default|override|virtual|async|open|suspend|inline|readonly|export|declare|extern|unsafe|const|pub(?:\([\w:]+\))?)\s+)*"

DEF_RE = re.compile(
    "|".join(
        [
            r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*[(\[]",  # Python
            r"^[ \t]*class[ \t]+\w+[ \t]*[(:]",  # Python
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*[\w$]+[ \t]*[(<]",  # JS/TS, PHP
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:class|interface|enum|namespace|module)[ \t]+[\w$.:]+(?:<[^>]*>)?[ \t]*(?:[{(:<=]|extends\b|implements\b|$)",
            r"^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?type[ \t]+\w+(?:<[^>]*>)?[ \t]*=",  # TS type aliases
            r"^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+[\w$]+[ \t]*(?::[^=]+)?=[ \t]*(?:async[ \t]+)?(?:function\b|\([^)]*\)[ \t]*(?::[^=]+)?=>|[\w$]+[ \t]*=>)",
            r"^func[ \t]|^type[ \t]+\w+[ \t]+(?:struct|interface)\b",  # Go
            r"^[ \t]*" + _MODS + r"(?:fn|fun|func)[ \t]+(?:<[^>]*>[ \t]*)?[\w$.]+[ \t]*[(<]",  # Rust, Kotlin, Swift
            r"^[ \t]*(?:pub(?:\([\w:]+\))?[ \t]+)?(?:struct|enum|trait|union|impl|mod)\b[^;=]*(?:[{(]|\bwhere)[ \t]*$",  # Rust
            r"^[ \t]*macro_rules!",
            r"^[ \t]*" + _MODS + r"(?:class|interface|enum|record|@interface|struct|object|trait)[ \t]+\w+(?:<[^>]*>)?[ \t]*(?:[{(:<]|extends\b|implements\b|$)",  # Java, C#, Kotlin, Scala
            # Java/C# methods: modifiers, a type, a name and "(" (at least one modifier keeps calls out)
            r"^[ \t]+(?:(?:public|private|protected|static|final|abstract|synchronized|native|override|virtual|async|internal)[ \t]+)+[\w<>\[\],.? ]+[ \t]+\w+[ \t]*\(",
            # C/C++ function definitions at column 0: a type, a name, "(" and no ";" after
            r"^(?!(?:if|for|while|switch|return|else|do|case|goto|typedef|sizeof|print|assert|raise|await)\b)[A-Za-z_][\w\*&:<>,]*(?:[ \t]+[\w\*&:<>,]+)*[ \t\*&]+[\w~:]+[ \t]*\([^;]*(?:\)|,|\{)[ \t]*(?:const[ \t]*)?(?:override[ \t]*)?\{?[ \t]*$",
            r"^(?:template[ \t]*<|typedef[ \t]+struct\b|namespace[ \t]+\w+|#define[ \t]+\w+\()",
            r"^[ \t]*(?:class|module)[ \t]+[A-Z][\w:]*(?:[ \t]*<[ \t]*[A-Z][\w:]*)?[ \t]*$",  # Ruby
            r"^[ \t]*(?:defmodule|defprotocol|defimpl|defstruct|defexception|defmacrop?|defguardp?|defdelegate|defp?)[ \t]+[\w.!?]+[ \t]*(?:[(,]|do\b|$)",  # Elixir, Ruby def
            # TS/JS class methods: a name, "(...)" and an opening brace, not a control keyword
            r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|override|get|set)[ \t]+)*(?!(?:if|for|while|switch|catch|return|else|do|try|function|with|new|await|throw)\b)[A-Za-z_$][\w$]*[ \t]*\([^)]*\)[ \t]*(?::[ \t]*[^{;]+)?\{[ \t]*$",
        ]
    ),
)

IMPORT_RE = re.compile(
    "|".join(
        [
            r"^(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*[ \t]*$)",  # Python
            r"^import[ \t].*\bfrom[ \t]+['\"]|^import[ \t]+['\"]|^(?:const|let|var)[ \t]+[\w${}, \t]+=[ \t]*require\(",  # JS/TS
            r"^import[ \t]*[(\"]|^package[ \t]+\w+[ \t]*$",  # Go
            r"^import[ \t]+(?:static[ \t]+)?[\w.]+(?:\.\*)?;|^package[ \t]+[\w.]+;",  # Java
            r"^(?:pub[ \t]+)?use[ \t]+[\w:{}, *]+;|^extern[ \t]+crate\b",  # Rust
            r"^#[ \t]*include[ \t]*[<\"]|^using[ \t]+(?:namespace[ \t]+)?[\w.:]+;",  # C/C++/C#
            r"^require(?:_relative)?[ \t]+['\"]",  # Ruby
            r"^[ \t]*(?:import|alias|use|require)[ \t]+[A-Z][\w.]*",  # Elixir
        ]
    ),
)

DEF, IMPORT = 1, 2


#: First words a definition or import line can start with; any other line needs a "(" to match
#: (C functions, JS/TS methods), so most body lines are skipped without running the patterns.
STARTERS = frozenset(
    ["def", "async", "class", "function", "export", "default", "declare", "abstract", "const", "let", "var", "func", "type", "fn", "fun", "pub", "impl", "struct", "enum", "trait", "union", "mod", "macro_rules", "public", "private", "protected", "internal", "static", "final", "sealed", "partial", "synchronized", "native", "override", "virtual", "open", "suspend", "inline", "readonly", "extern", "unsafe", "interface", "namespace", "module", "record", "object", "defmodule", "defprotocol", "defimpl", "defstruct", "defexception", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate", "defp", "template", "typedef", "#define", "#include", "import", "from", "package", "use", "using", "require", "require_relative", "alias"]
)
_FIRST_WORD = re.compile(r"[ \t]*(#?[A-Za-z_$][\w$]*)")


def outline(lines: list[str]) -> dict[int, int]:
    """Positions of ``lines`` that are outline lines, mapped to DEF or IMPORT (each pattern
    tried once, at the start of the line; blank, comment, very long and plain body lines skipped)."""
    out: dict[int, int] = {}
    imp = IMPORT_RE.match
    dfn = DEF_RE.match
    first = _FIRST_WORD.match
    for i, line in enumerate(lines):
        if not line or len(line) > 400:
            continue
        w = first(line)
        if w is None:
            continue
        # a line not opened by a starter word can only be a C function (at column 0) or a JS/TS
        # method (ending in "{")
        if w.group(1) not in STARTERS and (
            "(" not in line or (line[0] in " \t" and not line.rstrip().endswith("{"))
        ):
            continue
        if imp(line):
            out[i] = IMPORT
        elif dfn(line):
            out[i] = DEF
    return out


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
