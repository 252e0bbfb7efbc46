"""How a report or a generated block names a note: ``[[path-without-ext|Title]]``.

A path or title holding ``#``, ``|``, ``[`` or ``]`` would end or split a wikilink, so such a
note is written as a markdown link with the path percent-encoded instead (Obsidian follows both).
"""

from __future__ import annotations

from urllib.parse import quote

_BREAKS_WIKILINK = ("#", "|", "[", "]", "\n", "\r")


def link_target(path: str) -> str:
    """The vault path as a link names it: without its ``.md``."""
    return path[:-3] if path.lower().endswith(".md") else path


def note_link(path: str, title: str | None = None) -> str:
    """A link to the note at vault-relative ``path``, shown as ``title`` when it differs."""
    target = link_target(path)
    shown = (title or "").strip() or target.rsplit("/", 1)[-1]
    if any(mark in target or mark in shown for mark in _BREAKS_WIKILINK):
        label = shown
        for mark in ("[", "]", "\n", "\r"):
            label = label.replace(mark, " ")
        return f"[{label.strip()}]({quote(path)})"
    if shown == target:
        return f"[[{target}]]"
    return f"[[{target}|{shown}]]"
