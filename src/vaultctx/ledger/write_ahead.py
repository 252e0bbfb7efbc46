"""Journal each step of a change before it is made: what every change operation and batch uses.

A step names the paths it will set (``edits``: a path and the state it will hold, or ``FOLDER``
for a folder made if missing). Each path belongs to a *root*: the path itself, or the outermost
folder a write there would create, or a root an earlier step of the same change already tracks.
The journal line holds each root's state before the step (read from disk the first time, then
as the previous step left it) and after it (computed, never read after the fact), with every
content stored first; only then is the step made. So a process killed at any moment leaves a
journal naming each change on disk, and a file the user saves later is never taken for ours.

A step refused before it touched anything (a file changed meanwhile, a name taken: a
``NoteChangeError``) is cancelled in the journal; one that failed midway (a file system error)
is replaced by the state its paths are left in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from vaultctx.ledger import snapshot
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.snapshot import MISSING, FolderState, State
from vaultctx.ledger.store import LedgerStore
from vaultctx.vault.writes import NoteChangeError, digest, exists

FOLDER = None  # an edit's state: a folder, made if missing (what was in it stays)
Edit = tuple[Path, State | None]


class WriteAhead:
    """The journal of one change in progress over the vault at ``root``."""

    def __init__(self, store: LedgerStore, root: Path, context: ChangeContext, kind: str) -> None:
        self.root = root
        self.journal = store.begin(
            label=context.label,
            conversation_id=context.conversation_id,
            source=context.source,
            kind=kind,
        )
        self.store = store
        self.blobs: dict[str, bytes] = {}
        self._current: dict[str, State] = {}

    @contextlib.contextmanager
    def step(self, edits: Sequence[Edit], *, read: Edit | None = None) -> Iterator[None]:
        """Journal the step that makes ``edits`` (fsynced), then let the block make it. A block
        that raises ``NoteChangeError`` was refused before it changed anything: the step is
        cancelled. Another error is recorded as what it left; an interrupt leaves the step
        journalled, made or not, and undo accepts either.

        ``read``: a file's state as just read (the bytes a replacement is computed from and
        compared against), taken as its root's state when no step tracks it yet."""
        previous = dict(self._current)
        touched: dict[str, State] = {}
        try:
            if read is not None and read[1] is not None:
                relative = read[0].relative_to(self.root).as_posix()
                if not any(relative == r or relative.startswith(r + "/") for r in self._current):
                    self._current[relative] = read[1]
            for absolute, state in edits:
                root, parts = self._root_of(absolute)
                touched.setdefault(root, self._current[root])
                self._current[root] = _set(self._current[root], parts, state)
            roots = [(root, before, self._current[root]) for root, before in touched.items()]
            number = self.journal.step(roots, self.blobs)
        except BaseException:
            self._current = previous
            raise
        try:
            yield
        except NoteChangeError:
            self.journal.cancel(number)
            self._current = previous
            raise
        except Exception:
            self._correct(number, touched)
            raise

    def _correct(self, number: int, touched: dict[str, State]) -> None:
        """A step that failed in the middle (a file system error): its roots as they are now,
        wherever they differ from before the step, so nothing on disk goes unrecorded."""
        self.journal.cancel(number)
        changed = []
        for root, before in touched.items():
            now = snapshot.take(self.root.joinpath(*root.split("/")), self.blobs)
            self._current[root] = now
            if now != before:
                changed.append((root, before, now))
        if changed:
            self.journal.step(changed, self.blobs)

    def add_blob(self, data: bytes) -> str:
        sha = digest(data)
        self.blobs[sha] = data
        return sha

    def finish(self) -> tuple[str | None, list[str]]:
        """The finished record's id (None: nothing changed) and notices for the user."""
        record, notices = self.store.finish(self.journal)
        return (record.id if record else None), notices

    def _root_of(self, absolute: Path) -> tuple[str, list[str]]:
        relative = absolute.relative_to(self.root).as_posix()
        for root in self._current:
            if relative == root or relative.startswith(root + "/"):
                return root, relative[len(root) :].split("/")[1:]
        top = absolute
        folder = absolute.parent
        while folder != self.root and not exists(folder):
            top = folder
            folder = folder.parent
        root = top.relative_to(self.root).as_posix()
        self._current[root] = snapshot.take(top, self.blobs)
        parts = relative[len(root) :].split("/")[1:]
        return root, parts


def _set(state: State, parts: list[str], new: State | None) -> State:
    """``state`` with the path ``parts`` below it holding ``new`` (``FOLDER``: a folder, kept as
    it is if one is there); the folders on the way exist afterwards."""
    if not parts:
        if new is FOLDER:
            return state if isinstance(state, FolderState) else FolderState(())
        return new
    children = dict(state.children) if isinstance(state, FolderState) else {}
    child = _set(children.get(parts[0], MISSING), parts[1:], new)
    if child == MISSING:
        children.pop(parts[0], None)
    else:
        children[parts[0]] = child
    return FolderState(tuple(sorted(children.items())))
