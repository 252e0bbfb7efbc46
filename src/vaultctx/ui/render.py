"""Note text made into HTML that cannot carry code: markdown and highlighted search snippets.

markdown-it-py runs with raw HTML off (``<script>`` in a note is shown as text) and its default
link check, which drops ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` links (data:
images aside) before they become an ``href``. Snippets are escaped piece by piece, and only the
``<mark>`` tags added here are markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markupsafe import Markup, escape

SNIPPET_CHARS = 320
_TERM = re.compile(r"\w{2,}", re.UNICODE)
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 12
MAX_WIKILINK_CHARS = 500


@dataclass(frozen=True)
class RenderedNote:
    """A note's HTML and its headings (level, text, anchor id), in order."""

    html: Markup
    headings: list[tuple[int, str, str]]


def note_url(path: str, heading: str | None = None) -> str:
    """The note page of ``path`` (a vault path, or a name as Obsidian links resolve it), scrolled
    to ``heading`` when given."""
    url = f"/note?path={quote(path, safe='')}"
    return f"{url}#{heading_anchor(heading)}" if heading else url


def _wikilink(state: StateInline, silent: bool) -> bool:
    """``[[Note]]``, ``[[Note#Heading|text]]`` and ``![[embed]]`` as links to the note page.

    The href is built here from the quoted target, never taken from the note, and the text is a
    text token (escaped when rendered); a target the vault does not have opens the error page.
    """
    start = state.pos + (1 if state.src.startswith("![[", state.pos) else 0)
    if not state.src.startswith("[[", start):
        return False
    end = state.src.find("]]", start + 2)
    inner = state.src[start + 2 : end] if end >= 0 else ""
    target, _, alias = inner.partition("|")
    path, _, heading = target.partition("#")
    if not path.strip() or "\n" in inner or "[" in inner or len(inner) > MAX_WIKILINK_CHARS:
        return False
    if not silent:
        opening = state.push("link_open", "a", 1)
        opening.attrSet("href", note_url(path.strip(), heading.strip() or None))
        opening.attrSet("class", "wikilink")
        state.push("text", "", 0).content = (alias or target).strip()
        state.push("link_close", "a", -1)
    state.pos = end + 2
    return True


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.inline.ruler.before("link", "wikilink", _wikilink)
    return md


def heading_anchor(heading: str) -> str:
    """The id of a heading on the note page, from its text, so a search result's citation
    (``path#Heading``) can link to it: words joined by hyphens, lower case, any script."""
    words = _WORD.findall(heading.lower())
    return "h-" + "-".join(words)[:80]


def render_markdown(text: str) -> RenderedNote:
    """The note's body as HTML; each heading gets an id (``heading_anchor``; a repeated heading
    gets ``-2``, ``-3``, …) for the table of contents and for search results."""
    md = _markdown()
    tokens = md.parse(text)
    headings: list[tuple[int, str, str]] = []
    taken: set[str] = set()
    for position, token in enumerate(tokens):
        if token.type == "heading_open":
            base = anchor = heading_anchor(tokens[position + 1].content)
            count = 1
            while anchor in taken:
                count += 1
                anchor = f"{base}-{count}"
            taken.add(anchor)
            token.attrSet("id", anchor)
            inline = tokens[position + 1]
            headings.append((int(token.tag[1:]), inline.content, anchor))
    return RenderedNote(Markup(md.renderer.render(tokens, md.options, {})), headings)


def query_terms(query: str) -> list[str]:
    """The words of a query worth marking in a snippet, longest first (so a longer word wins
    over a word it contains)."""
    terms = dict.fromkeys(term.lower() for term in _TERM.findall(query))
    return sorted(terms, key=len, reverse=True)[:MAX_TERMS]


def highlight_snippet(text: str, query: str, *, width: int = SNIPPET_CHARS) -> Markup:
    """About ``width`` characters of ``text`` around the first query word, words marked."""
    terms = query_terms(query)
    flat = " ".join(text.split())
    pattern = (
        re.compile("|".join(re.escape(term) for term in terms), re.IGNORECASE) if terms else None
    )
    first = pattern.search(flat) if pattern else None
    start = max(0, (first.start() if first else 0) - width // 4)
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    window = flat[start : start + width]
    lead = "…" if start else ""
    tail = "…" if start + width < len(flat) else ""
    if pattern is None:
        return Markup(escape(lead + window + tail))
    parts: list[str] = [str(escape(lead))]
    position = 0
    for match in pattern.finditer(window):
        parts.append(str(escape(window[position : match.start()])))
        parts.append(f"<mark>{escape(match.group())}</mark>")
        position = match.end()
    parts.append(str(escape(window[position:] + tail)))
    return Markup("".join(parts))
