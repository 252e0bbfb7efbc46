"""The decision ledger's file format: ``{wiki}/Decisions.md``, a ``decisions`` generated block
holding one table per status (docs/review.md#decisions).

Entries are keyed by their decision text, normalised (case, spacing, a final full stop).
Merging an extracted entry into the ledger fills only fields that are empty there (what the
user typed into a cell stays), combines sources, and moves the status only forward: open →
done → superseded. A row that does not parse as six cells is kept, byte for byte, under
"Unparsed rows", so an edit the user made by hand is never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from urllib.parse import quote, unquote

from vaultctx.vault.scanner import is_indexed_name

BLOCK_KEY = "decisions"
FILE_NAME = "Decisions.md"
HEADING = "# Decision ledger"
STATUSES = ("open", "done", "superseded")
SECTION = {"open": "Open", "done": "Done", "superseded": "Superseded"}
UNPARSED = "Unparsed rows"
COLUMNS = ("decision", "rationale", "owner", "due", "superseded-by", "sources")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_WIKI = re.compile(r"\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]")
_MARKDOWN = re.compile(r"\[[^\]]*\]\(<?([^)>\s]+)>?\)")


@dataclass(frozen=True)
class Decision:
    decision: str
    rationale: str = ""
    owner: str = ""
    due: str = ""
    superseded_by: str = ""
    status: str = "open"
    sources: tuple[str, ...] = ()
    decided_on: str = ""  # shown when reviewing; the table has no column for it

    @property
    def key(self) -> str:
        return normalised(self.decision)


@dataclass
class Ledger:
    entries: list[Decision] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)


def normalised(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".。!").strip()


def effective_status(entry: Decision) -> str:
    """A decision superseded by another one is superseded, whatever status it was given."""
    if entry.superseded_by and normalised(entry.superseded_by) != entry.key:
        return "superseded"
    return entry.status if entry.status in STATUSES else "open"


def merge(ledger: Ledger, found: list[Decision]) -> Ledger:
    merged = list(ledger.entries)
    where = {entry.key: index for index, entry in enumerate(merged)}
    for new in found:
        new = replace(new, status=effective_status(new))
        index = where.get(new.key)
        if index is None:
            where[new.key] = len(merged)
            merged.append(new)
            continue
        old = merged[index]
        status = max(old.status, new.status, key=STATUSES.index)
        merged[index] = replace(
            old,
            rationale=old.rationale or new.rationale,
            owner=old.owner or new.owner,
            due=old.due or new.due,
            superseded_by=old.superseded_by or new.superseded_by,
            decided_on=old.decided_on or new.decided_on,
            sources=tuple(dict.fromkeys(old.sources + new.sources)),
            status=status,
        )
        merged[index] = replace(merged[index], status=effective_status(merged[index]))
    return Ledger(merged, list(ledger.unparsed))


# -- reading ------------------------------------------------------------------------------------


def parse(block: str) -> Ledger:
    """The entries of a ``decisions`` block's content; anything table-like that is not a
    six-cell row goes to ``unparsed`` verbatim. Prose and headings are the format's own and are
    written again on render."""
    ledger = Ledger()
    status: str | None = None
    for line in block.splitlines():
        stripped = line.strip()
        if stripped.startswith("## "):
            title = stripped[3:].strip().casefold()
            status = next((s for s, name in SECTION.items() if name.casefold() == title), None)
            if title == UNPARSED.casefold():
                status = UNPARSED
            continue
        if not stripped:
            continue
        if status == UNPARSED:
            ledger.unparsed.append(line)
            continue
        if not stripped.startswith("|"):
            continue
        if _SEPARATOR.match(stripped):
            continue
        cells = _cells(stripped)
        if cells is not None and [c.casefold() for c in cells] == list(COLUMNS):
            continue  # the header
        if cells is None or len(cells) != len(COLUMNS) or not cells[0] or status is None:
            ledger.unparsed.append(line)
            continue
        decision, rationale, owner, due, superseded_by, sources = cells
        ledger.entries.append(
            Decision(
                decision,
                rationale,
                owner,
                due,
                superseded_by,
                status,
                tuple(_source_paths(sources)),
            )
        )
    return ledger


def _cells(row: str) -> list[str] | None:
    """A table row's cells, ``\\|`` unescaped; None if it is not ``| … |``."""
    if not (row.startswith("|") and row.endswith("|") and len(row) >= 2):
        return None
    cells, current, escaped = [], [], False
    for char in row[1:-1]:
        if escaped:
            current.append(char if char == "|" else "\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if escaped:
        current.append("\\")
    cells.append("".join(current).strip())
    return cells


def _source_paths(cell: str) -> list[str]:
    paths = []
    for match in re.finditer(f"{_WIKI.pattern}|{_MARKDOWN.pattern}", cell):
        wiki, markdown = match.group(1), match.group(2)
        path = wiki.strip() if wiki else unquote(markdown or "")
        if path and not is_indexed_name(path):  # [[notes/a]] is notes/a.md
            path += ".md"
        if path:
            paths.append(path)
    return list(dict.fromkeys(paths))


# -- writing ------------------------------------------------------------------------------------


def render(ledger: Ledger) -> str:
    parts: list[str] = []
    for status in STATUSES:
        entries = [e for e in ledger.entries if effective_status(e) == status]
        if not entries:
            continue
        parts.append(f"## {SECTION[status]}\n")
        parts.append("| " + " | ".join(COLUMNS) + " |")
        parts.append("|" + "|".join(" --- " for _ in COLUMNS) + "|")
        for entry in entries:
            cells = [
                entry.decision,
                entry.rationale,
                entry.owner,
                entry.due,
                entry.superseded_by,
                ", ".join(source_link(path) for path in entry.sources),
            ]
            parts.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        parts.append("")
    if ledger.unparsed:
        parts.append(f"## {UNPARSED}\n")
        parts += ledger.unparsed
        parts.append("")
    return "\n".join(parts).rstrip("\n")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def source_link(path: str) -> str:
    """``[[notes/a]]``; a path holding ``#``, ``|``, ``[`` or ``]`` as a percent-encoded
    markdown link, which keeps a table cell intact."""
    if any(char in path for char in "#|[]"):
        name = path.rsplit("/", 1)[-1].replace("[", "").replace("]", "")
        return f"[{name}]({quote(path)})"
    return f"[[{path[:-3] if path.lower().endswith('.md') else path}]]"


__all__ = [
    "BLOCK_KEY",
    "FILE_NAME",
    "HEADING",
    "STATUSES",
    "Decision",
    "Ledger",
    "effective_status",
    "merge",
    "normalised",
    "parse",
    "render",
    "source_link",
]
