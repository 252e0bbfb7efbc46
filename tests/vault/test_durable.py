"""vault/durable.py: the staged, fsynced write every saved file goes through."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from vaultctx.vault.durable import replace_with_staged, stage_file, sync_folder


def test_a_staged_file_holds_the_data_with_the_mode(tmp_path: Path) -> None:
    staging = Path(stage_file(tmp_path, b"new", 0o600, prefix=".a.md.", suffix=".tmp"))
    assert staging.parent == tmp_path and staging.name.startswith(".a.md.")
    assert staging.read_bytes() == b"new"
    assert stat.S_IMODE(staging.stat().st_mode) == 0o600


def test_a_failed_stage_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", refuse)
    with pytest.raises(OSError, match="No space"):
        stage_file(tmp_path, b"new", 0o644, prefix=".a.", suffix=".tmp")
    assert list(tmp_path.iterdir()) == []


def test_a_replacement_keeps_no_staged_file(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_bytes(b"old")
    replace_with_staged(target, b"new", 0o644, prefix=".a.md.", suffix=".tmp")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]


def test_a_failed_rename_leaves_the_target_and_no_staged_file(tmp_path: Path) -> None:
    target = tmp_path / "folder"
    (target / "inside").mkdir(parents=True)  # a non-empty folder cannot be renamed over
    with pytest.raises(OSError):
        replace_with_staged(target, b"new", 0o644, prefix=".f.", suffix=".tmp")
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]


def test_syncing_a_missing_folder_is_not_an_error(tmp_path: Path) -> None:
    sync_folder(tmp_path / "gone")
