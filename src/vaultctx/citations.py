"""Check the note citations in a text — usually an agent's answer — against the vault (README,
Checking citations).

A model cites notes that do not exist, headings that were renamed and paths it half remembers; the
agent lists what does not resolve under its answer so the reader knows which sources to distrust.

Citations are the forms Obsidian and vaultctx write: wiki-links and embeds (``[[Note#Heading|x]]``,
``[[Note#^block]]``), markdown links (``[x](path.md#heading)``, URL-encoded), and the bare
``path.md#Heading`` that search results cite. Code spans, fenced code and URLs are not citations.
A bare ``path.md`` without an anchor is prose (``README.md`` in an answer is rarely a vault note).

Notes are resolved as Obsidian resolves links (``vault.links.LinkResolver``) over the notes the
index knows; headings and block ids are read from the files themselves, so an edit made since the
last index run counts.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

from vaultctx.config import Config
from vaultctx.index.db import open_index
from vaultctx.index.inspect import note_aliases, note_paths
from vaultctx.vault.errors import UnreadableFileError
from vaultctx.vault.links import LinkResolver, extract_links, mask_code
from vaultctx.vault.markdown_blocks import Heading, outline
from vaultctx.vault.note import split_front_matter
from vaultctx.vault.paths import VaultAccessError, normalize_vault_path, resolve_vault_file
from vaultctx.vault.scanner import (
    IgnoreRules,
    VaultFile,
    is_indexed_name,
    load_ignore_rules,
    read_vault_file,
)

CitationForm = Literal["wikilink", "embed", "markdown", "bare"]
Reason = Literal["no_such_note", "ambiguous", "no_such_heading", "no_such_block"]

# Attachments are linked like notes but are not sources an answer can cite by heading, and the
# index does not know them: such links are left out rather than reported as missing notes.
ATTACHMENT_SUFFIXES = frozenset(
    # Images, audio, then video, PDF and Obsidian's own canvas and base files.
    {".avif", ".bmp", ".gif", ".jpeg", ".jpg", ".png", ".svg", ".webp"}
    | {".flac", ".m4a", ".mp3", ".ogg", ".wav", ".3gp"}
    | {".mkv", ".mov", ".mp4", ".ogv", ".webm", ".pdf", ".canvas", ".base"}
)
# How many words a bare citation's path or heading may span; bounds the readings tried.
MAX_BARE_WORDS = 12
SHOWN_ANCHORS = 8

_WIKILINK = re.compile(r"!?\[\[[^\[\]\n]+?\]\]")
_MARKDOWN_LINK = re.compile(
    r"!?\[[^\]\n]*\]\(\s*"
    r"(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))+)"
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>\"'`]*|\bwww\.[^\s<>\"'`]*")
_BARE_ANCHOR = re.compile(r"\.md#", re.IGNORECASE)
# Where a bare path cannot continue to the left: a line break, a table cell, `:` (not allowed in
# note names) and sentence punctuation followed by a space.
_PATH_STOP = re.compile(r"[\n\r|`:]|[.,;!?](?=\s)")
# After these a path may start even without a space: `(notes/a.md#x)`, `**a.md#x**`.
_OPENERS = frozenset('([<"“‘*')
# Where a bare heading certainly ends; headings contain spaces, so a word boundary is a guess.
_HEADING_STOP = re.compile(r"[\n\r)\]|\"<>`*”]")
_SENTENCE_ENDS = frozenset(".,;!?")
_TRAILING_PUNCTUATION = ".,;:!?"
_BLOCK_ID = re.compile(r"[A-Za-z0-9-]+")
# A block id closes its line: `text ^id` or `^id` alone on the line after a block.
_BLOCK_MARK = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
# Obsidian compares headings with punctuation stripped (its `stripHeading`): its link to the
# heading `Q&A: setup` is written `#Q&A setup`, since `:` cannot appear in a link.
_HEADING_PUNCTUATION = re.compile(r"[^\w\s-]")


@dataclass(frozen=True)
class Citation:
    """One citation as written; ``line`` and ``column`` (1-based) are where ``text`` starts.

    ``target`` is the note part (decoded), "" for a link into the same note (``[[#Heading]]``);
    ``heading`` keeps Obsidian's nested form ``A#B``.
    """

    text: str
    target: str
    heading: str | None
    block: str | None
    form: CitationForm
    line: int
    column: int


@dataclass(frozen=True)
class UnresolvedCitation:
    """A citation that does not point at an existing note, heading or block.

    ``note`` is the note it resolved to when only its heading or block is missing.
    """

    citation: str
    line: int
    column: int
    reason: Reason
    message: str
    suggestion: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class CitationReport:
    """``as_dict`` is the stable ``--json`` form: ``{"checked", "unresolved", "ok"}``."""

    checked: int
    unresolved: list[UnresolvedCitation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.unresolved

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "unresolved": [asdict(item) for item in self.unresolved],
            "ok": self.ok,
        }


@dataclass(frozen=True)
class _BareCitation:
    """A bare ``path.md#anchor`` whose extent is only known once checked against the vault.

    Paths and headings both contain spaces, so each start of the path and end of the heading at
    a word boundary is a possible reading, longest first; the defaults are the best guess without
    the vault (``find_citations``).
    """

    dot: int  # offset of ".md#"
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    default_start: int
    default_end: int


@dataclass(frozen=True)
class _Problem:
    reason: Reason
    message: str
    suggestion: str | None = None


@dataclass(frozen=True)
class _Anchors:
    headings: list[Heading]
    blocks: list[str]


def find_citations(text: str) -> list[Citation]:
    """The citations in ``text``, in reading order, without looking at any vault."""
    return [
        _bare_reading(text, item.default_start, item.dot, item.default_end)
        if isinstance(item, _BareCitation)
        else item
        for item in _scan(text)
    ]


def verify_citations(text: str, config: Config, *, source: str | None = None) -> CitationReport:
    """Check every citation in ``text`` against the vault and its index.

    ``source`` is the vault-relative path of the note ``text`` comes from, if any: links relative
    to it (``[[#Heading]]``, ``../x.md``) resolve from there, as they would in Obsidian. Raises
    ``IndexMissingError`` (which names ``vaultctx index``) when the vault has no index.
    """
    source = normalize_vault_path(source) if source is not None else None
    found = _scan(text)
    vault_notes = _VaultNotes.load(config, _targets(text, found))
    unresolved = [
        problem
        for item in found
        if (problem := _check(text, item, vault_notes, source)) is not None
    ]
    return CitationReport(checked=len(found), unresolved=unresolved)


def _targets(text: str, found: Sequence[Citation | _BareCitation]) -> Iterator[str]:
    """Every note name the citations may mean, each reading of a bare citation included."""
    for item in found:
        if isinstance(item, _BareCitation):
            for start in item.starts:
                yield unquote(text[start : item.dot + len(".md")])
        else:
            yield item.target


# --- finding ------------------------------------------------------------------------------------


def _scan(text: str) -> list[Citation | _BareCitation]:
    """Links first, then bare citations in what is left once links and URLs are blanked out."""
    masked = mask_code(text)
    found: list[tuple[int, Citation | _BareCitation]] = []
    for pattern in (_WIKILINK, _MARKDOWN_LINK):
        for match in pattern.finditer(masked):
            citation = _link_citation(text, match, markdown=pattern is _MARKDOWN_LINK)
            if citation is not None:
                found.append((match.start(), citation))
        masked = pattern.sub(_blank, masked)  # `[[a]](b)` must not read as a markdown link too
    masked = _URL.sub(_blank, masked)
    dots = [match.start() for match in _BARE_ANCHOR.finditer(masked)]
    previous_end = 0
    for index, dot in enumerate(dots):
        # A heading may run up to the word holding the next `.md#`; that path may start
        # right after this heading's first word.
        limit = _word_start(masked, dots[index + 1]) if index + 1 < len(dots) else len(masked)
        bare = _bare_citation(masked, dot, previous_end, limit)
        if bare is not None:
            found.append((bare.default_start, bare))
            previous_end = bare.ends[-1]
    found.sort(key=lambda item: item[0])
    return [item for _, item in found]


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _link_citation(text: str, match: re.Match[str], *, markdown: bool) -> Citation | None:
    start = match.start()
    if start > 0 and text[start - 1] == "\\":  # `\[[x]]` is escaped, not a link
        return None
    # The shared parser reads the link exactly as the indexer does; it drops external URLs.
    parsed = extract_links(match.group(0))
    if not parsed:
        return None
    link = parsed[0]
    if _is_attachment(link.target) or (markdown and not link.target):
        return None  # `[x](#heading)` points into the answer itself, not into a note
    form: CitationForm = "markdown" if markdown else "embed" if link.kind == "embed" else "wikilink"
    return Citation(
        text=match.group(0),
        target=link.target,
        heading=link.heading,
        block=link.block,
        form=form,
        line=_line(text, start),
        column=_column(text, start),
    )


def _is_attachment(target: str) -> bool:
    return posixpath.splitext(target)[1].lower() in ATTACHMENT_SUFFIXES


def _word_start(text: str, offset: int) -> int:
    return max(text.rfind(space, 0, offset) for space in " \t\n") + 1


def _bare_citation(masked: str, dot: int, previous_end: int, limit: int) -> _BareCitation | None:
    starts = _path_starts(masked, dot, previous_end)
    anchor = dot + len(".md#")
    if not starts:
        return None
    if masked.startswith("^", anchor):
        block = _BLOCK_ID.match(masked, anchor + 1)
        if block is None:
            return None
        ends: tuple[int, ...] = (block.end(),)
        default_end = block.end()
    else:
        ends, default_end = _heading_ends(masked, anchor, limit)
        if not ends:
            return None
    with_folder = [s for s in starts if "/" in masked[s:dot].split(maxsplit=1)[0]]
    default_start = with_folder[0] if with_folder else starts[-1]
    return _BareCitation(dot, starts, ends, default_start, default_end)


def _path_starts(masked: str, dot: int, previous_end: int) -> tuple[int, ...]:
    """Where the path before ``.md#`` may start, longest first: after a space or an opener."""
    if dot == 0 or masked[dot - 1].isspace() or masked[dot - 1] in _OPENERS:
        return ()
    line_start = max(masked.rfind("\n", 0, dot) + 1, previous_end)
    stops = list(_PATH_STOP.finditer(masked, line_start, dot))
    floor = stops[-1].end() if stops else line_start
    starts = [
        position
        for position in range(floor, dot)
        if not masked[position].isspace()
        and masked[position] not in _OPENERS
        and (
            position == floor or masked[position - 1].isspace() or masked[position - 1] in _OPENERS
        )
    ]
    return tuple(starts[-MAX_BARE_WORDS:])


def _heading_ends(masked: str, anchor: int, limit: int) -> tuple[tuple[int, ...], int]:
    """(possible heading ends longest first, the default end): each word end before a stop or
    ``limit``, trailing punctuation excluded; the default is the first one at a sentence end."""
    stop = _HEADING_STOP.search(masked, anchor, limit)
    limit = stop.start() if stop else limit
    ends = []
    for word in re.finditer(r"\S+", masked[anchor:limit]):
        length = len(word.group(0).rstrip(_TRAILING_PUNCTUATION))
        if length:
            ends.append(anchor + word.start() + length)
    ends = ends[:MAX_BARE_WORDS]
    if not ends:
        return (), anchor
    default_end = next((end for end in ends if masked[end : end + 1] in _SENTENCE_ENDS), ends[-1])
    return tuple(reversed(ends)), default_end


def _bare_reading(text: str, start: int, dot: int, end: int) -> Citation:
    anchor = text[dot + len(".md#") : end]
    is_block = anchor.startswith("^")
    return Citation(
        text=text[start:end],
        target=unquote(text[start : dot + len(".md")]),
        heading=None if is_block else unquote(anchor),
        block=anchor[1:] if is_block else None,
        form="bare",
        line=_line(text, start),
        column=_column(text, start),
    )


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _column(text: str, offset: int) -> int:
    return offset - text.rfind("\n", 0, offset)


# --- checking -----------------------------------------------------------------------------------


def _check(
    text: str, item: Citation | _BareCitation, notes: _VaultNotes, source: str | None
) -> UnresolvedCitation | None:
    if isinstance(item, _BareCitation):
        return _check_bare(text, item, notes, source)
    located = notes.locate(item.target, source)
    if isinstance(located, _Problem):
        return _unresolved(item, located)
    problem = _check_anchor(notes, located, item.heading, item.block)
    return None if problem is None else _unresolved(item, problem, located)


def _check_bare(
    text: str, bare: _BareCitation, notes: _VaultNotes, source: str | None
) -> UnresolvedCitation | None:
    """The longest path that names a note, then the longest heading that exists in it."""
    start, located = _bare_note(text, bare, notes, source)
    if isinstance(located, _Problem):
        return _unresolved(_bare_reading(text, start, bare.dot, bare.default_end), located)
    for end in bare.ends:
        citation = _bare_reading(text, start, bare.dot, end)
        if _check_anchor(notes, located, citation.heading, citation.block) is None:
            return None
    end = _closest_heading_end(text, bare, notes.anchors(located).headings) or bare.default_end
    citation = _bare_reading(text, start, bare.dot, end)
    problem = _check_anchor(notes, located, citation.heading, citation.block)
    return None if problem is None else _unresolved(citation, problem, located)


def _bare_note(
    text: str, bare: _BareCitation, notes: _VaultNotes, source: str | None
) -> tuple[int, str | _Problem]:
    """(where the path starts, the note or why none): the longest reading that names a note, or
    is ambiguous; else the default reading and its problem, with a suggestion."""
    for start in bare.starts:
        target = unquote(text[start : bare.dot + len(".md")])
        located = notes.locate(target, source, suggest=False)
        if isinstance(located, str) or located.reason == "ambiguous":
            return start, located
    target = unquote(text[bare.default_start : bare.dot + len(".md")])
    return bare.default_start, notes.locate(target, source)


def _closest_heading_end(text: str, bare: _BareCitation, headings: list[Heading]) -> int | None:
    """The reading of a missing heading that looks most like a real one, so the report shows
    `#Setup steps` (close to `Set up steps`) rather than a whole sentence."""
    anchor = bare.dot + len(".md#")
    best, best_ratio = None, 0.6
    for end in bare.ends:
        wanted = text[anchor:end].casefold()
        for heading in headings:
            ratio = difflib.SequenceMatcher(None, wanted, heading.text.casefold()).ratio()
            if ratio > best_ratio:
                best, best_ratio = end, ratio
    return best


def _unresolved(
    citation: Citation, problem: _Problem, note: str | None = None
) -> UnresolvedCitation:
    return UnresolvedCitation(
        citation=citation.text,
        line=citation.line,
        column=citation.column,
        reason=problem.reason,
        message=problem.message,
        suggestion=problem.suggestion,
        note=note,
    )


def _check_anchor(
    notes: _VaultNotes, path: str, heading: str | None, block: str | None
) -> _Problem | None:
    if block is not None:
        blocks = notes.anchors(path).blocks
        if block.casefold() in (known.casefold() for known in blocks):
            return None
        return _Problem(
            "no_such_block", f"{path} has no block ^{block}", _block_hint(path, block, blocks)
        )
    if heading is not None:
        headings = notes.anchors(path).headings
        parts = [part for part in heading.split("#") if part.strip()]
        if not parts or _has_heading_path(headings, parts):
            return None
        return _Problem(
            "no_such_heading",
            f"{path} has no heading {heading!r}",
            _heading_hint(path, parts[-1], headings),
        )
    return None


def _has_heading_path(headings: Sequence[Heading], parts: Sequence[str]) -> bool:
    """Obsidian's nested ``#A#B``: B is a heading somewhere inside A's section."""
    position, parent_level = 0, 0
    for part in parts:
        for index in range(position, len(headings)):
            if headings[index].level <= parent_level:
                return False  # left the parent's section
            if _same_heading(part, headings[index].text):
                position, parent_level = index + 1, headings[index].level
                break
        else:
            return False
    return True


def _same_heading(wanted: str, actual: str) -> bool:
    if " ".join(wanted.casefold().split()) == " ".join(actual.casefold().split()):
        return True
    key = _heading_key(wanted)
    return bool(key) and key == _heading_key(actual)


def _heading_key(text: str) -> str:
    return " ".join(_HEADING_PUNCTUATION.sub(" ", text.casefold()).split())


def _heading_hint(path: str, wanted: str, headings: Sequence[Heading]) -> str:
    if not headings:
        return f"{path} has no headings; cite the note without a #heading"
    texts = [heading.text for heading in headings]
    closest = _closest(wanted, texts)
    if closest is not None:
        return f"did you mean the heading `{closest}`?"
    return f"its headings: {_listing(texts)}"


def _block_hint(path: str, wanted: str, blocks: Sequence[str]) -> str:
    if not blocks:
        return f"{path} has no block ids (^id); cite a heading or the note itself"
    closest = _closest(wanted, blocks)
    if closest is not None:
        return f"did you mean `^{closest}`?"
    return f"its block ids: {_listing(['^' + block for block in blocks])}"


def _closest(wanted: str, choices: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The choice most like ``wanted``, compared case-insensitively, spelled as written."""
    by_key: dict[str, str] = {}
    for choice in choices:
        by_key.setdefault(choice.casefold(), choice)
    matches = difflib.get_close_matches(wanted.casefold(), list(by_key), n=1, cutoff=cutoff)
    return by_key[matches[0]] if matches else None


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{name}`" for name in names[:SHOWN_ANCHORS])
    return shown + (f" and {len(names) - SHOWN_ANCHORS} more" if len(names) > SHOWN_ANCHORS else "")


def _folded_target(target: str) -> str:
    """A link target as the resolver compares it with note names and aliases."""
    return target.strip().replace("\\", "/").lstrip("/").casefold()


def _alias_holders(
    alias_rows: Sequence[tuple[str, str]], wanted: set[str] | None = None
) -> dict[str, list[str]]:
    """Casefolded alias → the notes declaring it; only ``wanted`` aliases unless None.

    A row's JSON is parsed only when a wanted name occurs in it (or it holds an escape, which can
    hide one), which skips nearly every row.
    """
    holders: dict[str, list[str]] = defaultdict(list)
    for path, aliases_json in alias_rows:
        if wanted is not None and not _may_declare(aliases_json.casefold(), wanted):
            continue
        for alias in json.loads(aliases_json):
            folded = str(alias).strip().casefold()
            if wanted is None or folded in wanted:
                holders[folded].append(path)
    return dict(holders)


def _may_declare(folded_json: str, wanted: set[str]) -> bool:
    return "\\" in folded_json or any(name in folded_json for name in wanted)


class _VaultNotes:
    """The notes a citation may name (from the index) and their anchors (from the files).

    Resolution only ever looks at notes whose file name, or an alias, matches a cited name, so
    the resolver is built over those few: building it over all 50,000 notes of a large vault
    would cost most of a second per answer, for every answer.
    """

    def __init__(
        self,
        config: Config,
        paths: Sequence[str],
        alias_rows: Sequence[tuple[str, str]],
        targets: Iterable[str],
    ) -> None:
        """``paths``: every indexed note; ``alias_rows``: (path, aliases JSON) of those with
        aliases; ``targets``: every note name the citations may mean."""
        self._config = config
        self._rules: IgnoreRules = load_ignore_rules(config.vault, config.settings.ignore)[0]
        self._paths = paths
        self._alias_rows = alias_rows
        wanted = {folded for target in targets if (folded := _folded_target(target))}
        names = {posixpath.basename(target) for target in wanted} - {""}
        endings = tuple(names | {name + ".md" for name in names})
        candidates = [path for path in paths if endings and path.casefold().endswith(endings)]
        self._lower_paths = {path.casefold() for path in candidates}
        self._by_name: dict[str, list[str]] = defaultdict(list)
        for path in candidates:
            self._by_name[posixpath.basename(path).casefold()].append(path)
        self._alias_holders = _alias_holders(alias_rows, wanted)
        notes: dict[str, list[str]] = {path: [] for path in candidates}
        for alias, holders in self._alias_holders.items():
            for path in holders:
                notes.setdefault(path, []).append(alias)
        self._resolver = LinkResolver.from_notes(notes.items())
        self._anchors: dict[str, _Anchors] = {}

    @classmethod
    def load(cls, config: Config, targets: Iterable[str]) -> _VaultNotes:
        db = open_index(config.db, readonly=True)
        try:
            paths = note_paths(db)
            alias_rows = note_aliases(db)
        finally:
            db.close()
        return cls(config, paths, alias_rows, targets)

    def locate(self, target: str, source: str | None, *, suggest: bool = True) -> str | _Problem:
        """The vault path ``target`` names, or why it names none; ``suggest=False`` skips the
        search for a similar note, which costs a pass over every path."""
        if not target.strip():
            if source is not None:
                return source
            return _Problem(
                "no_such_note",
                "a link into the same note, but this text is not a note",
                "name the note, as in [[Note#Heading]]",
            )
        ties = self._ties(target, source)
        if len(ties) > 1:
            shown = ", ".join(f"`{posixpath.splitext(path)[0]}`" for path in ties[:5])
            return _Problem(
                "ambiguous",
                f"{target!r} matches {len(ties)} notes equally well",
                f"cite one by its path: {shown}",
            )
        path = self._resolver.resolve(target, source or "") or self._fresh_file(target)
        if path is not None and self._is_file(path):
            return path
        if path is not None:
            return _Problem(
                "no_such_note",
                f"{path} is in the index but no longer in the vault",
                "run `vaultctx index` to bring the index up to date",
            )
        closest = self._closest_note(target) if suggest else None
        return _Problem(
            "no_such_note",
            f"no note {target!r} in the vault",
            f"did you mean `{closest}`?" if closest else "search the vault for the right note",
        )

    def _ties(self, target: str, source: str | None) -> list[str]:
        """The notes a name (or else an alias) matches equally well: none exact, none in the
        linking note's folder, several at the fewest folders deep."""
        wanted = _folded_target(target)
        if wanted.startswith(("./", "../")) or {wanted, wanted + ".md"} & self._lower_paths:
            return []
        ending = ("/" + wanted, "/" + wanted + ".md")
        name = posixpath.basename(wanted)
        candidates = [
            path
            for key in (name, name + ".md")
            for path in self._by_name.get(key, [])
            if ("/" + path.casefold()).endswith(ending)
        ] or self._alias_holders.get(wanted, [])
        if len(candidates) < 2:
            return []
        folder = posixpath.dirname(source) if source else None
        if any(posixpath.dirname(path) == folder for path in candidates):
            return []  # Obsidian prefers the linking note's own folder
        depth = min(path.count("/") for path in candidates)
        return sorted(path for path in candidates if path.count("/") == depth)

    def _fresh_file(self, target: str) -> str | None:
        """A note created since the last index run, cited by its exact path."""
        candidate = target if is_indexed_name(posixpath.basename(target)) else target + ".md"
        try:
            located = resolve_vault_file(self._config.vault, candidate.lstrip("/"), self._rules)
        except VaultAccessError:
            return None
        return located.relative if located.absolute.is_file() else None

    def _is_file(self, path: str) -> bool:
        try:
            return resolve_vault_file(self._config.vault, path, self._rules).absolute.is_file()
        except VaultAccessError:
            return False

    def _closest_note(self, target: str) -> str | None:
        """By path when the citation names a folder, else by file name or alias."""
        wanted = posixpath.splitext(target.strip().lstrip("/"))[0]
        keys: dict[str, str] = {}
        for path in self._paths:
            key = posixpath.splitext(path if "/" in wanted else posixpath.basename(path))[0]
            keys.setdefault(key, path)
        if "/" not in wanted:
            for alias, holders in _alias_holders(self._alias_rows).items():
                keys.setdefault(alias, holders[0])
        closest = _closest(wanted, list(keys))
        return None if closest is None else keys[closest]

    def anchors(self, path: str) -> _Anchors:
        """Headings and block ids of the note as it is on disk now; none for non-markdown."""
        if path not in self._anchors:
            self._anchors[path] = self._read_anchors(path)
        return self._anchors[path]

    def _read_anchors(self, path: str) -> _Anchors:
        if not path.lower().endswith(".md"):
            return _Anchors([], [])
        try:
            located = resolve_vault_file(self._config.vault, path, self._rules)
            stat = located.absolute.stat()
            if stat.st_size > self._config.settings.max_file_bytes:
                return _Anchors([], [])
            text = read_vault_file(
                VaultFile(path, str(located.absolute), stat.st_mtime_ns, stat.st_size)
            )
        except (VaultAccessError, UnreadableFileError, OSError):
            return _Anchors([], [])
        body = text[split_front_matter(text)[1] :]
        return _Anchors(outline(body).headings, _BLOCK_MARK.findall(mask_code(body)))
