"""P.A.R.A (docs/organize.md#para): the model files each note under Projects, Areas, Resources
or Archives, and the user approves the moves before any happens.

Unlike the plugin we follow, nothing moves without approval, links to a moved note are
rewritten (one ledger record, one ``vaultctx undo``), and folders left empty are never deleted.
The four folders are created only when a note moves into one, or when the user accepts the
proposal to create them.

A model's answer counts only when it names exactly one category (one word, singular or plural,
any case, punctuation around it ignored); otherwise the note is skipped and reported. At most
``MAX_CLASSIFICATIONS`` notes are classified per run, one request at a time (so a local model is
not flooded); a re-run classifies the notes the previous list did not offer first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.model_reply import shown
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.vault.folded_names import exists_folded
from vaultctx.vault.scanner import VaultFile, read_vault_file, scan_vault
from vaultctx.vault.writes import NoteChangeError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

FOLDERS = {
    "projects": "01. Projects",
    "areas": "02. Areas",
    "resources": "03. Resources",
    "archives": "04. Archives",
}
MAX_CLASSIFICATIONS = 200
PREVIEW_CHARS = 500
MAX_TOKENS = 256
MAX_NAMED = 10  # notes named in one notice
LIST = "run `vaultctx para` again for a fresh list"

SYSTEM = """You sort notes with the P.A.R.A method. Classify the note into exactly one category:
projects: short-term efforts with a goal and a deadline;
areas: ongoing responsibilities to maintain over time, with no end date;
resources: topics of interest and reference material for later use;
archives: inactive items from the other three categories.
Answer with the one word only: projects, areas, resources or archives."""

_WORD = re.compile(r"[a-z]+")
_SINGULAR = {word[:-1]: word for word in FOLDERS}


def category_of(answer: str) -> str | None:
    """The category the answer names, if it names exactly one ("Resources." yes; "projects or
    areas" and "I cannot tell" no)."""
    named = set()
    for word in _WORD.findall(answer.lower()[:2000]):
        if word in FOLDERS:
            named.add(word)
        elif word in _SINGULAR:
            named.add(_SINGULAR[word])
    return named.pop() if len(named) == 1 else None


def in_para_folder(path: str) -> bool:
    top = path.split("/", 1)[0].casefold()
    return "/" in path and top in {name.casefold() for name in FOLDERS.values()}


def _inside(path: str, folder: str) -> bool:
    folder = folder.strip("/").casefold()
    return bool(folder) and path.casefold().startswith(folder + "/")


@dataclass
class ParaFlow:
    """``vaultctx para``: propose, then apply what the user accepted as one batch.

    ``left_alone``: folders whose notes keep their places (templates, to-do notes, the Second
    Brain's wiki). ``offered``: notes a previous list proposed; classified after the others.
    """

    model: TextModel
    left_alone: Sequence[str] = ()
    offered: Iterable[str] = ()
    limit: int = MAX_CLASSIFICATIONS
    name: str = "para"
    notices: list[str] = field(default_factory=list)

    def candidates(self, vault: Vault) -> list[VaultFile]:
        """Markdown notes outside the P.A.R.A folders and the folders left alone, by path, the
        notes not offered before first. (The scanner skips .obsidian, .trash and excluded
        paths, and never follows a link.)"""
        settings = vault.config.settings
        scan = scan_vault(
            vault.path, max_file_bytes=settings.max_file_bytes, extra_ignores=settings.ignore
        )
        notes = [  # a note that is a symbolic link is not moved: the link would go, not the note
            f
            for f in scan.files
            if f.path.lower().endswith(".md") and not os.path.islink(vault.path / f.path)
        ]
        kept: dict[str, int] = {}
        found = []
        for note in notes:
            if in_para_folder(note.path):
                continue
            folder = next((f for f in self.left_alone if _inside(note.path, f)), None)
            if folder is not None:
                kept[folder] = kept.get(folder, 0) + 1
                continue
            found.append(note)
        for folder, count in kept.items():
            self.notices.append(
                f"{count} notes in {folder}/ were left where they are (templates, to-do notes "
                "and the Second Brain's wiki keep their folders)"
            )
        seen = set(self.offered)
        return sorted(found, key=lambda note: (note.path in seen, note.path))

    async def propose(self, vault: Vault) -> list[Proposal]:
        self.notices.clear()
        notes = self.candidates(vault)
        chosen, rest = notes[: self.limit], notes[self.limit :]
        plan: list[tuple[str, str, str]] = []  # source, destination, category
        garbled: list[str] = []
        taken: set[str] = set()
        collisions: list[str] = []
        for position, note in enumerate(chosen):
            try:
                answer = await self.model.complete(SYSTEM, _prompt(note), max_tokens=MAX_TOKENS)
            except VaultctxError as exc:
                if not plan and not garbled:
                    raise
                left = len(chosen) - position
                self.notices.append(
                    f"the model failed after {position} notes ({exc.one_line()}); "
                    f"{left} were not classified: run `vaultctx para` again later"
                )
                break
            category = category_of(answer)
            if category is None:
                garbled.append(f"{note.path} ({shown(answer, 40)!r})")
                continue
            destination = f"{FOLDERS[category]}/{PurePosixPath(note.path).name}"
            if destination.casefold() in taken or exists_folded(vault.path, destination):
                collisions.append(f"{note.path} -> {destination}")
                continue
            taken.add(destination.casefold())
            plan.append((note.path, destination, category))
        self._report(garbled, collisions, rest)
        return self._proposals(vault, plan)

    def _report(self, garbled: list[str], collisions: list[str], rest: list[VaultFile]) -> None:
        if garbled:
            self.notices.append(
                f"{len(garbled)} notes skipped: the model's answer named no single category: "
                + _some(garbled)
            )
        if collisions:
            self.notices.append(
                f"{len(collisions)} notes not proposed: a note of that name is (or would be) "
                "there already: " + _some(collisions)
            )
        if rest:
            self.notices.append(
                f"{self.limit} notes classified (the most per run); {len(rest)} more were not: "
                "run `vaultctx para` again to continue with them"
            )

    def _proposals(self, vault: Vault, plan: list[tuple[str, str, str]]) -> list[Proposal]:
        proposals = []
        missing = [f for f in FOLDERS.values() if not os.path.isdir(vault.path / f)]
        if missing:
            proposals.append(
                Proposal(
                    1,
                    "create the P.A.R.A folders " + ", ".join(missing),
                    "a folder a note moves into is created anyway; accept this to have all four",
                    {"kind": "folders", "folders": missing},
                )
            )
        for source, destination, category in plan:
            proposals.append(
                Proposal(
                    len(proposals) + 1,
                    f"move {source} -> {destination}",
                    f"{category}; links to it in other notes are rewritten",
                    {"kind": "move", "source": source, "destination": destination},
                )
            )
        return proposals

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        """The accepted folders first, then every accepted move at once (links planned in one
        pass over the vault); a name taken meanwhile is skipped with its reason."""
        result = ReviewResult(None)
        moves: dict[str, tuple[str, int]] = {}  # source -> (destination, proposal number)
        moved = sum(1 for p in accepted if p.data.get("kind") == "move")
        label = f"para: {moved} notes into P.A.R.A folders"
        with vault.change_batch(ChangeContext(label, source="cli"), "para") as batch:
            for proposal in accepted:
                data = proposal.data
                try:
                    if data.get("kind") == "folders":
                        for folder in _strings(data.get("folders")):
                            if folder not in FOLDERS.values():
                                raise NoteChangeError(f"{folder} is not a P.A.R.A folder", LIST)
                            batch.create_folder(folder)
                        result.applied.append(proposal.number)
                        continue
                    source, destination = str(data.get("source")), str(data.get("destination"))
                    if not in_para_folder(destination):
                        raise NoteChangeError(f"{destination} is not in a P.A.R.A folder", LIST)
                    if exists_folded(vault.path, destination):
                        raise NoteChangeError(
                            f"{destination} exists (a note of that name is there); not moved", LIST
                        )
                    moves[source] = (destination, proposal.number)
                except (NoteChangeError, OSError) as exc:
                    reason = exc.message if isinstance(exc, VaultctxError) else str(exc)
                    result.skipped.append(f"{proposal.number}: {reason}")
            _, refused = batch.move_notes({s: d for s, (d, _) in moves.items()})
            for source, (_, number) in moves.items():
                if source in refused:
                    result.skipped.append(f"{number}: {refused[source]}")
                else:
                    result.applied.append(number)
        assert batch.change is not None
        result.applied.sort()
        result.record_id = batch.change.record_id
        result.paths = batch.change.paths
        result.notices = batch.change.notices
        return result


def _prompt(note: VaultFile) -> str:
    try:
        text = read_vault_file(note)
    except (OSError, UnicodeDecodeError):
        text = ""
    return f"Title: {PurePosixPath(note.path).stem}\nContent preview: {text[:PREVIEW_CHARS]}"


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _some(items: list[str]) -> str:
    more = f" and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else ""
    return ", ".join(items[:MAX_NAMED]) + more


__all__ = ["FOLDERS", "MAX_CLASSIFICATIONS", "ParaFlow", "category_of", "in_para_folder"]
