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


def test_a_replacement_is_staged_beside_its_target_under_the_callers_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staged in the target's own folder (a rename within one file system, never from the
    system's temp folder) and named as the caller asked, so the scanner and the clean-up
    recognise a staged file left by a crash."""
    renamed: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def record(source: str, target: str) -> None:
        renamed.append((Path(source), Path(target)))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", record)
    target = tmp_path / "notes" / "a.md"
    target.parent.mkdir()
    replace_with_staged(target, b"new", 0o644, prefix=".a.md.", suffix=".vaultctx-tmp")
    [(source, destination)] = renamed
    assert destination == target and source.parent == target.parent
    assert source.name.startswith(".a.md.") and source.name.endswith(".vaultctx-tmp")


@pytest.mark.parametrize("step", ["write", "rename"])
def test_a_failure_whose_clean_up_fails_too_raises_the_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """A staged file that cannot be removed after the write or the rename failed does not hide
    why it failed: the first error is the one raised."""

    def refuse(*args: object) -> None:
        raise OSError(28, "No space left on device")

    def cannot_remove(path: str) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "fsync" if step == "write" else "replace", refuse)
    monkeypatch.setattr(os, "unlink", cannot_remove)
    with pytest.raises(OSError, match="No space left"):
        replace_with_staged(tmp_path / "a.md", b"new", 0o644, prefix=".a.", suffix=".tmp")
