"""HTML: the readable text and the links, without markup, scripts or styles."""

from __future__ import annotations

import re
from collections import deque
from html.parser import HTMLParser

from .measure import Count
from .select import Body
from .source import CHUNK_CHARS
from .text import clip_text

_BLOCK = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
     "header", "footer", "nav", "pre", "blockquote", "dd", "dt", "hr", "title"}
)
_SKIP = frozenset({"script", "style", "noscript", "svg", "template", "head"})
TAG_RE = re.compile(r"<(?:!doctype html|html|head|body|div|span|p|a|script|table|li|ul|meta|link|h[1-6])\b", re.I)


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.href: str | None = None
        self.link_text: list[str] = []
        self.title: list[str] = []
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        if tag in _SKIP:
            self.skip += 1
        elif tag in _BLOCK:
            self.out.append("\n")
        if tag == "a":
            self.href = dict(attrs).get("href")
            self.link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _SKIP and self.skip:
            self.skip -= 1
        elif tag in _BLOCK:
            self.out.append("\n")
        if tag == "a" and self.href is not None:
            label = " ".join("".join(self.link_text).split())
            if self.href and not self.href.startswith(("javascript:", "#")):
                self.out.append(f" <{self.href}>" if label else f"[link] <{self.href}>")
            self.href = None

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        if self.skip:
            return
        self.out.append(data)
        if self.href is not None:
            self.link_text.append(data)


def html_score(head: str) -> float:
    low = head.lstrip()[:200].lower()
    if low.startswith(("<!doctype html", "<html")):
        return 1.0
    return 1.0 if len(TAG_RE.findall(head)) >= 8 else 0.0


def extract(html: str, cap_chars: int | None = None) -> str:
    """Readable text of an HTML page, links inline as ``text <href>``, blank runs collapsed.
    Fed in chunks; with ``cap_chars`` only the first and last ``cap_chars`` of text are kept
    (the middle is counted), so memory stays bounded on any page."""
    p = _Extractor()
    head: list[str] = []
    head_chars = 0
    tail: deque[str] = deque()
    tail_chars = 0
    dropped = 0
    for start in range(0, len(html), CHUNK_CHARS):
        p.feed(html[start:start + CHUNK_CHARS])
        for piece in p.out:
            if cap_chars is None or head_chars < cap_chars:
                head.append(piece)
                head_chars += len(piece)
            else:
                tail.append(piece)
                tail_chars += len(piece)
                while tail_chars > cap_chars and len(tail) > 1:
                    old = tail.popleft()
                    tail_chars -= len(old)
                    dropped += len(old)
        p.out.clear()
    p.close()
    head.extend(tail)
    head.extend(p.out)
    title = " ".join("".join(p.title).split())[:500]
    text = "".join(head)
    if dropped:
        mid = len("".join(head[: len(head) - len(tail) - len(p.out)]))
        text = f"{text[:mid]}\n… [{dropped:,} chars of page text omitted] …\n{text[mid:]}"
    lines = [" ".join(ln.split()) for ln in text.split("\n")]
    body = "\n".join(ln for ln in lines if ln)
    return (f"# {title}\n" if title else "") + body


def clip_html(text: str, budget: int, count: Count) -> Body:
    extracted = extract(text, max(200_000, budget * 48))
    body = clip_text(extracted, budget, count)
    return Body(body.text, -1, ("HTML reduced to its text and links", *body.notes), body.tokens,
                "dropped the markup, scripts and styles, and the middle of the page text")
