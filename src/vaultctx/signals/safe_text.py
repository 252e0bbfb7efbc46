"""A feed's HTML as plain markdown text that does nothing when the note is opened.

A feed entry's summary is written by whoever runs the feed. It is reduced to its visible text
(scripts, styles and templates dropped; ``vault.note.html_to_text``) and then made inert by the
same code as a clipped page (``organize.safe_markdown``: no raw HTML, no link or embed into the
vault, no remote image, no fence a plugin executes, no generated-block marker), with invisible
and direction-changing characters removed and the length bounded.
"""

from __future__ import annotations

import re

from vaultctx.organize.safe_markdown import safe_markdown
from vaultctx.vault.note import html_to_text

MAX_LINE_CHARS = 4000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def plain_text(html: str, *, max_chars: int) -> str:
    """The visible text of ``html``, made inert, at most ``max_chars`` characters."""
    text = _visible_text(html[: max_chars * 4])
    return inert_markdown(text, max_chars=max_chars)


def _visible_text(html: str) -> str:
    """What a browser would show; markup Python's parser rejects (``<![`` not followed by a
    name raises AssertionError) is kept as text, which ``inert_markdown`` then escapes."""
    try:
        return html_to_text(html)[1]
    except AssertionError:
        return html


def inert_markdown(text: str, *, max_chars: int) -> str:
    """``text`` with nothing in it that Obsidian or a plugin would act on."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [line[:MAX_LINE_CHARS] for line in safe_markdown(text).split("\n")]
    text = "\n".join(lines).strip()
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0].rstrip() + " …"
    return text


def one_line(text: str, *, max_chars: int = 200) -> str:
    """A title: one line of visible text, nothing that could act, nothing invisible."""
    flat = " ".join(_CONTROL.sub(" ", _visible_text(text)).split())
    flat = flat[:max_chars].rstrip()
    # A title becomes a heading, where a leading ``` opens no code block: every `<` is escaped,
    # not only those outside what safe_markdown took for code.
    return inert_markdown(flat, max_chars=max_chars).replace("<", "&lt;")


__all__ = ["inert_markdown", "one_line", "plain_text"]
