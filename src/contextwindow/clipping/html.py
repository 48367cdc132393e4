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


def _text_of(piece: str) -> str:
    """Text between the tags; a block tag is a line break; a link ends with `` <href>``."""
    piece = _SKIP_RE.sub(" ", piece)
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


def _safe_end(chunk: str) -> int:
    """Where a chunk can be cut without splitting a tag, a link or a skipped block."""
    end = len(chunk)
    lt = chunk.rfind("<")
    if lt >= 0 and chunk.find(">", lt) < 0:
        end = lt
    for opener in (_OPEN_SKIP_RE, re.compile(r"<a\b", re.I)):
        last = None
        for found in opener.finditer(chunk, 0, end):
            last = found
        if last is not None:
            closer = "-->" if last.group().startswith("<!--") else ("</a" if last.group().lower() == "<a" else "</")
            if chunk.lower().find(closer, last.end()) < 0:
                end = min(end, last.start())
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
    lines = (_SPACES_RE.sub(" ", ln).strip() for ln in body.split("\n"))
    text = "\n".join(ln for ln in lines if ln)
    return (f"# {title}\n" if title else "") + text


def clip_html(text: str, budget: int, count: Count) -> Body:
    extracted = extract(text, max(200_000, budget * 48))
    body = clip_text(extracted, budget, count)
    return Body(body.text, -1, ("HTML reduced to its text and links", *body.notes), body.tokens,
                "dropped the markup, scripts and styles, and the middle of the page text")
