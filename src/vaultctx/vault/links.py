"""Links between notes as Obsidian writes them (docs/reference.md#reading-the-vault) and resolves
them (docs/reference.md#graph-search).

Extraction runs on a copy of the text where code is blanked out (``mask_code``): a ``[[link]]``
or ``#tag`` shown inside a code example is not a link or a tag. Blanking keeps every offset and
line number of the original text.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

LinkKind = Literal["wikilink", "embed", "markdown"]


@dataclass(frozen=True)
class Link:
    """One link as written. ``target`` is "" for a link into the same note (``[[#Heading]]``)."""

    target: str
    heading: str | None
    block: str | None
    alias: str | None
    kind: LinkKind
    line: int


# Fences may be indented more than CommonMark's 3 spaces: Obsidian users nest them in list items
# and callouts (`> ```python`). Matched against "\n" + text: a leading literal lets the engine
# jump from line to line, ten times faster than `^` in MULTILINE mode.
_FENCE_LINE = re.compile(r"\n[ \t>]*(`{3,}|~{3,})([^\n]*)")
# Inline code is a run of N backticks up to the next run of exactly N on the same line. A regex
# for that (backreference, lazy body) rescans the rest of the line from every run that finds no
# partner: a line of runs of distinct lengths cost minutes at 5 MB. Runs are paired in one pass.
_BACKTICK_RUN = re.compile(r"`+")

# Both start with a literal `[` so the regex engine can jump between candidates; a preceding `!`
# (embed) or `\` (escaped, not a link) is looked at after the match. No part of a match that can
# be long may hold a `[`, so each attempt stops at the next candidate: with `[^\]\n]*` as the
# text, a line of 100,000 `[` took a minute (every `[` scanned to the line's end). Obsidian does
# not allow `[` or `]` in file names, and CommonMark ends a link's text at an unmatched `[`.
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MARKDOWN_LINK = re.compile(
    r"\[([^\[\]\n]*)\]\(\s*"
    r"(?:<([^>\[\n]*)>|((?:[^()\[\s]|\([^()\[\s]*\))+))"  # <with spaces> or a bare URL, (parens)
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""  # optional "title"
)
_URL_SCHEME = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def fenced_code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each fenced code block, fence lines included.

    A fence closes with the same character, at least as many, and nothing else on the line; an
    unclosed fence runs to the end of the text (CommonMark).
    """
    spans = []
    opening: re.Match[str] | None = None
    # Offsets in "\n" + text are one more than in text: a match's start is its line's start.
    for line in _FENCE_LINE.finditer("\n" + text):
        marker, rest = line.group(1), line.group(2)
        if opening is None:
            if not (marker[0] == "`" and "`" in rest):  # ``` info strings cannot hold backticks
                opening = line
        elif (
            marker[0] == opening.group(1)[0]
            and len(marker) >= len(opening.group(1))
            and not rest.strip()
        ):
            spans.append((opening.start(), line.end() - 1))
            opening = None
    if opening is not None:
        spans.append((opening.start(), len(text)))
    return spans


def mask_code(text: str) -> str:
    """``text`` with fenced code blocks and inline code replaced by spaces, newlines kept."""
    if "`" not in text and "~~~" not in text:
        return text
    pieces = []
    position = 0
    for start, end in fenced_code_spans(text):
        pieces.append(_mask_inline_code(text[position:start]))
        # Blanked line by line in C (map): a generator here was a tenth of parsing a note.
        lines = text[start:end].split("\n")
        pieces.append("\n".join(map(" ".__mul__, map(len, lines))))
        position = end
    pieces.append(_mask_inline_code(text[position:]))
    return "".join(pieces)


def _mask_inline_code(text: str) -> str:
    if "`" not in text:
        return text
    pieces = []
    position = 0
    for start, end in _inline_code_spans(text):
        pieces.append(text[position:start])
        pieces.append(" " * (end - start))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _inline_code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each code span: from a backtick run to the next run of the same length on
    its line, leftmost first; a run with no partner is literal text (CommonMark, within a line).

    Linear: one backward pass gives each run its partner, one forward pass pairs them."""
    runs = [match.span() for match in _BACKTICK_RUN.finditer(text)]
    partner: list[int | None] = [None] * len(runs)
    latest: dict[int, int] = {}  # run length → index of the nearest such run after, same line
    next_start = len(text)
    for index in range(len(runs) - 1, -1, -1):
        start, end = runs[index]
        if text.find("\n", end, next_start) >= 0:
            latest.clear()
        partner[index] = latest.get(end - start)
        latest[end - start] = index
        next_start = start
    spans = []
    index = 0
    while index < len(runs):
        closing = partner[index]
        if closing is None:
            index += 1
        else:
            spans.append((runs[index][0], runs[closing][1]))
            index = closing + 1
    return spans


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def extract_links(text: str, *, first_line: int = 1) -> list[Link]:
    """Wiki-links, embeds and internal markdown links in ``text``, in reading order.

    External URLs (``https:``, ``mailto:``, ``obsidian:``, …) are not links between notes and are
    left out. ``first_line`` is the line number of ``text``'s first line in its file, so a body
    parsed after its front matter reports file line numbers.
    """
    return extract_links_from_masked(mask_code(text), first_line=first_line)


def extract_links_from_masked(masked: str, *, first_line: int = 1) -> list[Link]:
    """``extract_links`` for text already passed through ``mask_code`` (saves a second pass)."""
    return [link for _, link in _links_at(masked, first_line)]


def link_offsets(text: str) -> list[int]:
    """Offsets of the opening ``[`` of every link ``extract_links`` finds in ``text``: what a
    writer of untrusted text escapes (with a ``\\`` before it) so that the index records none."""
    return [start for start, _ in _links_at(mask_code(text), 1)]


def _links_at(masked: str, first_line: int) -> list[tuple[int, Link]]:
    found: list[tuple[int, Link]] = []
    line_of = _LineCounter(masked, first_line)
    for match in _WIKILINK.finditer(masked):
        start = match.start()
        if not _escaped(masked, start):
            embed = start > 0 and masked[start - 1] == "!"
            found.append((start, _wikilink(embed, match.group(1), line_of(start))))
    if found:  # blank them so `[[a]](b)` cannot also read as a markdown link
        masked = _WIKILINK.sub(_blank, masked)
    line_of = _LineCounter(masked, first_line)
    for match in _MARKDOWN_LINK.finditer(masked):
        start = match.start()
        if not _escaped(masked, start):
            embed = start > 0 and masked[start - 1] == "!"
            link = _markdown_link(match, embed, line_of(start))
            if link is not None:
                found.append((start, link))
    found.sort(key=lambda item: item[0])
    return found


class _LineCounter:
    """Line number of increasing offsets, counting each newline once."""

    def __init__(self, text: str, first_line: int) -> None:
        self._text = text
        self._offset = 0
        self._line = first_line

    def __call__(self, offset: int) -> int:
        self._line += self._text.count("\n", self._offset, offset)
        self._offset = offset
        return self._line


def _escaped(text: str, offset: int) -> bool:
    return offset > 0 and text[offset - 1] == "\\"


def _wikilink(embed: bool, inner: str, line: int) -> Link:
    # Inside a table the alias pipe is escaped: [[Note\|alias]].
    destination, pipe, alias = inner.replace("\\|", "|").partition("|")
    target, heading, block = _split_anchor(destination)
    return Link(
        target=target,
        heading=heading,
        block=block,
        alias=alias.strip() if pipe and alias.strip() else None,
        kind="embed" if embed else "wikilink",
        line=line,
    )


def _markdown_link(match: re.Match[str], embed: bool, line: int) -> Link | None:
    text, bracketed, bare = match.groups()
    destination = bracketed if bracketed is not None else unquote(bare)
    if _URL_SCHEME.match(destination):
        return None
    target, heading, block = _split_anchor(destination)
    return Link(
        target=target,
        heading=heading,
        block=block,
        alias=text.strip() or None,
        kind="embed" if embed else "markdown",
        line=line,
    )


def _split_anchor(destination: str) -> tuple[str, str | None, str | None]:
    """`Note#Heading` → heading, `Note#^id` → block; nested `#A#B` headings stay as written."""
    target, hash_sign, anchor = destination.partition("#")
    anchor = anchor.strip()
    if not hash_sign or not anchor:
        return target.strip(), None, None
    if anchor.startswith("^"):
        return target.strip(), None, anchor[1:] or None
    return target.strip(), anchor, None


class LinkResolver:
    """Obsidian's rule for which file a link means, built once per vault.

    In order: the same note for ``[[#Heading]]``; an exact vault path, with or without ``.md``
    (relative to the linking note for ``./`` and ``../``); the file whose name matches,
    case-insensitively, preferring the linking note's folder, then the shortest path; an alias.
    """

    def __init__(self, paths: Sequence[str], aliases: Mapping[str, str]) -> None:
        self._paths = set(paths)
        self._by_lower_path: dict[str, list[str]] = defaultdict(list)
        self._by_lower_name: dict[str, list[str]] = defaultdict(list)
        for path in paths:
            self._by_lower_path[path.casefold()].append(path)
            self._by_lower_name[posixpath.basename(path).casefold()].append(path)
        self._by_lower_alias = {alias.casefold(): path for alias, path in aliases.items()}

    @classmethod
    def from_notes(cls, notes: Iterable[tuple[str, Iterable[str]]]) -> LinkResolver:
        """A resolver over ``(path, aliases)`` pairs, as the index's ``files`` table holds them.

        Two notes may claim the same alias; the shorter path wins, like an ambiguous name, so the
        answer does not depend on the order the notes were read in.
        """
        paths: list[str] = []
        claims: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for path, aliases in notes:
            paths.append(path)
            for alias in aliases:
                claims[alias.casefold()].append((alias, path))
        chosen = dict(
            min(claimants, key=lambda claim: _path_preference(claim[1]))
            for claimants in claims.values()
        )
        return cls(paths, chosen)

    def resolve(self, target: str, from_path: str) -> str | None:
        target = target.strip().replace("\\", "/")
        if not target:
            return from_path
        folder = from_path.rpartition("/")[0]  # posixpath.dirname, 3x faster on 55k links
        if target.startswith(("./", "../")):
            return self._exact(posixpath.normpath(f"{folder}/{target}" if folder else target))
        target = target.lstrip("/")
        return (
            self._exact(target)
            or (folder and self._exact(f"{folder}/{target}"))
            or self._by_name(target, folder)
            or self._by_lower_alias.get(target.casefold())
        )

    def _exact(self, path: str) -> str | None:
        for candidate in (path, path + ".md"):
            if candidate in self._paths:
                return candidate
            matches = self._by_lower_path.get(candidate.casefold(), [])
            if len(matches) == 1:
                return matches[0]
        return None

    def _by_name(self, target: str, folder: str) -> str | None:
        name = posixpath.basename(target)
        # `[[a/Note]]` names a folder too: `x/a/Note.md` matches, `b/Note.md` does not.
        wanted_ending = ("/" + target.casefold(), "/" + target.casefold() + ".md")
        candidates = [
            path
            for candidate_name in (name, name + ".md")
            for path in self._by_lower_name.get(candidate_name.casefold(), [])
            if ("/" + path.casefold()).endswith(wanted_ending)
        ]
        if not candidates:
            return None
        return min(
            candidates,
            key=lambda path: (posixpath.dirname(path) != folder, *_path_preference(path)),
        )


def _path_preference(path: str) -> tuple[int, int, str]:
    """Among equally good matches: the fewest folders, then the shortest path, then by name."""
    return path.count("/"), len(path), path


def resolve_link(
    target: str, from_path: str, paths: Sequence[str], aliases: Mapping[str, str]
) -> str | None:
    """Resolve one link; to resolve many, build a ``LinkResolver`` once and reuse it."""
    return LinkResolver(paths, aliases).resolve(target, from_path)


def vault_file_paths(root: Path) -> list[str]:
    """Every file a link may point at, vault-relative: notes and attachments (images, PDFs, …).

    The index holds only what it can search, so a link to ``diagram.png`` finds nothing there;
    the disk decides whether such a link is broken. Folders whose name starts with "." are
    skipped (``.obsidian``, ``.git``, ``.trash``), as Obsidian does; symlinked folders are not
    followed.
    """
    found: list[str] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        relative = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative == "." else relative + "/"
        found.extend(prefix + name for name in files if not name.startswith("."))
    return found
