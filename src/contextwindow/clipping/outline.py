"""Outline lines of source code: imports and the signatures of classes, functions and methods,
for Python, JS/TS, Go, Rust, Java/Kotlin/C#, C/C++, Ruby, Elixir, PHP and Swift.

A line either opens a definition (``DEF``), imports something (``IMPORT``) or neither. The
patterns look at one line at a time, so they run in the streaming pass over any size.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

_MODS = r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|synchronized|native|default|override|virtual|async|open|suspend|inline|readonly|export|declare|extern|unsafe|const|pub(?:\([\w:]+\))?)\s+)*"

DEF_RE = re.compile(
    "|".join(
        [
            r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*[(\[]",  # Python
            r"^[ \t]*(?:@\w+(?:\.\w+)*[ \t]+)?class[ \t]+\w+",  # Python, Ruby, many
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*[\w$]+[ \t]*[(<]",  # JS/TS, PHP
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:class|interface|enum|namespace|module)[ \t]+[\w$.]+",
            r"^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?type[ \t]+\w+(?:<[^>]*>)?[ \t]*=",  # TS type aliases
            r"^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+[\w$]+[ \t]*(?::[^=]+)?=[ \t]*(?:async[ \t]+)?(?:function\b|\([^)]*\)[ \t]*(?::[^=]+)?=>|[\w$]+[ \t]*=>)",
            r"^func[ \t]|^type[ \t]+\w+[ \t]+(?:struct|interface)\b",  # Go
            r"^[ \t]*" + _MODS + r"(?:fn|fun|func)[ \t]+[\w$<>]+",  # Rust, Kotlin, Swift
            r"^[ \t]*(?:pub(?:\([\w:]+\))?[ \t]+)?(?:struct|enum|trait|union|impl|mod)\b(?![ \t]*[;=])",  # Rust
            r"^[ \t]*macro_rules!",
            r"^[ \t]*" + _MODS + r"(?:class|interface|enum|record|@interface|struct|object|trait)[ \t]+\w+",  # Java, C#, Kotlin, Scala
            # Java/C# methods: modifiers, a type, a name and "(" (at least one modifier keeps calls out)
            r"^[ \t]+(?:(?:public|private|protected|static|final|abstract|synchronized|native|override|virtual|async|internal)[ \t]+)+[\w<>\[\],.? ]+[ \t]+\w+[ \t]*\(",
            # C/C++ function definitions at column 0: a type, a name, "(" and no ";" after
            r"^(?!(?:if|for|while|switch|return|else|do|case|goto|typedef|sizeof|print|assert|raise|await)\b)[A-Za-z_][\w\*&:<>,]*(?:[ \t]+[\w\*&:<>,]+)*[ \t\*&]+[\w~:]+[ \t]*\([^;]*$",
            r"^(?:template[ \t]*<|typedef[ \t]+struct\b|namespace[ \t]+\w+|#define[ \t]+\w+\()",
            r"^[ \t]*module[ \t]+[A-Z]\w*",  # Ruby
            r"^[ \t]*(?:defmodule|defprotocol|defimpl|defstruct|defexception|defmacrop?|defguardp?|defdelegate|defp?)\b",  # Elixir
            # TS/JS class methods: a name, "(...)" and an opening brace, not a control keyword
            r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|override|get|set)[ \t]+)*(?!(?:if|for|while|switch|catch|return|else|do|try|function|with|new|await|throw)\b)[A-Za-z_$][\w$]*[ \t]*\([^)]*\)[ \t]*(?::[ \t]*[^{;]+)?\{[ \t]*$",
        ]
    ),
    re.M,
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
    re.M,
)

DEF, IMPORT = 1, 2


def outline(lines: list[str]) -> dict[int, int]:
    """Positions of ``lines`` that are outline lines, mapped to DEF or IMPORT (one C-level scan
    of the joined lines per pattern; positions mapped back by bisection)."""
    if not lines:
        return {}
    joined = "\n".join(lines)
    starts = list(accumulate((len(x) + 1 for x in lines), initial=0))
    out: dict[int, int] = {}
    for m in IMPORT_RE.finditer(joined):
        out[bisect_right(starts, m.start()) - 1] = IMPORT
    for m in DEF_RE.finditer(joined):
        out[bisect_right(starts, m.start()) - 1] = DEF
    return out


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
