"""Random sequences of AI changes, user edits and undos: an undo restores exactly, or refuses and
changes nothing.

The machine keeps, for every recorded AI change, the vault as it was before and after it. After
an undo that succeeds, every path the change touched holds what it held before the change, and
every other path is as it was just before the undo (a user's unrelated edit survives); when no user
edit happened since the change, that is simply the vault before the change, byte for byte. An undo
that refuses leaves the vault exactly as it was. Failed and no-op changes record nothing and
change nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, isolate_data_dir
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.ledger.undo import NothingToUndoError, UndoConflictError
from vaultctx.vault.writes import NoteChangeError

FILES = ["A.md", "B.md", "sub/C.md", "sub/deep/D.md", "new/E.md", "other/F.md"]
FOLDERS = ["sub", "sub/deep", "new", "other", "moved"]
TEXTS = st.sampled_from(
    ["", "alpha\n", "see [[A]] and [[sub/C]]\n", "beta\r\ngamma\r\n", "[x](B.md) alpha", "ünï\n"]
)
FINDS = st.sampled_from(["alpha", "gamma\n", "[[A]]", "b", "missing"])
# Whole-tree comparisons: a folder is None, a file its bytes.
Tree = dict[str, bytes | None]


def tree(root: Path) -> Tree:
    found: Tree = {}
    for folder, folders, files in os.walk(root):
        for name in folders:
            found[os.path.relpath(os.path.join(folder, name), root)] = None
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


class UndoMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="undo-machine-"))
        self.vault = Vault(
            make_vault(
                self.tmp / "vault",
                {
                    "A.md": "alpha\nsee [[B]]\n",
                    "B.md": "b\r\ngamma\r\n",
                    "sub/C.md": "[[A]] alpha\n",
                    "sub/deep/D.md": "[c](../C.md) and [[sub/C#x|y]]\n",
                },
            ),
            db=self.tmp / "no-index.db",
        )
        self.root = self.vault.path
        # (record id, vault before, vault after, no user edit since) per recorded change
        self.stack: list[tuple[str, Tree, Tree, bool]] = []

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    @initialize()
    def start(self) -> None:
        assert self.vault.ledger() == []

    def _ai(self, action: str, *args: str) -> None:
        before = tree(self.root)
        recorded = len(self.vault.ledger())
        try:
            change = getattr(self.vault, action)(*args, change=AGENT)
        except NoteChangeError:
            assert tree(self.root) == before
            assert len(self.vault.ledger()) == recorded
            return
        after = tree(self.root)
        if change.record_id is None:
            assert after == before and len(self.vault.ledger()) == recorded
            return
        assert after != before
        assert self.vault.ledger()[0].id == change.record_id
        self.stack.append((change.record_id, before, after, True))

    @rule(path=st.sampled_from(FILES), text=TEXTS)
    def ai_create(self, path: str, text: str) -> None:
        self._ai("create_note", path, text)

    @rule(path=st.sampled_from(FILES), text=TEXTS)
    def ai_replace(self, path: str, text: str) -> None:
        self._ai("replace_note", path, text)

    @rule(path=st.sampled_from(FILES), find=FINDS, replace=TEXTS)
    def ai_edit(self, path: str, find: str, replace: str) -> None:
        self._ai("edit_note", path, find, replace)

    @rule(path=st.sampled_from(FILES), text=TEXTS)
    def ai_append(self, path: str, text: str) -> None:
        self._ai("append_to_note", path, text)

    @rule(
        source=st.sampled_from(FILES + FOLDERS),
        destination=st.sampled_from(FILES + FOLDERS + ["moved/G.md", "Z.md"]),
    )
    def ai_move(self, source: str, destination: str) -> None:
        self._ai("move_path", source, destination)

    @rule(path=st.sampled_from(FILES + FOLDERS))
    def ai_trash(self, path: str) -> None:
        self._ai("trash_path", path)

    @rule(path=st.sampled_from([*FILES, ".trash/A.md", ".trash/sub/C.md"]), text=TEXTS)
    def user_writes(self, path: str, text: str) -> None:
        file = self.root / path
        if file.parent.is_dir() and not file.is_dir():
            file.write_text(text, encoding="utf-8", newline="")
            self._user_was_here()

    @rule(path=st.sampled_from([*FILES, ".trash/A.md"]))
    def user_deletes(self, path: str) -> None:
        file = self.root / path
        if file.is_file():
            file.unlink()
            self._user_was_here()

    def _user_was_here(self) -> None:
        self.stack = [(rid, before, after, False) for rid, before, after, _ in self.stack]

    @precondition(lambda self: not self.stack)
    @rule()
    def undo_nothing(self) -> None:
        current = tree(self.root)
        with pytest.raises(NothingToUndoError):
            self.vault.undo()
        assert tree(self.root) == current

    # Two rules for the same step: undos are as frequent as the AI changes they revert.
    @precondition(lambda self: bool(self.stack))
    @rule(dry_run=st.booleans())
    def undo_newest(self, dry_run: bool) -> None:
        self._undo(dry_run)

    @precondition(lambda self: bool(self.stack))
    @rule()
    def undo_again(self) -> None:
        self._undo(False)

    def _undo(self, dry_run: bool) -> None:
        current = tree(self.root)
        record_id, before, after, clean = self.stack[-1]
        try:
            report = self.vault.undo(dry_run=dry_run)
        except UndoConflictError as refused:
            assert not clean, f"a clean undo was refused: {refused.message}"
            assert tree(self.root) == current
            assert self.vault.ledger()[0].id == record_id
            return
        assert report.record.id == record_id
        if dry_run:
            assert tree(self.root) == current
            return
        restored = tree(self.root)
        expected = dict(current)
        for path in set(before) | set(after):
            if before.get(path, "missing") != after.get(path, "missing"):
                if path in before:
                    expected[path] = before[path]
                else:
                    expected.pop(path, None)
        if clean:
            assert restored == before
        else:
            assert _files(restored) == _files(expected)
        self.stack.pop()

    @invariant()
    def ledger_matches(self) -> None:
        assert [record.id for record in self.vault.ledger()] == [r[0] for r in self.stack][::-1]


def _files(found: Tree) -> Tree:
    """Files only: a folder the undo recreated to restore a file in it is no difference."""
    return {path: data for path, data in found.items() if data is not None}


# 100 random sequences in a developer's run, the full 500 in the slow step (`pytest -m slow`,
# which CI runs): the same machine and rules, fewer draws.
@pytest.mark.parametrize("examples", [100, pytest.param(500, marks=pytest.mark.slow)])
def test_undo_restores_exactly_or_refuses_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, examples: int
) -> None:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    started = time.perf_counter()
    UndoMachine.TestCase.settings = settings(
        max_examples=examples,
        stateful_step_count=10,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    try:
        UndoMachine.TestCase().runTest()
    except VaultctxError as exc:  # pragma: no cover - a bug; show its message, not only its type
        raise AssertionError(exc.one_line()) from exc
    print(f"state machine: {time.perf_counter() - started:.1f} s")
