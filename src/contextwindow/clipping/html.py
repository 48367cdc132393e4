"""HTML: the readable text and the links, without markup, scripts or styles.

A regex extractor, chunk by chunk (a tag or a script cut by a chunk's end is carried into the
next chunk), so any page size costs one chunk of memory plus the text kept at its two ends.
"""

from __future__ import annotations

import html as htmllib
import re
from collections import deque

from .measure import Count
from .select import Body
from .source import CHUNK_CHARS
from .text import clip_text

TAG_RE = re.compile(r"<(?:!doctype html|html|head|body|div|span|p|a|script|table|li|ul|meta|link|h[1-6])\b", re.I)
_SKIP_RE = re.compile(r"<(script|style|noscript|svg|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.I | re.S)
_OPEN_SKIP_RE = re.compile(r"<(?:script|style|noscript|svg|template)\b|<!--", re.I)
_TITLE_RE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
_HEAD_RE = re.compile(r"<head\b[^>]*>.*?</head\s*>", re.I | re.S)
_ANY_TAG_RE = re.compile(r"<[^>]*>")
_SPACES_RE = re.compile(r"[ \t\r\f\v]+")


def html_score(head: str) -> float:
    low = head.lstrip()[:200].lower()
    if low.startswith(("<!doctype html", "<html")):
        return 1.0
    return 1.0 if len(TAG_RE.findall(head)) >= 8 else 0.0


_BLOCK = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
     "header", "footer", "nav", "pre", "blockquote", "dd", "dt", "hr", "title"}
)
_TAG_ITER = re.compile(r"<(/?)([A-Za-z][\w:-]*)([^>]*)>|<[^>]*>")
_HREF_RE = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)


def _text_walk(piece: str) -> str:
    """The tag walk, one tag at a time (the reference; used when a ``<`` sits inside a tag)."""
    out: list[str] = []
    pos = 0
    href: str | None = None
    for m in _TAG_ITER.finditer(piece):
        if m.start() > pos:
            out.append(piece[pos:m.start()])
        pos = m.end()
        name = m.group(2)
        if name is None:
            continue
        name = name.lower()
        if name == "a":
            if m.group(1):
                if href and not href.startswith(("javascript:", "#")):
                    out.append(f" <{href}>")
                href = None
            else:
                h = _HREF_RE.search(m.group(3))
                href = (h.group(1) or h.group(2) or h.group(3) or "") if h else None
        elif name in _BLOCK:
            out.append("\n")
    out.append(piece[pos:])
    return htmllib.unescape("".join(out))


def _caseless_trie(names: list[str]) -> str:
    """A regex matching exactly ``names`` in any ASCII case, shaped as a trie (one branch per
    first letter, not one alternative per name: the engine tries far fewer alternatives)."""
    if names == [""]:
        return ""
    firsts: dict[str, list[str]] = {}
    empty = False
    for n in names:
        if n:
            firsts.setdefault(n[0], []).append(n[1:])
        else:
            empty = True
    alts = []
    for c, rests in sorted(firsts.items()):
        head = f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c)
        alts.append(head + _caseless_trie(sorted(rests)))
    return "(?:" + "|".join(alts) + ")" + ("?" if empty else "")


# Each of these matches a whole tag as the walk reads it (from its ``<`` to the first ``>``),
# the name exactly (any case, not a longer name), so the three substitutions below (run by the
# regex engine, not a Python loop per tag) give the walk's text whenever no tag holds a ``<``.
_A_OPEN_RE = re.compile(r"<[aA](?![\w:-])[^>]*>")
_A_CLOSE_RE = re.compile(r"</[aA](?![\w:-])[^>]*>")
# an <a>'s first href (as _HREF_RE finds it in the tag's attributes, which hold no '>')
_A_HREF_RE = re.compile(
    r"<(/?)[aA](?![\w:-])(?:[^>]*?\b[hH][rR][eE][fF]\s*=\s*(?:\"([^\">]*)\"|'([^'>]*)'|([^\s>]+)))?[^>]*>"
)
_BLOCK_TAG_RE = re.compile(r"</?" + _caseless_trie(sorted(_BLOCK)) + r"(?![\w:-])[^>]*>")
_LT_IN_TAG_RE = re.compile(r"<[^>]*<")
_LINK_MARK = "\ue000"  # a private-use character: where a link's `` <href>`` goes


def _text_of(piece: str) -> str:
    """Text between the tags; a block tag is a line break; a link ends with `` <href>``."""
    piece = _SKIP_RE.sub(" ", piece)
    if _LINK_MARK in piece or _LT_IN_TAG_RE.search(piece):
        return _text_walk(piece)
    # the links in one pass of the engine: (close?, href) per <a>/</a>; a close shows the href
    # of the open before it, as the walk does
    hrefs: list[str] = []
    href = ""
    for close, dq, sq, bare in _A_HREF_RE.findall(piece):
        if close:
            hrefs.append(href if href and not href.startswith(("javascript:", "#")) else "")
            href = ""
        else:
            href = dq or sq or bare
    if hrefs:
        piece = _A_CLOSE_RE.sub(_LINK_MARK, _A_OPEN_RE.sub("", piece))
    piece = _ANY_TAG_RE.sub("", _BLOCK_TAG_RE.sub("\n", piece))
    if hrefs:
        parts = piece.split(_LINK_MARK)
        out = [parts[0]]
        for h, rest in zip(hrefs, parts[1:], strict=True):
            if h:
                out.append(f" <{h}>")
            out.append(rest)
        piece = "".join(out)
    return htmllib.unescape(piece)


_LAST_SKIP_RE = re.compile(r".*(" + _OPEN_SKIP_RE.pattern + ")", re.I | re.S)
_LAST_A_RE = re.compile(r".*(<a\b)", re.I | re.S)


def _safe_end(chunk: str) -> int:
    """Where a chunk can be cut without splitting a tag, a link or a skipped block."""
    end = len(chunk)
    lt = chunk.rfind("<")
    if lt >= 0 and chunk.find(">", lt) < 0:
        end = lt
    low: str | None = None
    for opener in (_LAST_SKIP_RE, _LAST_A_RE):
        last = opener.match(chunk, 0, end)  # the last opener before ``end`` (a greedy ``.*`` first)
        if last is not None:
            found = last.group(1)
            closer = "-->" if found.startswith("<!--") else ("</a" if found.lower() == "<a" else "</")
            low = chunk.lower() if low is None else low
            if low.find(closer, last.end(1), end) < 0:  # its closer whole within what is kept
                end = min(end, last.start(1))
    return end


def extract(html: str, cap_chars: int | None = None) -> str:
    """Readable text of an HTML page, links inline as ``text <href>``, blank runs collapsed.
    With ``cap_chars`` only the first and last ``cap_chars`` of text are kept (the middle is
    counted), so memory stays bounded on any page."""
    m = _TITLE_RE.search(html, 0, min(len(html), 200_000))
    title = " ".join(htmllib.unescape(_ANY_TAG_RE.sub("", m.group(1))).split())[:500] if m else ""
    head: list[str] = []
    head_chars = 0
    tail: deque[str] = deque()
    tail_chars = 0
    dropped = 0
    carry = ""
    pos = 0
    n = len(html)
    while pos < n or carry:
        chunk = carry + html[pos : pos + CHUNK_CHARS]
        pos += CHUNK_CHARS
        end = len(chunk) if pos >= n else _safe_end(chunk)
        if end < len(chunk) // 4 and len(chunk) > 4 * CHUNK_CHARS:  # an unclosed block: give up waiting
            end = len(chunk)
        piece, carry = chunk[:end], chunk[end:]
        if pos >= n:
            piece, carry = chunk, ""
        if not head and not head_chars:
            piece = _HEAD_RE.sub("\n", piece, count=1)
        text = _text_of(piece)
        if cap_chars is None or head_chars < cap_chars:
            head.append(text)
            head_chars += len(text)
        else:
            tail.append(text)
            tail_chars += len(text)
            while tail_chars > cap_chars and len(tail) > 1:
                old = tail.popleft()
                tail_chars -= len(old)
                dropped += len(old)
    body = "".join(head) + (f"\n… [{dropped:,} chars of page text omitted] …\n" if dropped else "") + "".join(tail)
    lines = (ln.strip() for ln in _SPACES_RE.sub(" ", body).split("\n"))  # the runs never cross a line
    text = "\n".join(ln for ln in lines if ln)
    return (f"# {title}\n" if title else "") + text


def clip_html(text: str, budget: int, count: Count) -> Body:
    extracted = extract(text, max(200_000, budget * 48))
    body = clip_text(extracted, budget, count)
    return Body(body.text, -1, ("HTML reduced to its text and links", *body.notes), body.tokens,
                "dropped the markup, scripts and styles, and the middle of the page text")
