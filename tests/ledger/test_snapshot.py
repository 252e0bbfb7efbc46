"""What the ledger sees at a path: nothing, a file's bytes and mode, a link (never followed), a
special file (named, never read), or a folder tree; and the walks undo and retention make over
those states."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultctx.ledger import snapshot
from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, LinkState
from vaultctx.vault.writes import digest


def test_a_tree_is_taken_whole_with_each_files_bytes_and_mode(tmp_path: Path) -> None:
    root = tmp_path / "t"
    (root / "b" / "empty").mkdir(parents=True)
    (root / "a.md").write_bytes(b"one")
    (root / "a.md").chmod(0o600)
    (root / "b" / "c.md").write_bytes(b"")
    (root / "b" / "c.md").chmod(0o755)
    os.symlink("../a.md", root / "b" / "link")
    blobs: dict[str, bytes] = {}
    state = snapshot.take(root, blobs)
    assert state == FolderState(
        (
            ("a.md", FileState(digest(b"one"), 3)),
            (
                "b",
                FolderState(
                    (
                        ("c.md", FileState(digest(b""), 0)),
                        ("empty", FolderState(())),
                        ("link", LinkState("../a.md")),
                    )
                ),
            ),
        )
    )
    assert isinstance(state, FolderState)
    first = state.children[0][1]
    assert isinstance(first, FileState) and first.mode == 0o600
    sub = state.children[1][1]
    assert isinstance(sub, FolderState)
    c = sub.children[0][1]
    assert isinstance(c, FileState) and c.mode == 0o755
    assert blobs == {digest(b"one"): b"one", digest(b""): b""}
    assert snapshot.take(root / "a.md") == FileState(digest(b"one"), 3)


def test_nothing_at_a_path_or_under_a_file_is_missing(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert snapshot.take(tmp_path / "nothing") is MISSING
    assert snapshot.take(tmp_path / "f" / "below") is MISSING


def test_a_link_is_recorded_never_followed(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "secret.md").write_text("secret")
    os.symlink(tmp_path / "target", tmp_path / "link")
    blobs: dict[str, bytes] = {}
    assert snapshot.take(tmp_path / "link", blobs) == LinkState(str(tmp_path / "target"))
    assert blobs == {}
    os.symlink(tmp_path / "target" / "secret.md", tmp_path / "file-link")
    with pytest.raises(OSError):
        snapshot.read_no_follow(tmp_path / "file-link")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_special_file_is_named_never_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe", 0o600)
    assert snapshot.take(tmp_path / "pipe") == LinkState("<prw------- special file>")


def test_wrap_nests_a_state_in_the_folders_a_change_created() -> None:
    leaf = FileState("a" * 64, 1)
    assert snapshot.wrap(leaf, []) == leaf
    assert snapshot.wrap(leaf, ["x", "y"]) == FolderState((("x", FolderState((("y", leaf),))),))


def test_files_in_lists_files_links_and_empty_folders_by_path() -> None:
    one, two = FileState("a" * 64, 1), FileState("b" * 64, 2)
    state = FolderState(
        (
            ("a.md", one),
            ("empty", FolderState(())),
            ("gone", MISSING),
            ("sub", FolderState((("b.md", two), ("l", LinkState("x"))))),
        )
    )
    assert list(snapshot.files_in(state, "top")) == [
        ("top/a.md", one),
        ("top/empty", FolderState(())),
        ("top/sub/b.md", two),
        ("top/sub/l", LinkState("x")),
    ]
    assert list(snapshot.files_in(MISSING, "p")) == []
    assert list(snapshot.files_in(one, "p")) == [("p", one)]
    assert list(snapshot.files_in(FolderState(()), "p")) == [("p", FolderState(()))]
    assert snapshot.digests(state) == {"a" * 64, "b" * 64}
    assert snapshot.digests(LinkState("x")) == set() == snapshot.digests(MISSING)


def test_differing_paths_names_each_path_that_changed() -> None:
    one, two = FileState("a" * 64, 1), FileState("b" * 64, 2)
    before = FolderState((("a.md", one), ("keep.md", one), ("sub", FolderState((("x", one),)))))
    after = FolderState((("b.md", two), ("keep.md", one), ("sub", FolderState((("x", two),)))))
    assert snapshot.differing_paths(before, after, "p") == ["p/a.md", "p/b.md", "p/sub/x"]
    assert snapshot.differing_paths(before, before, "p") == []
    assert snapshot.differing_paths(one, before, "p") == ["p"]
    assert snapshot.differing_paths(before, MISSING, "p") == ["p"]
    # The mode is restored but never compared: a chmod is not an edit.
    assert snapshot.differing_paths(FileState("a" * 64, 1, 0o600), one, "p") == []


def test_states_as_json() -> None:
    assert FileState("a" * 64, 3, 0o600).as_json() == {
        "kind": "file",
        "sha256": "a" * 64,
        "size": 3,
        "mode": 0o600,
    }
    assert FileState("a" * 64, 3).mode == 0o644
    assert LinkState("t").as_json() == {"kind": "link", "target": "t"}
    assert MISSING.as_json() == {"kind": "missing"}
    assert FolderState((("x", MISSING),)).as_json() == {
        "kind": "folder",
        "children": {"x": {"kind": "missing"}},
    }
    assert snapshot.file_state(b"abc", 0o640) == FileState(digest(b"abc"), 3, 0o640)
    assert snapshot.file_state(b"abc", 0o640).mode == 0o640
