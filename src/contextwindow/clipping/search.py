"""Search results (grep -n, ripgrep with or without headings, grep -c, file lists): every file
is kept with its first matches, and omitted matches are counted exactly per file."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from .marker import MARKER_PREFIX
from .measure import Count, safe_count
from .select import Body, Scans, fit_prefix, scanned, select_lines
from .source import iter_lines

FLAT_RE = re.compile(r"^(?P<path>[^\s:][^:\n]{0,400}?):(?P<ln>\d+)(?P<sep>[:-])")
COUNT_RE = re.compile(r"^(?P<path>[^\s:][^:\n]{0,400}?):(?P<cnt>\d+)\s*$")
CONTEXT_RE = re.compile(r"^(?P<path>[^\s][^\n]{0,400}?)-(?P<ln>\d+)-")
NUMLINE_RE = re.compile(r"^(?P<ln>\d+)(?P<sep>[:-])")
PATHISH_RE = re.compile(r"^(?:[A-Za-z]:)?[\w.~@+\-/\\][^\t:*?\"<>|]*$")


def looks_like_path(text: str) -> bool:
    if not text or len(text) > 400 or text[0].isspace() or text.count(" ") > 2:
        return False
    if not PATHISH_RE.match(text):
        return False
    if "/" in text or "\\" in text:
        return True
    dot = text.rfind(".")
    return 0 < dot < len(text) - 1 and text[dot + 1 :].isalnum() and len(text) - dot <= 9


@dataclass(slots=True)
class _File:
    path: str
    matches: int = 0
    lines: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Parsed:
    """Per line: the file it belongs to (or None) and its rank key."""

    files: dict[str, _File]
    owner: list[str | None]
    is_match: list[bool]
    keys: list[tuple[float, ...]]
    search_lines: int
    weight: list[int]  # matches a line stands for (N for a grep -c "path:N" line, else 1)


def parse(lines: list[str]) -> Parsed:
    files: dict[str, _File] = {}
    owner: list[str | None] = [None] * len(lines)
    is_match = [False] * len(lines)
    kinds: list[str] = ["other"] * len(lines)
    counts: list[int] = [0] * len(lines)
    weight = [1] * len(lines)
    heading: str | None = None

    def add(i: int, path: str, kind: str, n: int = 1) -> None:
        f = files.get(path)
        if f is None:
            f = files[path] = _File(path)
        owner[i] = path
        kinds[i] = kind
        f.lines.append(i)
        if kind == "match":
            is_match[i] = True
            counts[i] = f.matches
            weight[i] = n
            f.matches += n
        elif kind == "context":
            counts[i] = max(0, f.matches - 1)

    for i, line in enumerate(lines):
        if heading is not None and (m := NUMLINE_RE.match(line)):
            add(i, heading, "match" if m.group("sep") == ":" else "context")
            continue
        if (m := FLAT_RE.match(line)) and looks_like_path(m.group("path")):
            heading = None
            add(i, m.group("path"), "match" if m.group("sep") == ":" else "context")
            continue
        if (m := COUNT_RE.match(line)) and looks_like_path(m.group("path")):
            add(i, m.group("path"), "match", int(m.group("cnt")))
            continue
        if (m := CONTEXT_RE.match(line)) and m.group("path") in files:
            add(i, m.group("path"), "context")
            continue
        stripped = line.rstrip()
        if looks_like_path(stripped):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if NUMLINE_RE.match(nxt):
                heading = stripped
                add(i, stripped, "heading")
            else:
                heading = None
                add(i, stripped, "match")
            continue
        if not stripped:
            heading = None
    n = len(lines)
    first_file_line = next((i for i, o in enumerate(owner) if o is not None), n)
    keys: list[tuple[float, ...]] = []
    for i in range(n):
        kind = kinds[i]
        if kind == "heading":
            keys.append((1, -1, i))
        elif kind == "match":
            keys.append((1, counts[i], i))
        elif kind == "context":
            keys.append((1, counts[i] + 0.5, i))
        elif (i < first_file_line and i < 12) or i >= n - 3:
            keys.append((0, i))
        elif lines[i].strip() in ("", "--"):
            keys.append((4, i))
        else:
            keys.append((3, i))
    return Parsed(files, owner, is_match, keys, sum(1 for o in owner if o is not None), weight)


def search_score(lines: list[str]) -> float:
    """Share of the non-blank lines that read as search output (for the sniffer)."""
    sample = [ln for ln in lines if ln.strip() and ln.strip() != "--"]
    if len(sample) < 2:
        return 0.0
    return parse(sample).search_lines / len(sample)


RELATIVE_HEADER = "[paths below are relative to "


def compact_path_list(lines: list[str]) -> list[str]:
    """A list of paths (find/ls/glob output) with their long common directory written once."""
    paths = [i for i, ln in enumerate(lines) if looks_like_path(ln.strip())]
    others = sum(1 for ln in lines if ln.strip()) - len(paths)
    if len(paths) < 20 or others > 5:
        return lines
    prefix = os.path.commonprefix([lines[i].strip() for i in paths])  # noqa: RUF071 - cut at the last "/" below
    prefix = prefix[: prefix.rfind("/") + 1]
    if len(prefix) < 12:
        return lines
    out = list(lines)
    for i in paths:
        out[i] = out[i].strip()[len(prefix) :]
    return [f"{RELATIVE_HEADER}{prefix}]", *out]


TREE_HEADER = "[paths below as a tree: "
_TREE_HELP = (
    'a line ending in "/" is a folder and the lines indented one space more under it are inside it; '
    '"a, b" on one line are entries of the same folder; {a,b}/f stands for a/f and b/f]'
)


def _tree(paths: list[str]) -> list[str] | None:
    """``paths`` as an indented tree: one line per folder (single-child chains joined with "/"),
    the plain entries of a folder on one line. None when the paths do not suit it."""
    root: dict[str, Any] = {}
    for path in paths:
        if "\\" in path or ", " in path or "//" in path.rstrip("/"):
            return None
        node = root
        for part in path.rstrip("/").split("/"):
            node = node.setdefault(part, {})
    out: list[str] = []

    def walk(node: dict[str, Any], pad: str) -> None:
        leaves = [k for k, v in node.items() if not v]
        if leaves:
            out.append(pad + ", ".join(leaves))
        chains: list[tuple[str, Any]] = []
        for name, child in node.items():
            if not child:
                continue
            label = name
            while len(child) == 1:
                (k, v), = child.items()
                label += "/" + k
                child = v
                if not v:
                    break
            chains.append((label, child))
        # Folders holding one same-named entry each (pkg/package.json, ...) share a line: {a,b}/f.
        tails: dict[str, list[str]] = {}
        for label, child in chains:
            head, sep, tail = label.partition("/")
            if not child and sep and not any(ch in head for ch in ",{}"):
                tails.setdefault(tail, []).append(head)
        done: set[str] = set()
        for label, child in chains:
            head, _, tail = label.partition("/")
            group = tails.get(tail) if not child else None
            if group is not None and len(group) >= 3 and head in group:
                if tail not in done:
                    done.add(tail)
                    out.append(f"{pad}{{{','.join(group)}}}/{tail}")
            elif child:
                out.append(f"{pad}{label}/")
                walk(child, pad + " ")
            else:
                out.append(pad + label)

    walk(root, "")
    return out


def expand_tree(lines: list[str]) -> list[str]:
    """The paths a tree written by the search clipper stands for (folders included)."""
    out: list[str] = []
    stack: list[str] = []
    for line in lines:
        depth = len(line) - len(line.lstrip(" "))
        del stack[depth:]
        entry = line.strip()
        base = "".join(stack)
        if entry.endswith("/"):
            out.append(base + entry.rstrip("/"))
            stack.append(entry if entry != "/" else "/")
        else:
            for e in entry.split(", "):
                if e.startswith("{") and "}/" in e:
                    names, _, tail = e[1:].partition("}/")
                    out.extend(f"{base}{n}/{tail}" for n in names.split(","))
                else:
                    out.append(base + e)
    return out


MAX_FILES = 200_000
MAX_PER_FILE = 2000  # memory is bounded by the scan's character cap; this only bounds one file's share
_MATCH_CHARS = 240  # a match line is shown this wide at first ...
_KEEP_CHARS = 2000  # ... and wider, up to this, when every match fits with room to spare
LIST_HEADER = "[search: "


@dataclass(slots=True)
class _Hits:
    count: int = 0
    listed: bool = False  # a bare path (find/ls) or a "path:N" count line, not a match line
    counted: bool = False  # a "path:N" line (grep -c)
    lines: list[tuple[float, str]] = field(default_factory=list)  # (rank within the file, "  12: text")


@dataclass(slots=True)
class SearchScan:
    """One streaming pass over search output: every file with its exact count (up to MAX_FILES),
    its first matches (bounded), and the other lines' head and tail."""

    files: dict[str, _Hits] = field(default_factory=dict)
    other_head: list[str] = field(default_factory=list)
    other_tail: list[str] = field(default_factory=list)
    others: int = 0
    total: int = 0
    untracked_files: int = 0
    untracked_matches: int = 0
    kept_chars: int = 0

    @property
    def matches(self) -> int:
        return sum(h.count for h in self.files.values()) + self.untracked_matches


def scan_search(text: str, cap_chars: int = 400_000) -> SearchScan:
    s = SearchScan()
    seen_untracked: set[str] = set()
    heading: str | None = None

    def hit(path: str, ln: str | None, sep: str, body: str, n: int = 1, counted: bool = False) -> None:
        h = s.files.get(path)
        if h is None:
            if len(s.files) >= MAX_FILES:
                if path not in seen_untracked and len(seen_untracked) < MAX_FILES:
                    seen_untracked.add(path)
                    s.untracked_files += 1
                s.untracked_matches += n if sep != "-" else 0
                return
            h = s.files[path] = _Hits()
        if ln is None:
            h.listed = True
            h.counted = h.counted or n != 1 or counted
            h.count += n
            return
        rank = float(h.count) if sep == ":" else max(0.0, h.count - 0.5)
        if sep == ":":
            h.count += n
        if len(h.lines) < MAX_PER_FILE and s.kept_chars < cap_chars:
            line = f"  {ln}{sep} {body[:_KEEP_CHARS]}" + ("…" if len(body) > _KEEP_CHARS else "")
            h.lines.append((rank, line))
            s.kept_chars += len(line) + 1

    def other(line: str) -> None:
        if not line.strip() or line.strip() == "--":
            return
        s.others += 1
        if len(s.other_head) < 12:
            s.other_head.append(line[:_MATCH_CHARS])
        else:
            s.other_tail.append(line[:_MATCH_CHARS])
            if len(s.other_tail) > 3:
                del s.other_tail[0]

    pathish: dict[str, bool] = {}  # paths repeat on every match line: judge each once

    def is_path(p: str) -> bool:
        hit = pathish.get(p)
        if hit is None:
            hit = looks_like_path(p)
            if len(pathish) < 100_000:
                pathish[p] = hit
        return hit

    pending: str | None = None  # a path-like line waiting for the next line (a heading or a listed path)
    for i, line in iter_lines(text):
        s.total = i + 1
        if pending is not None:
            if NUMLINE_RE.match(line):
                heading = pending
            else:
                hit(pending, None, ":", "")
                heading = None
            pending = None
        if heading is not None and (m := NUMLINE_RE.match(line)):
            hit(heading, m.group("ln"), m.group("sep"), line[m.end():])
            continue
        if (m := FLAT_RE.match(line)) and is_path(m.group("path")):
            heading = None
            hit(m.group("path"), m.group("ln"), m.group("sep"), line[m.end():])
            continue
        if (m := COUNT_RE.match(line)) and is_path(m.group("path")):
            hit(m.group("path"), None, ":", "", int(m.group("cnt")), counted=True)
            continue
        if (m := CONTEXT_RE.match(line)) and m.group("path") in s.files:
            hit(m.group("path"), m.group("ln"), "-", line[m.end():])
            continue
        stripped = line.rstrip()
        if looks_like_path(stripped):
            pending = stripped
            continue
        if not stripped:
            heading = None
        other(line)
    if pending is not None:
        hit(pending, None, ":", "")
    return s


def _prefix(paths: list[str]) -> str:
    if len(paths) < 2:
        return ""
    prefix = os.path.commonprefix(paths)  # noqa: RUF071 - cut at the last "/" below
    prefix = prefix[: prefix.rfind("/") + 1]
    return prefix if len(prefix) >= 8 else ""


def _label(path: str, h: _Hits, prefix: str) -> str:
    name = path[len(prefix):] if prefix else path
    if h.listed and not h.lines and not h.counted and h.count <= 1:
        return name
    return f"{name} ({h.count:,})"


def _condensed(paths: list[str], hits: dict[str, _Hits], prefix: str, depth: int) -> list[str]:
    """Counts per directory, ``depth`` levels below the common prefix."""
    groups: dict[str, list[int]] = {}
    for p in paths:
        parts = p[len(prefix):].split("/")
        key = "/".join(parts[: min(depth, len(parts) - 1)]) + "/" if len(parts) > 1 and depth else "./"
        g = groups.setdefault(key, [0, 0])
        g[0] += 1
        g[1] += hits[p].count
    return [f"{k} ({f:,} file{'s' if f != 1 else ''}, {m:,} match{'es' if m != 1 else ''})" for k, (f, m) in groups.items()]


def listed_files(clipped: str) -> dict[str, int | None]:
    """Paths (and counts, when written) a clipped search body lists, prefix and tree undone.
    (For tests and the benchmark.)"""
    lines = clipped.split("\n")
    prefix = ""
    if lines and lines[0].startswith(LIST_HEADER) and "relative to " in lines[0]:
        prefix = lines[0].split("relative to ", 1)[1].rstrip("]")
    out: dict[str, int | None] = {}
    if len(lines) > 1 and lines[1].startswith(TREE_HEADER):
        end = next((i for i, ln in enumerate(lines) if i > 1 and ln.startswith(("[", "(and "))), len(lines))
        entries = [e for e in expand_tree(lines[2:end]) if not e.endswith("/")]
    else:
        entries = []
        for ln in lines[1:]:
            if ln == "other output:" or ln.startswith(MARKER_PREFIX):
                break
            if ln and not ln.startswith((" ", "…", "[", "(and ")) and not re.search(r"/ \([\d,]+ files?, ", ln):
                entries.append(ln)
    for e in entries:
        m = re.match(r"^(.*?)(?: \(([\d,]+)\))?$", e)
        if m:
            out[prefix + m.group(1)] = int(m.group(2).replace(",", "")) if m.group(2) else None
    return out


def clip_search(text: str, budget: int, count: Count, *, scans: Scans | None = None) -> Body:
    cap = max(200_000, budget * 48)
    s = scanned(scans, ("search", cap), lambda: scan_search(text, cap))
    paths = list(s.files)
    prefix = _prefix(paths)
    n_files = len(paths) + s.untracked_files
    bare = not s.untracked_files and all(h.listed and not h.lines and not h.counted for h in s.files.values())
    whole_lines = sum(1 for h in s.files.values() if h.listed)  # a path or "path:N" line stands whole in the list
    what = f"{n_files:,} paths" if bare else f"{n_files:,} files, {s.matches:,} matches"
    head = f"{LIST_HEADER}{what} in {s.total:,} lines" + (
        f"; paths below are relative to {prefix}]" if prefix else "]")
    untracked = (f"(and {s.untracked_files:,} more files with {s.untracked_matches:,} matches, not listed)"
                 if s.untracked_files else "")
    others = [*s.other_head, *([f"… [{s.others - len(s.other_head) - len(s.other_tail):,} other lines omitted] …"]
                               if s.others > len(s.other_head) + len(s.other_tail) else []), *s.other_tail]
    other_block = (["other output:", *others] if others else [])
    labels = {p: _label(p, s.files[p], prefix) for p in paths}
    # the matches, round robin: every file's first line, then every file's second, ...
    ranked = sorted(((r, fi, j) for fi, p in enumerate(paths) for j, (r, _) in enumerate(s.files[p].lines)))
    total_lines = len(ranked)

    width = _MATCH_CHARS

    def shown(line: str) -> str:
        return line if len(line) <= width else line[:width] + "…"

    def render(k: int) -> str:
        chosen: dict[int, list[int]] = {}
        for _r, fi, j in ranked[:k]:
            chosen.setdefault(fi, []).append(j)
        out = [head]
        for fi, p in enumerate(paths):
            out.append(labels[p])
            for j in sorted(chosen.get(fi, ())):
                out.append(shown(s.files[p].lines[j][1]))
        if untracked:
            out.append(untracked)
        out.extend(other_block)
        return "\n".join(out)

    base = render(0)
    base_tokens = safe_count(count, base)
    tree_body = _tree_body(head, paths, labels, untracked, count) if paths and not ranked else None
    if tree_body is not None and tree_body[1] <= budget and tree_body[1] < base_tokens * 0.9:
        # a path list (find/ls/glob) is shorter as a tree
        return Body(tree_body[0], whole_lines, (f"{n_files:,} paths written as a tree",), tree_body[1],
                    _detail(s.matches, total_lines, n_files, 0))
    if base_tokens <= budget:
        ratio = max(0.05, base_tokens / max(1, len(base)))
        costs = [(len(s.files[paths[fi]].lines[j][1]) + 1) * ratio for _r, fi, j in ranked]
        k, out, used = fit_prefix(costs, render, budget, count)
        while k == len(ranked) and used < budget * 0.9 and width < _KEEP_CHARS:
            width *= 3  # every match fits: show more of each long line
            wider = render(k)
            wider_used = safe_count(count, wider)
            if wider_used > budget:
                width //= 3
                break
            out, used = wider, wider_used
        shown_matches = sum(1 for r, _fi, _j in ranked[:k] if r == int(r))
        return Body(out, whole_lines + k, (f"{n_files:,} files listed with their counts",), used,
                    _detail(s.matches - shown_matches, total_lines - k, n_files, 0))
    # Tier one does not fit as a list: a tree of the paths (with counts), else counts per
    # directory followed by as many files as fit.
    if tree_body is None and paths:
        tree_body = _tree_body(head, paths, labels, untracked, count)
    if tree_body is not None and tree_body[1] <= budget:
        return Body(tree_body[0], whole_lines, (f"{n_files:,} paths written as a tree",), tree_body[1],
                    _detail(s.matches, total_lines, n_files, 0))
    dirs: list[str] = []
    for depth in (3, 2, 1, 0):
        dirs = _condensed(paths, s.files, prefix, depth)
        if safe_count(count, "\n".join(dirs)) <= budget // 3:
            break
    intro = [head, "[too many files to list in full: counts per directory, then the first files]", *dirs,
             *([untracked] if untracked else [])]

    def render_condensed(k: int) -> str:
        more = len(paths) - k
        return "\n".join([*intro, *(labels[p] for p in paths[:k]),
                          *([f"… [{more:,} more files, counted per directory above]"] if more else [])])

    base_tokens = safe_count(count, render_condensed(0))
    if base_tokens > budget:  # even the directory counts are too many: the lines that fit
        cut = select_lines(intro, list(range(len(intro))), budget, count)
        return Body(cut.text, -1, ("file list condensed to counts per directory",), cut.tokens,
                    _detail(s.matches, total_lines, n_files, n_files))
    ratio = max(0.05, base_tokens / max(1, len(render_condensed(0))))
    k, out, used = fit_prefix([(len(labels[p]) + 1) * ratio for p in paths], render_condensed, budget, count)
    return Body(out, -1, ("file list condensed to counts per directory",), used,
                _detail(s.matches, total_lines, n_files, n_files - k))


def _tree_body(head: str, paths: list[str], labels: dict[str, str], untracked: str, count: Count) -> tuple[str, int] | None:
    tree = _tree([labels[p] for p in paths])
    if tree is None:
        return None
    text = "\n".join([head, f"{TREE_HEADER}{_TREE_HELP}", *tree, *([untracked] if untracked else [])])
    return text, safe_count(count, text)


def _detail(matches: int, lines: int, files: int, files_dropped: int) -> str:
    what = f"dropped {max(0, matches):,} match lines"
    if files_dropped:
        what += f" and the names of {files_dropped:,} of {files:,} files (counted per directory)"
    else:
        what += f"; all {files:,} files listed with their counts"
    return what
