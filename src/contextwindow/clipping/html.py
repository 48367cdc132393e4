"""HTML: the readable text and the links, without markup, scripts or styles."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .measure import Count
from .select import Body
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


def extract(html: str) -> str:
    """Readable text of an HTML page, links inline as ``text <href>``, blank runs collapsed."""
    p = _Extractor()
    p.feed(html)
    p.close()
    title = " ".join("".join(p.title).split())
    lines = [" ".join(ln.split()) for ln in "".join(p.out).split("\n")]
    body = "\n".join(ln for ln in lines if ln)
    return (f"# {title}\n" if title else "") + body


def clip_html(text: str, budget: int, count: Count) -> Body:
    extracted = extract(text)
    body = clip_text(extracted, budget, count)
    return Body(body.text, -1, ("HTML reduced to its text and links", *body.notes))
