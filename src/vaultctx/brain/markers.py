"""Generated blocks: the only part of a note a regeneration may rewrite.

A block is ``<!-- @generated:KEY -->``, a newline, the content, a newline, ``<!-- @end:KEY -->``.
Upserting replaces the inside of the first closed block with that key, or appends a block at the
end; everything outside the markers stays byte-for-byte as the user left it. Text a model wrote
cannot open or close a block: marker-like strings in it are neutralised (a zero-width space after
``<!--``) before it goes in. A start marker without its end (the user deleted the end, or pasted
half a block) is an error, never a guess: guessing would move or swallow the user's text.
"""

from __future__ import annotations

import re

from vaultctx.errors import VaultctxError

ZERO_WIDTH = "\u200b"
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
# Any spelling an HTML comment reader, or our own parser, could take for a marker.
_MARKER_LIKE = re.compile(r"<!--(?=\s*@(?:generated|end)\b)", re.IGNORECASE)


class MarkerError(VaultctxError):
    """A note's generated block cannot be found or written safely."""


def start_marker(key: str) -> str:
    return f"<!-- @generated:{_checked(key)} -->"


def end_marker(key: str) -> str:
    return f"<!-- @end:{_checked(key)} -->"


def _checked(key: str) -> str:
    if not _KEY.match(key):
        raise ValueError(f"not a block key: {key!r}")
    return key


def neutralise(text: str) -> str:
    """``text`` with every marker-like comment opener broken by a zero-width space, so content
    placed inside a block can never end it or start another."""
    return _MARKER_LIKE.sub("<!--" + ZERO_WIDTH, text)


def block_span(text: str, key: str, *, name: str = "the note") -> tuple[int, int] | None:
    """(start, end) of the inside of the first closed block ``key`` in ``text`` (between the
    newline after the start marker and the newline before the end marker), or None when there
    is none. ``MarkerError`` when a start marker has no end."""
    start, end = start_marker(key), end_marker(key)
    found: tuple[int, int] | None = None
    position = 0
    while (opened := text.find(start, position)) != -1:
        inner = opened + len(start)
        closed = text.find(end, inner)
        reopened = text.find(start, inner)
        if closed == -1 or (reopened != -1 and reopened < closed):
            line = text.count("\n", 0, opened) + 1
            raise MarkerError(
                f"{name} has {start} on line {line} without its {end}; nothing was written",
                f"add {end} where the generated text ends, or delete the start marker",
            )
        if found is None:
            found = (inner, closed)
        position = closed + len(end)
    return found


def read_block(text: str, key: str, *, name: str = "the note") -> str | None:
    """The content of block ``key`` (without the newlines that wrap it), or None."""
    span = block_span(text, key, name=name)
    if span is None:
        return None
    inner = text[span[0] : span[1]]
    if inner.startswith("\n"):
        inner = inner[1:]
    if inner.endswith("\n"):
        inner = inner[:-1]
    return inner


def upsert_block(text: str, key: str, content: str, *, name: str = "the note") -> str:
    """``text`` with block ``key`` holding ``content`` (neutralised): the first closed block is
    replaced inside its markers, or a new block is appended after a blank line."""
    body = "\n" + neutralise(content) + "\n"
    span = block_span(text, key, name=name)
    if span is not None:
        return text[: span[0]] + body + text[span[1] :]
    block = start_marker(key) + body + end_marker(key) + "\n"
    if not text:
        return block
    if text.endswith("\n\n"):
        return text + block
    if text.endswith("\n"):
        return text + "\n" + block
    return text + "\n\n" + block


__all__ = [
    "MarkerError",
    "block_span",
    "end_marker",
    "neutralise",
    "read_block",
    "start_marker",
    "upsert_block",
]
