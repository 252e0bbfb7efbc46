"""A feed's HTML as plain markdown text that does nothing when the note is opened.

A feed entry's summary is written by whoever runs the feed. Obsidian renders a note's HTML and
markdown, and plugins run some code blocks (Dataview's ``dataviewjs``), so the summary is reduced
to its visible text (scripts, styles and templates dropped) and then every construct that could
act is made literal: raw HTML tags (``<`` as ``&lt;``), code fences (no block can start, so none
can run), image and embed syntax (``![`` loads remote images and other notes), and the
``<!-- @generated -->`` markers of generated blocks (neutralised).
"""

from __future__ import annotations

import re

from vaultctx.brain.markers import neutralise
from vaultctx.vault.note import html_to_text

MAX_LINE_CHARS = 4000
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})", re.MULTILINE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def plain_text(html: str, *, max_chars: int) -> str:
    """The visible text of ``html``, made inert, at most ``max_chars`` characters."""
    text = html_to_text(html[: max_chars * 4])[1]
    return inert_markdown(text, max_chars=max_chars)


def inert_markdown(text: str, *, max_chars: int) -> str:
    """``text`` with nothing in it that Obsidian or a plugin would act on."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = neutralise(text)
    text = text.replace("<", "&lt;")
    text = text.replace("![", "!\\[")
    text = _FENCE.sub(lambda match: match.group(1) + "\\" + match.group(2), text)
    lines = [line[:MAX_LINE_CHARS] for line in text.split("\n")]
    text = "\n".join(lines).strip()
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0].rstrip() + " …"
    return text


def one_line(text: str, *, max_chars: int = 200) -> str:
    """A title: one line of visible text, nothing that could act, nothing invisible."""
    flat = " ".join(_CONTROL.sub(" ", html_to_text(text)[1]).split())
    flat = flat[:max_chars].rstrip()
    return inert_markdown(flat, max_chars=max_chars)


__all__ = ["inert_markdown", "one_line", "plain_text"]
