"""How close a signal is to what the user is working on: its best cosine similarity to one of
the vault's active projects (docs/signals.md#the-offline-heuristic).

Active projects are the indexed notes with ``type: project`` or ``status: active`` and the notes
in the project folders (``[signals] project_folders``; by default every top-level folder named
"projects" after its number: ``01-projects``, ``10-projects``, ``01. Projects``), less archived
notes and signals. Both sides are embedded with the vault's static engine, which is bundled,
always loaded and deterministic; BM25 scores were not used because they are not bounded and
not comparable between two signals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters
from vaultctx.signals.inbox import Signal

if TYPE_CHECKING:
    from vaultctx.api import Vault

MAX_PROJECT_NOTES = 200
EMBED_CHARS = 4000  # the start of a note says what it is about; the static model averages
_PROJECTS_FOLDER = re.compile(r"\d*[ ._-]*projects?", re.IGNORECASE)


@dataclass
class ActiveProjects:
    paths: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    vectors: npt.NDArray[np.float32] | None = None
    notice: str | None = None


def project_folders(vault: Vault, configured: tuple[str, ...] | None) -> tuple[str, ...]:
    if configured is not None:
        return configured
    try:
        names = sorted(entry.name for entry in vault.path.iterdir() if entry.is_dir())
    except OSError:
        return ()
    return tuple(name for name in names if _PROJECTS_FOLDER.fullmatch(name))


def load_active_projects(
    vault: Vault,
    *,
    folders: tuple[str, ...],
    exclude: tuple[str, ...],
    embed: bool = True,
) -> ActiveProjects:
    """The active project notes (sorted by path, at most ``MAX_PROJECT_NOTES``) and their
    vectors; ``exclude`` are folders whose notes never count (the inbox, the signals folder)."""
    found: dict[str, str] = {}
    queries = [Filters(note_type="project"), Filters(where=["status = active"])]
    queries += [Filters(folder=folder) for folder in folders]
    try:
        for filters in queries:
            for info in vault.list_notes(filters, limit=MAX_PROJECT_NOTES).notes:
                excluded = any(info.path.startswith(folder + "/") for folder in exclude)
                if excluded or info.type == "signal" or info.status == "archived":
                    continue
                found[info.path] = info.title
    except VaultctxError as exc:
        return ActiveProjects(notice=f"relevance is neutral (0.5): {exc.one_line()}")
    if not found:
        return ActiveProjects(
            notice="no active project notes (type: project, status: active or a projects "
            "folder): relevance is neutral (0.5)"
        )
    paths = sorted(found)[:MAX_PROJECT_NOTES]
    projects = ActiveProjects(paths=paths, titles=[found[path] for path in paths])
    if not embed:
        return projects
    texts: list[str] = []
    kept: list[str] = []
    for path in paths:
        try:
            note = vault.read_note(path, max_tokens=EMBED_CHARS // 4)
        except VaultctxError:
            continue  # gone since it was indexed
        kept.append(path)
        texts.append(f"{note.title}\n{note.text[:EMBED_CHARS]}")
    if not texts:
        return ActiveProjects(notice="the active project notes could not be read: relevance 0.5")
    projects.paths = kept
    projects.titles = [found[path] for path in kept]
    projects.vectors = vault.embedder().embed(texts)
    return projects


def best_similarity(vault: Vault, projects: ActiveProjects, signal: Signal) -> float | None:
    """The signal's highest cosine similarity to an active project (None: no projects)."""
    if projects.vectors is None:
        return None
    vector = vault.embedder().embed([f"{signal.title}\n{signal.body[:EMBED_CHARS]}"])[0]
    return float(np.max(projects.vectors @ vector))


__all__ = ["ActiveProjects", "best_similarity", "load_active_projects", "project_folders"]
