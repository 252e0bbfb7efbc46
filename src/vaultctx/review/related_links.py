"""The ``related-links`` block a note gets when link suggestions are accepted: a "## Related
notes" heading and one ``- [[path|Title]]`` line per note, merged as a set with the links the
block already lists (those first; one link per note, compared case-insensitively), so accepting
the same suggestion twice never lists it twice."""

from __future__ import annotations

import re
from urllib.parse import unquote

from vaultctx.brain.markers import read_block, upsert_block
from vaultctx.brain.wikilinks import link_target, note_link

BLOCK_KEY = "related-links"
HEADING = "## Related notes"
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")
_MARKDOWN_LINK = re.compile(r"\]\(([^)#]+)")


def _key(line: str) -> str | None:
    """The note a list line links to, as compared: the path without .md, case-folded."""
    found = _WIKILINK.search(line)
    if found is not None:
        return link_target(found.group(1).strip()).casefold()
    found = _MARKDOWN_LINK.search(line)
    if found is not None:
        return link_target(unquote(found.group(1).strip())).casefold()
    return None


def merge_related_links(text: str, links: list[tuple[str, str]], *, name: str) -> tuple[str, int]:
    """(``text`` with its block holding the old links and each of ``links`` (path, title) not
    yet there, the number added). The text is unchanged when nothing is added."""
    existing = read_block(text, BLOCK_KEY, name=name) or ""
    lines: list[str] = []
    keys: set[str] = set()
    for line in existing.splitlines():
        key = _key(line)
        if line.lstrip().startswith("- ") and key is not None and key not in keys:
            keys.add(key)
            lines.append(line.rstrip())
    added = 0
    for path, title in links:
        key = link_target(path).casefold()
        if key not in keys:
            keys.add(key)
            lines.append(f"- {note_link(path, title)}")
            added += 1
    if not added:
        return text, 0
    return upsert_block(text, BLOCK_KEY, "\n".join([HEADING, *lines]), name=name), added
