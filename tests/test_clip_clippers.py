"""Each clipper on realistic outputs: what must survive does, and the output fits the budget."""

from __future__ import annotations

import json
import re

from contextwindow.clipping import MARKER_ALLOWANCE, MemoryOffload, clip, count_markers, sniff
from contextwindow.clipping.html import extract
from contextwindow.clipping.jsonclip import kept_key_names, key_names
from contextwindow.clipping.search import TREE_HEADER, listed_files, parse

# Big enough that these realistic outputs reach their structured clipper (not the hard-cap preview).
CAP = 400_000


def _grep_output(files: int = 60, per_file: int = 12) -> str:
    lines = []
    for f in range(files):
        for m in range(per_file + f % 3):
            lines.append(f"src/pkg{f}/module_{f}.py:{10 + m * 7}:    result = compute_value(config, {m})  # handler")
    return "\n".join(lines)


def _pytest_log() -> str:
    head = ["============================= test session starts ==============================",
            "platform linux -- Python 3.11.4, pytest-8.2.0, pluggy-1.5.0",
            "rootdir: /work/project", "collected 812 items", ""]
    body = [f"tests/test_mod{i // 40}.py::test_case_{i} PASSED" + " " * 20 + f"[{i * 100 // 812:3d}%]" for i in range(800)]
    failure = [
        "=================================== FAILURES ===================================",
        "_________________________________ test_parse __________________________________",
        "",
        "    def test_parse():",
        ">       assert parse('x') == 2",
        "E       AssertionError: assert 1 == 2",
        "E        +  where 1 = parse('x')",
        "",
        "tests/test_parser.py:14: AssertionError",
        "Traceback (most recent call last):",
        '  File "/work/project/app/main.py", line 88, in <module>',
        "    main()",
        '  File "/work/project/app/main.py", line 80, in main',
        "    run(config)",
        "KeyError: 'database_url'",
        "warning: unused variable `tmp` in src/lib.rs",
        "=========================== short test summary info ============================",
        "FAILED tests/test_parser.py::test_parse - AssertionError: assert 1 == 2",
        "=================== 1 failed, 800 passed, 11 skipped in 12.34s ===================",
    ]
    return "\n".join(head + body[:400] + failure[:9] + body[400:] + failure[9:])


def test_search_keeps_every_file_with_exact_counts() -> None:
    text = _grep_output()
    assert sniff(text) == "search"
    r = clip(text, 4000, sink=MemoryOffload(), hard_cap_tokens=CAP)
    assert r.report.clipped and r.report.kind == "search"
    files = parse(text.split("\n")).files
    assert len(files) == 60
    listed = listed_files(r.text)
    for path, f in files.items():  # every file, with its exact count
        assert listed.get(path) == f.matches, path
    assert "match lines" in r.text.rsplit("\n", 1)[1]  # the marker says matches were dropped
    assert count_markers(r.text) == 1
    assert r.report.tokens_after <= 4000 + MARKER_ALLOWANCE


def test_search_ripgrep_heading_and_count_forms() -> None:
    heading = []
    for f in range(30):
        heading.append(f"lib/area{f}/thing.ts")
        heading += [f"{n}:const value{n} = load(thing, options, handler)" for n in range(1, 60)]
        heading.append("")
    text = "\n".join(heading)
    assert sniff(text) == "search"
    r = clip(text, 1500, hard_cap_tokens=CAP)
    listed = listed_files(r.text)
    for f in range(30):
        assert listed.get(f"lib/area{f}/thing.ts") == 59
    counts = "\n".join(f"src/very/long/directory/name/for/file_{i}.py:{i * 3 + 1}" for i in range(400))
    assert sniff(counts) == "search"
    rc = clip(counts, 1200, hard_cap_tokens=CAP)
    assert rc.report.kind == "search" and count_markers(rc.text) == 1
    truth = {f"src/very/long/directory/name/for/file_{i}.py": i * 3 + 1 for i in range(400)}
    listed = listed_files(rc.text)
    assert 50 < len(listed) < 400 and all(truth[p] == n for p, n in listed.items())  # those listed: exact counts
    assert "(400 files, 239,800 matches)" in rc.text  # the rest counted per directory


def test_log_keeps_errors_traceback_and_summary() -> None:
    text = _pytest_log()
    assert sniff(text) == "log"
    r = clip(text, 800, sink=MemoryOffload(), hard_cap_tokens=CAP)
    assert r.report.kind == "log"
    for must in ("E       AssertionError: assert 1 == 2", "Traceback (most recent call last):",
                 '  File "/work/project/app/main.py", line 80, in main', "KeyError: 'database_url'",
                 "1 failed, 800 passed, 11 skipped in 12.34s", "FAILED tests/test_parser.py::test_parse",
                 "tests/test_parser.py:14: AssertionError"):
        assert must in r.text, must
    assert r.text.startswith("=====")  # head kept
    assert count_markers(r.text) == 1
    assert r.report.tokens_after <= 800 + MARKER_ALLOWANCE


def test_log_compiler_summaries() -> None:
    lines = [f"   Compiling crate{i} v0.1.{i}" for i in range(600)]
    lines[300:300] = ["error[E0308]: mismatched types", "  --> src/main.rs:4:18", "   |", "4  |     let x: u32 = \"a\";",
                      "   |                  ^^^ expected `u32`, found `&str`"]
    lines += ["error: could not compile `app` (bin \"app\") due to 1 previous error", "3 errors generated.",
              "make: *** [Makefile:12: build] Error 1"]
    r = clip("\n".join(lines), 400, hard_cap_tokens=CAP)
    for must in ("error[E0308]: mismatched types", "  --> src/main.rs:4:18", "error: could not compile",
                 "3 errors generated.", "make: *** [Makefile:12: build] Error 1"):
        assert must in r.text, must


def test_json_keeps_every_key() -> None:
    doc = {
        "meta": {"total": 5000, "page": {"size": 5000, "cursor": "x" * 3000}},
        "items": [{"id": i, "name": f"item {i}", "attrs": {"color": "red", "size": i}} for i in range(5000)],
    }
    doc["items"][4321]["rare_key"] = {"nested_rare": True}
    text = json.dumps(doc, indent=2)
    assert sniff(text) == "json"
    r = clip(text, 1000, hard_cap_tokens=CAP)
    assert r.report.kind == "json"
    assert "more items" in r.text
    body = r.text[: r.text.rindex("\n[contextwindow clipped")]
    assert kept_key_names(body) >= key_names(doc)  # the kept shape is valid JSON with every key
    assert r.report.tokens_after <= 1000 + MARKER_ALLOWANCE


def test_diff_keeps_file_and_hunk_headers() -> None:
    parts = []
    for f in range(12):
        parts += [f"diff --git a/src/f{f}.py b/src/f{f}.py", "index 83db48f..bf269f4 100644",
                  f"--- a/src/f{f}.py", f"+++ b/src/f{f}.py"]
        for h in range(3):
            parts.append(f"@@ -{h * 50 + 1},40 +{h * 50 + 1},42 @@ def func_{h}():")
            parts += [f"-    old_line_{i} = compute({i})" for i in range(20)]
            parts += [f"+    new_line_{i} = compute({i}, strict=True)" for i in range(22)]
    text = "\n".join(parts)
    assert sniff(text) == "diff"
    r = clip(text, 2500, hard_cap_tokens=CAP)
    assert r.report.kind == "diff"
    for line in parts:
        if line.startswith(("diff --git", "@@", "--- a/", "+++ b/")):
            assert line in r.text, line
    assert r.text.count("  [+22 −20]") == 36  # every hunk header carries its +/- counts
    assert "[diff: 12 files, 36 hunks, +792 −720]" in r.text


def test_html_becomes_text_and_links() -> None:
    page = ["<!DOCTYPE html><html><head><title>Release notes</title><style>body{color:red}</style>",
            "<script>var secret = 1;</script></head><body>"]
    for i in range(300):
        page.append(f"<div class='x'><p>Paragraph {i} explains feature {i}.</p><a href='https://ex.com/f{i}'>feature {i}</a></div>")
    page.append("</body></html>")
    text = "\n".join(page)
    assert sniff(text) == "html"
    assert "var secret" not in extract(text)
    r = clip(text, 600, hard_cap_tokens=CAP)
    assert r.report.kind == "html"
    assert "# Release notes" in r.text and "https://ex.com/f0" in r.text and "<div" not in r.text


def test_numbered_read_keeps_numbered_head_and_tail() -> None:
    arrow = "\n".join(f"{i:>6}→    line {i} of the file with some code()" for i in range(1, 3001))
    tab = "\n".join(f"{i:>6}\tline {i} of the file" for i in range(1, 3001))
    for text in (arrow, tab):
        assert sniff(text) == "read"
        r = clip(text, 700, hard_cap_tokens=CAP)
        assert r.report.kind == "read"
        assert re.search(r"^\s+1[→\t]", r.text, re.M) and re.search(r"^\s*3000[→\t]", r.text, re.M)
        m = re.search(r"re-read with offset=(\d+) limit=(\d+)", r.text)
        assert m and 1 < int(m.group(1)) < 3000


def test_plain_text_head_and_tail() -> None:
    text = "\n".join(f"free text sentence number {i} about nothing in particular" for i in range(4000))
    r = clip(text, 500, hard_cap_tokens=CAP)
    assert r.report.kind == "text"
    assert "number 0 " in r.text and "number 3999 " in r.text and "lines omitted" in r.text


def test_path_lists_write_their_common_directory_once() -> None:
    base = "/home/user/projects/big-monorepo/packages/frontend/src/"
    paths = [f"{base}components/widget_{i}/index.tsx" for i in range(300)]
    r = clip("\n".join(paths), 4000, hard_cap_tokens=CAP)
    assert r.report.kind == "search"
    # All 300 fit as a tree: the common directory once, then {widget_0,...}/index.tsx.
    assert r.text.split("\n")[1].startswith(TREE_HEADER) and r.text.count(base) == 1
    assert set(paths) <= set(listed_files(r.text))
    # Too many for a tree within the budget: the common directory is still written once.
    many = [f"{base}components/w{i}/f{i}.tsx" for i in range(2000)]
    r = clip("\n".join(many), 4000, hard_cap_tokens=CAP)
    first = r.text.split("\n", 1)[0]
    assert first.endswith(f"relative to {base}components/]") and r.text.count(base) == 1
    assert "\nw0/f0.tsx\n" in r.text and "(2,000 files" in r.text  # counted per directory, then listed
    assert "names of" in r.text.rsplit("\n", 1)[1]  # the marker says file names were dropped


def test_html_substitutions_give_the_tag_walks_text() -> None:
    # the fast path (three regex substitutions) against the one-tag-at-a-time walk, on seeded
    # random markup: mixed case, names that extend a block or link name, links without href or
    # close, javascript:/# links, attributes with quotes, entities, stray '<' (the walk itself)
    import random

    from contextwindow.clipping.html import _SKIP_RE, _text_of, _text_walk

    rng = random.Random(12)
    tags = ["p", "P", "div", "DiV", "a href='/x'", 'A HREF="/y?q=1&amp;r"', "a", "a href=#top", "a href=javascript:go()",
            "abbr", "pre", "preload", "br/", "h1", "h7", "title", "td", "span class=x", "section", "li", "x-li", "p:x"]
    words = ["alpha", "b&amp;c", "&lt;tag&gt;", "é", " ", "\n", "x<y", "1 > 0", "\ue000"]
    for case in range(400):
        bits: list[str] = []
        for _ in range(rng.randint(1, 40)):
            r = rng.random()
            if r < 0.45:
                t = rng.choice(tags)
                bits.append(f"<{'/' if rng.random() < 0.4 else ''}{t}>")
            else:
                w = rng.choice(words)
                if case % 3 and w in ("x<y", "\ue000"):
                    w = "z"
                bits.append(w)
        piece = "".join(bits)
        assert _text_of(piece) == _text_walk(_SKIP_RE.sub(" ", piece)), piece


def test_html_links_and_scripts_cut_by_a_chunk_end_are_carried_whole() -> None:
    from contextwindow.clipping.html import _safe_end
    from contextwindow.clipping.source import CHUNK_CHARS

    filler = "<p>row text</p>" * (CHUNK_CHARS // 15 - 3)
    for tail in ["<a href='/far/away'>far link text</a>", "<script>var hidden = 1;</script>", "<!-- a comment -->"]:
        page = f"<html><body>{filler}{tail}<p>after</p></body></html>"
        for cut in range(len(filler) + 12, len(filler) + 12 + len(tail)):
            end = _safe_end(page[:cut])
            assert end <= len(filler) + 12  # never inside the link, script or comment
        text = extract(page)
        assert text.endswith("after")
        assert ("far link text </far/away>" in text) == tail.startswith("<a")
        assert "hidden" not in text and "a comment" not in text
