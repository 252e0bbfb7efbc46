"""`capture` writes only inside the vault, never through a planted link, and says honestly whether
the note was indexed (docs/security.md, "Writes")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ledger.conftest import isolate_data_dir
from vaultctx.api import Vault
from vaultctx.capture import CaptureError


@pytest.fixture(autouse=True)
def _private_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Captures are recorded in the ledger: a private data dir keeps it out of the real one."""
    isolate_data_dir(tmp_path_factory.mktemp("data"), monkeypatch)


pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nexisting note\n")
    return vault


def test_an_inbox_linked_outside_the_vault_is_refused(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (vault / "00-inbox").symlink_to(elsewhere, target_is_directory=True)
    with (
        Vault(vault, db=tmp_path / "index.db") as handle,
        pytest.raises(CaptureError, match="outside the vault"),
    ):
        handle.capture("Groceries\n\nmilk, eggs")
    assert list(elsewhere.iterdir()) == []
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vaultctx",
            "capture",
            "Groceries: milk",
            "--vault",
            str(vault),
            "--db",
            str(tmp_path / "index.db"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "outside the vault" in done.stderr
    assert "Traceback" not in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_an_inbox_setting_through_a_link_outside_the_vault_creates_nothing_there(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (vault / "areas").symlink_to(elsewhere, target_is_directory=True)
    (vault / "vaultctx.toml").write_text('inbox_folder = "areas/inbox/new"\n')
    with (
        Vault(vault, db=tmp_path / "index.db") as handle,
        pytest.raises(CaptureError, match="outside the vault"),
    ):
        handle.capture("Groceries\n\nmilk, eggs")
    assert list(elsewhere.iterdir()) == []


def test_an_inbox_linked_inside_the_vault_reports_the_real_path(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / "Inbox").mkdir()
    (vault / "00-inbox").symlink_to(vault / "Inbox", target_is_directory=True)
    with Vault(vault, db=tmp_path / "index.db") as handle:
        result = handle.capture("Groceries\n\nmilk, eggs")
        assert result.path == "Inbox/Groceries.md"
        assert result.indexed
        assert [r.file_path for r in handle.search("eggs", mode="bm25").results] == [result.path]


def test_an_inbox_linked_to_an_ignored_folder_receives_nothing(tmp_path: Path) -> None:
    """The link is followed to where it leads, and that folder is judged: excluded from the
    index, so capture (which writes only where vaultctx reads) refuses and writes nothing."""
    vault = _vault(tmp_path)
    (vault / "private").mkdir()
    (vault / ".indexignore").write_text("private/\n")
    (vault / "00-inbox").symlink_to(vault / "private", target_is_directory=True)
    with (
        Vault(vault, db=tmp_path / "index.db") as handle,
        pytest.raises(CaptureError, match="private/ is excluded by the ignore rules"),
    ):
        handle.capture("Groceries\n\nmilk, eggs")
    assert list((vault / "private").iterdir()) == []


def test_a_link_planted_at_the_note_name_is_not_followed(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / "00-inbox").mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (vault / "00-inbox" / "Groceries.md").symlink_to(victim)
    with Vault(vault, db=tmp_path / "index.db") as handle:
        result = handle.capture("Groceries\n\nmilk, eggs")
    assert result.path == "00-inbox/Groceries 2.md"
    assert victim.read_text() == "precious\n"


def test_indexed_is_read_back_not_assumed(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with Vault(vault, db=tmp_path / "index.db") as handle:
        result = handle.capture("Groceries\n\nmilk, eggs")
        assert result.indexed
        assert {n.path for n in handle.list_notes(limit=10).notes} == {"a.md", result.path}
