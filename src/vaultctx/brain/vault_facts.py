"""What the offline reports know about a vault, read once from its index: each note's size and
age, and the links between notes as the index resolved them (``search/graph.py``).

Nothing here parses a note again: the index already holds every note's text, title, links and
modification time. Notes inside the wiki folder are the Second Brain's own output, so they are
left out of every count: a link from a wiki note makes no note less of an orphan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vaultctx.db_location import IndexLocation
from vaultctx.index.brain_queries import note_rows, note_text_lengths
from vaultctx.index.db import open_index
from vaultctx.search.graph import LinkGraph, ResolvedLink, load_link_graph
from vaultctx.vault.links import vault_file_paths

if TYPE_CHECKING:
    from vaultctx.index.db import IndexDatabase


@dataclass(frozen=True)
class NoteFacts:
    id: int
    path: str
    title: str
    mtime_ns: int
    text_chars: int  # characters of its indexed text, all chunks together
    size: int  # bytes of the file: the length the reports weigh (chunks of a long section overlap)


@dataclass
class VaultFacts:
    """The notes outside the wiki folder, and the links among them (self-links ignored)."""

    notes: dict[int, NoteFacts]
    outlinks: dict[int, set[int]] = field(default_factory=dict)
    backlinks: dict[int, set[int]] = field(default_factory=dict)
    broken: list[ResolvedLink] = field(default_factory=list)  # from these notes, resolving nowhere

    def by_path(self) -> dict[str, NoteFacts]:
        return {note.path: note for note in self.notes.values()}

    def link_count(self, note_id: int) -> int:
        """Distinct notes it links to plus distinct notes linking to it."""
        return len(self.outlinks.get(note_id, ())) + len(self.backlinks.get(note_id, ()))

    def linked(self, a: int, b: int) -> bool:
        return b in self.outlinks.get(a, ()) or a in self.outlinks.get(b, ())


def in_folder(path: str, folder: str) -> bool:
    """Whether vault-relative ``path`` lies inside vault-relative ``folder``."""
    folder = folder.strip("/")
    return bool(folder) and (path == folder or path.startswith(folder + "/"))


def _nothing(path: str) -> bool:
    return False


def load_vault_facts(
    vault: Path, db_path: IndexLocation, wiki_folder: str, ignored: Callable[[str], bool] = _nothing
) -> VaultFacts:
    """The facts of the indexed notes of ``vault`` outside ``wiki_folder``, without the notes
    ``ignored`` names (the index may hold one ignored since it was indexed)."""
    db = open_index(db_path, readonly=True)
    try:
        return facts_from_index(db, vault_file_paths(vault), wiki_folder, ignored)
    finally:
        db.close()


def facts_from_index(
    db: IndexDatabase,
    files: list[str],
    wiki_folder: str,
    ignored: Callable[[str], bool] = _nothing,
) -> VaultFacts:
    lengths = note_text_lengths(db)
    notes = {
        int(note_id): NoteFacts(
            int(note_id), str(path), str(title), int(mtime), lengths.get(note_id, 0), int(size)
        )
        for note_id, path, title, mtime, size in note_rows(db)
        if not in_folder(str(path), wiki_folder) and not ignored(str(path))
    }
    graph = load_link_graph(db, files)
    return _with_links(notes, graph)


def _with_links(notes: dict[int, NoteFacts], graph: LinkGraph) -> VaultFacts:
    facts = VaultFacts(notes)
    ids = {note.path: note.id for note in notes.values()}
    outlinks: dict[int, set[int]] = defaultdict(set)
    backlinks: dict[int, set[int]] = defaultdict(set)
    for link in graph.links:
        source = ids.get(link.source)
        if source is None:
            continue  # a wiki note's link, or a link of a file the index no longer holds
        if link.resolved is None:
            facts.broken.append(link)
            continue
        target = ids.get(link.resolved)
        if target is not None and target != source:
            outlinks[source].add(target)
            backlinks[target].add(source)
    facts.outlinks = dict(outlinks)
    facts.backlinks = dict(backlinks)
    return facts
