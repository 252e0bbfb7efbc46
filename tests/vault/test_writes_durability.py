"""A change to the vault survives a power cut: each new content is fsynced before it is renamed
into place and the folder after, the staged copy is named so that undo finds one a killed process
left behind, and no file handle is left open."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultctx.vault.writes import create_file, rename, replace_file, sync_folder

STAGED = re.compile(r"^\.(.+)\.[a-z0-9_]{8}\.vaultctx-tmp$")  # what undo looks for


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "vault" / "notes").mkdir(parents=True)
    (tmp_path / "vault" / "notes" / "Plan.md").write_bytes(b"# Plan\n")
    return (tmp_path / "vault").resolve()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every fsync (by the path its handle was opened at), rename and link, in order."""
    seen: list[tuple[str, str]] = []
    paths: dict[int, str] = {}
    real_open, real_fsync = os.open, os.fsync
    real_replace, real_link, real_rename = os.replace, os.link, os.rename

    def opened(path: object, *args: object, **kwargs: object) -> int:
        fd = real_open(path, *args, **kwargs)  # type: ignore[arg-type]
        paths[fd] = str(path)
        return fd

    def fsynced(fd: int) -> None:
        real_fsync(fd)
        seen.append(("fsync", paths.get(fd, os.readlink(f"/proc/self/fd/{fd}"))))

    def moved(kind: str, real: object) -> object:
        def call(source: object, destination: object, **kwargs: object) -> None:
            real(source, destination, **kwargs)  # type: ignore[operator]
            seen.append((kind, str(destination)))

        return call

    monkeypatch.setattr(os, "open", opened)
    monkeypatch.setattr(os, "fsync", fsynced)
    monkeypatch.setattr(os, "replace", moved("replace", real_replace))
    monkeypatch.setattr(os, "link", moved("link", real_link))
    monkeypatch.setattr(os, "rename", moved("rename", real_rename))
    yield seen


def test_a_new_note_is_fsynced_before_it_is_linked_in_and_its_folder_after(
    root: Path, calls: list[tuple[str, str]]
) -> None:
    path = root / "notes" / "New.md"
    create_file(path, b"new", 0o644, "notes/New.md")
    [first, second, third] = calls
    assert first[0] == "fsync" and STAGED.match(Path(first[1]).name)
    assert STAGED.match(Path(first[1]).name).group(1) == "New.md"  # type: ignore[union-attr]
    assert second == ("link", str(path))
    assert third == ("fsync", str(root / "notes"))


def test_a_replacement_is_fsynced_before_its_rename_and_its_folder_after(
    root: Path, calls: list[tuple[str, str]]
) -> None:
    path = root / "notes" / "Plan.md"
    replace_file(path, b"new", expected=b"# Plan\n", mode=0o644, shown="notes/Plan.md")
    assert [kind for kind, _ in calls] == ["fsync", "replace", "fsync"]
    assert STAGED.match(Path(calls[0][1]).name)
    assert calls[1:] == [("replace", str(path)), ("fsync", str(root / "notes"))]


def test_a_move_fsyncs_both_folders(root: Path, calls: list[tuple[str, str]]) -> None:
    (root / "archive").mkdir()
    rename(root / "notes" / "Plan.md", root / "archive" / "Plan.md", "archive/Plan.md")
    assert calls[-2:] == [("fsync", str(root / "notes")), ("fsync", str(root / "archive"))]
    rename(root / "notes", root / "old", "old")
    assert calls[-3:] == [("rename", str(root / "old")), ("fsync", str(root)), ("fsync", str(root))]


def test_a_staged_copy_a_killed_process_leaves_is_named_for_undo(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # the process stops here: nothing cleans up after it

    monkeypatch.setattr(os, "replace", killed)
    monkeypatch.setattr(os, "unlink", killed)
    with pytest.raises(KeyboardInterrupt):
        replace_file(
            root / "notes" / "Plan.md", b"n", expected=b"# Plan\n", mode=0o600, shown="Plan.md"
        )
    monkeypatch.undo()
    [staged] = [name for name in os.listdir(root / "notes") if name != "Plan.md"]
    assert STAGED.match(staged) and STAGED.match(staged).group(1) == "Plan.md"  # type: ignore[union-attr]
    assert (root / "notes" / staged).read_bytes() == b"n"
    assert (root / "notes" / staged).stat().st_mode & 0o777 == 0o600


def test_no_handle_is_left_open(root: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for number in range(50):
        sync_folder(root / "notes")
        create_file(root / "notes" / f"n{number}.md", b"x", 0o644, "n.md")
    assert len(os.listdir("/proc/self/fd")) <= before
