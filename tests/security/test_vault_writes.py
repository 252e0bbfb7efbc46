"""Every writing operation refuses every way out of the vault, and nothing outside it changes.

The vault sits beside a folder holding a file no change may touch; the vault holds a symlinked
folder and a symlinked note that lead there, an in-vault link into ``.obsidian/``, and Obsidian's,
git's and the trash's own folders. Each attack is tried as the target of every writing operation
(create, replace, edit, append, move source and destination, trash); afterwards the sibling
folder, and the vault itself, must be byte-for-byte as they were, and nothing recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, isolate_data_dir, tree
from vaultctx.api import Vault
from vaultctx.vault.writes import NoteChangeError

ATTACKS = [
    "..",
    "../outside/secret.md",
    "../../../../../../etc/passwd.md",
    "notes/../../outside/secret.md",
    "./../outside/secret.md",
    "/etc/passwd.md",
    "/tmp/evil.md",
    "//server/share/evil.md",
    "~/../../etc/evil.md",
    "..\\outside\\secret.md",
    "notes\\..\\..\\outside\\secret.md",
    "C:\\Windows\\evil.md",
    "C:/Windows/evil.md",
    "c:evil.md",
    "\\\\server\\share\\evil.md",
    "\\\\?\\C:\\outside\\evil.md",
    "%2e%2e%2foutside%2fsecret.md",
    "%2e%2e/outside/secret.md",
    "..%2foutside%2fsecret.md",
    "..%5coutside%5csecret.md",
    "%252e%252e%252foutside%252fsecret.md",
    "%2fetc%2fevil.md",
    "notes/evil.md\x00.md",
    "\x00../outside/secret.md",
    "evil%00.md",
    "notes/line\nbreak.md",
    "... /outside/secret.md",
    "notes/.. /../outside/secret.md",
    "a" * 256 + ".md",
    "linked-out/secret.md",
    "linked-out/new.md",
    "linked-out",
    "escape.md",
    "to-obsidian/app.md",
    ".obsidian/x.md",
    ".obsidian/app.json",
    ".OBSIDIAN/x.md",
    ".git/config",
    ".git/hooks/pre-commit.md",
    ".trash/x.md",
    ".trash",
    "private/diary.md",
    "image.png",
]


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Vault, Path]:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    outside = make_vault(tmp_path / "outside", {"secret.md": "# Secret\nkeep me\n"})
    vault_dir = make_vault(
        tmp_path / "vault",
        {
            "notes/Note.md": "# Note\nfind me\n",
            ".obsidian/app.json": "{}",
            ".obsidian/x.md": "obsidian",
            ".git/config": "[core]\n",
            ".trash/x.md": "trashed",
            "private/diary.md": "dear diary\n",
            ".indexignore": "private/\n",
        },
    )
    (vault_dir / "linked-out").symlink_to(outside, target_is_directory=True)
    (vault_dir / "escape.md").symlink_to(outside / "secret.md")
    (vault_dir / "to-obsidian").symlink_to(vault_dir / ".obsidian", target_is_directory=True)
    return Vault(vault_dir, db=tmp_path / "index.db"), outside


def operations(vault: Vault, attack: str) -> list[Callable[[], object]]:
    return [
        lambda: vault.create_note(attack, "pwned", change=AGENT),
        lambda: vault.replace_note(attack, "pwned", change=AGENT),
        lambda: vault.edit_note(attack, "keep me", "pwned", change=AGENT),
        lambda: vault.append_to_note(attack, "pwned", change=AGENT),
        lambda: vault.move_path(attack, "notes/moved.md", change=AGENT),
        lambda: vault.move_path("notes/Note.md", attack, change=AGENT),
        lambda: vault.trash_path(attack, change=AGENT),
    ]


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_writing_operation_refuses(setup: tuple[Vault, Path], attack: str) -> None:
    vault, outside = setup
    outside_before, vault_before = tree(outside), tree(vault.path)
    for operation in operations(vault, attack):
        with pytest.raises(NoteChangeError) as refused:
            operation()
        assert refused.value.message and refused.value.suggestion
        assert "\x00" not in refused.value.message
    assert tree(outside) == outside_before
    assert tree(vault.path) == vault_before
    assert vault.ledger() == []


def test_there_are_over_thirty_attacks() -> None:
    assert len(ATTACKS) >= 30


def test_a_link_planted_at_the_new_note_is_never_followed(setup: tuple[Vault, Path]) -> None:
    vault, outside = setup
    (vault.path / "notes/planted.md").symlink_to(outside / "new-file.md")
    with pytest.raises(NoteChangeError):
        vault.create_note("notes/planted.md", "pwned", change=AGENT)
    assert not (outside / "new-file.md").exists()


def test_a_folder_swapped_for_a_link_before_undo_stops_it(setup: tuple[Vault, Path]) -> None:
    vault, outside = setup
    vault.create_note("work/Plan.md", "plan", change=AGENT)
    vault.trash_path("work/Plan.md", change=AGENT)
    os.rmdir(vault.path / "work")
    (vault.path / "work").symlink_to(outside, target_is_directory=True)
    outside_before = tree(outside)
    with pytest.raises(NoteChangeError, match="symbolic link"):
        vault.undo()
    assert tree(outside) == outside_before
    assert (vault.path / ".trash/Plan.md").read_text() == "plan"


def test_a_folder_holding_a_link_is_not_moved_or_trashed(setup: tuple[Vault, Path]) -> None:
    vault, outside = setup
    (vault.path / "notes/out").symlink_to(outside, target_is_directory=True)
    before = tree(vault.path)
    for call in (
        lambda: vault.trash_path("notes", change=AGENT),
        lambda: vault.move_path("notes", "elsewhere", change=AGENT),
    ):
        with pytest.raises(NoteChangeError, match="symbolic link"):
            call()
    assert tree(vault.path) == before


def test_the_ledger_folder_is_private(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    vault.create_note("notes/New.md", "new", change=AGENT)
    folder = vault.ledger_store().folder
    assert oct(folder.stat().st_mode & 0o777) == oct(0o700)
    for file in folder.rglob("*"):
        expected = 0o700 if file.is_dir() else 0o600
        assert file.stat().st_mode & 0o777 == expected, file


def test_a_foreign_ledger_folder_is_refused_and_left_alone(setup: tuple[Vault, Path]) -> None:
    from vaultctx.ledger.store import NotALedgerError

    vault, _ = setup
    folder = vault.ledger_store().folder
    folder.mkdir(parents=True)
    (folder / "thesis.txt").write_text("my thesis")
    with pytest.raises(NotALedgerError):
        vault.create_note("notes/New.md", "new", change=AGENT)
    with pytest.raises(NotALedgerError):
        vault.ledger()
    assert (folder / "thesis.txt").read_text() == "my thesis"
    assert not (vault.path / "notes/New.md").exists()


def test_a_tampered_record_is_refused(setup: tuple[Vault, Path]) -> None:
    from vaultctx.ledger.store import LedgerError

    vault, outside = setup
    vault.create_note("notes/New.md", "new", change=AGENT)
    [record_file] = (vault.ledger_store().folder / "records").iterdir()
    text = record_file.read_text().replace('"notes"', '"../outside"')
    record_file.write_text(text.replace('"path": "notes/New.md"', '"path": "../outside"'))
    before = tree(outside)
    with pytest.raises(LedgerError, match="cannot be read"):
        vault.undo()
    with pytest.raises(LedgerError, match="cannot be read"):
        vault.undo(record_file.name[9:17])
    [unreadable] = vault.ledger_unreadable()  # listed with why, blocking no other record
    assert "is not a file or folder name" in unreadable.why
    assert tree(outside) == before
