"""Rewrite the links that pointed at moved notes, as Obsidian does when a file is renamed.

A link is rewritten only when it resolved to a moved file before the move and would not resolve
to it at its new place: ``[[Plan]]`` survives a move into another folder when ``Plan`` is still a
unique name, ``[[projects/Plan]]`` does not. The new target is written in the style of the old
one: a bare name stays the shortest name that resolves (the full path when the name is
ambiguous), a path stays a path, ``./`` and ``../`` stay relative to the linking note, ``.md``
stays written or omitted, and the ``#heading``, ``#^block``, ``|alias`` and the ``!`` of an embed
are kept as they were. Links in code are not links and are left alone (``mask_code``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from urllib.parse import quote, unquote

from vaultctx.vault.links import _MARKDOWN_LINK, _URL_SCHEME, _WIKILINK, LinkResolver, mask_code


class MoveLinks:
    """The vault's files before and after one move (``moved``: old path → new path)."""

    def __init__(self, paths: Sequence[str], moved: Mapping[str, str]) -> None:
        self.moved = dict(moved)
        self.before = LinkResolver(paths, {})
        after = [self.moved.get(path, path) for path in paths]
        self.after = LinkResolver(after, {})

    def rewrite(self, text: str, old_path: str) -> tuple[str, int]:
        """``text`` (the note once at ``old_path``) with its links to moved files rewritten, and
        how many were."""
        if "[[" not in text and "](" not in text:
            return text, 0
        new_path = self.moved.get(old_path, old_path)
        masked = mask_code(text)
        edits: list[tuple[int, int, str]] = []
        for match in _WIKILINK.finditer(masked):
            if match.start() > 0 and masked[match.start() - 1] == "\\":
                continue
            start, end = match.span(1)
            replacement = self._wikilink(text[start:end], old_path, new_path)
            if replacement is not None:
                edits.append((start, end, replacement))
        blanked = _WIKILINK.sub(lambda m: " " * len(m.group(0)), masked)
        for match in _MARKDOWN_LINK.finditer(blanked):
            if match.start() > 0 and blanked[match.start() - 1] == "\\":
                continue
            group = 2 if match.group(2) is not None else 3
            start, end = match.span(group)
            replacement = self._markdown(text[start:end], group == 2, old_path, new_path)
            if replacement is not None:
                edits.append((start, end, replacement))
        for start, end, replacement in sorted(edits, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text, len(edits)

    def _new_target(self, target: str, old_path: str, new_path: str) -> str | None:
        """Where ``target`` (as written in the note at ``old_path``) now points, if it pointed at
        a moved file and no longer reaches it; else None."""
        if not target.strip():
            return None
        resolved = self.before.resolve(target, old_path)
        if resolved is None or resolved not in self.moved:
            return None
        destination = self.moved[resolved]
        if self.after.resolve(target, new_path) == destination:
            return None
        return destination

    def _wikilink(self, inner: str, old_path: str, new_path: str) -> str | None:
        cut = min(
            (i for i in (inner.find("#"), inner.find("|"), inner.find("\\|")) if i >= 0),
            default=len(inner),
        )
        target = inner[:cut]
        destination = self._new_target(target, old_path, new_path)
        if destination is None:
            return None
        written = self._written(
            target.strip(), destination, new_path, keep_md=target.strip().lower().endswith(".md")
        )
        return written + inner[cut:]

    def _markdown(self, raw: str, bracketed: bool, old_path: str, new_path: str) -> str | None:
        decoded = raw if bracketed else unquote(raw)
        if _URL_SCHEME.match(decoded):
            return None
        target, hash_sign, anchor = decoded.partition("#")
        destination = self._new_target(target, old_path, new_path)
        if destination is None:
            return None
        written = self._written(target.strip(), destination, new_path, keep_md=True)
        if not bracketed:
            written = quote(written, safe="/")
            raw_anchor = raw.partition("#")[2]
            return written + (f"#{raw_anchor}" if hash_sign else "")
        return written + (f"#{anchor}" if hash_sign else "")

    def _written(self, old: str, destination: str, from_path: str, *, keep_md: bool) -> str:
        """``destination`` written the way ``old`` was: relative, a path, or a bare name."""
        shown = destination
        if destination.lower().endswith(".md") and not keep_md:
            shown = destination[:-3]
        if old.startswith(("./", "../")):
            folder = posixpath.dirname(from_path)
            relative = posixpath.relpath(shown, folder or ".")
            return relative if relative.startswith("../") else f"./{relative}"
        if "/" in old.strip("/"):
            return shown
        name = posixpath.basename(shown)
        if self.after.resolve(name, from_path) == destination:
            return name
        return shown
