"""The vault's ``.obsidian/workspace.json`` is the vault's, so anyone's: the review queue reads its
``lastOpenFiles`` only inside the vault, from a regular file of bounded size, and counts only
indexed notes at their own path. Anything else is ignored, never followed, never a crash."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tests.brain.test_reports_review_queue import DAY, NOW, queue_vault
from vaultctx.brain import obsidian_opens
from vaultctx.brain.obsidian_opens import MAX_BYTES, MAX_ENTRIES, last_open_files
from vaultctx.brain.reports import review_queue
from vaultctx.brain.review_state import load_review_state, state_file

NOTES = {"Old.md", "Linked.md", "Sub/Note.md"}


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Sub").mkdir()
    for note in NOTES:
        (vault / note).write_text("# x\n", encoding="utf-8")
    return vault


def _listing(vault: Path, entries: object, when: float = NOW) -> Path:
    workspace = vault / ".obsidian" / "workspace.json"
    workspace.write_text(json.dumps({"lastOpenFiles": entries}), encoding="utf-8")
    os.utime(workspace, (when, when))
    return workspace


def test_only_indexed_notes_at_their_own_path_count(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    (vault / "Link.md").symlink_to(vault / "Old.md")  # a link to a note is not that note
    (vault / "Escape.md").symlink_to(outside)
    (vault / "Folder").symlink_to(vault / "Sub", target_is_directory=True)
    hostile = [
        "../outside.md",
        str(outside),
        "/etc/passwd",
        "Sub/../Old.md",
        "Sub\\Note.md",
        "Link.md",
        "Escape.md",
        "Folder/Note.md",
        "Old.md\0.png",
        "picture.png",
        "Missing.md",
        "",
        "x" * 5000,
        42,
        None,
        {"path": "Old.md"},
        ["Old.md"],
        "Sub/Note.md",
        "Old.md",
        "Old.md",
    ]
    _listing(vault, hostile)
    # Even were the index to hold these paths, none is a note at its own place in the vault.
    known = NOTES | {"Link.md", "Escape.md", "Folder/Note.md", "Missing.md", "Sub/../Old.md"}
    known |= {"../outside.md", str(outside), "/etc/passwd", "Sub\\Note.md", "x" * 5000}
    seen = last_open_files(vault, known, NOW + DAY)
    assert seen.paths == ["Sub/Note.md", "Old.md"] and seen.notices == []
    assert seen.written == NOW


def test_a_future_time_is_taken_as_now(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    _listing(vault, ["Old.md"], when=NOW + 1000 * DAY)
    assert last_open_files(vault, NOTES, NOW).written == NOW


def test_only_the_first_entries_are_looked_at(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    _listing(vault, ["Missing.md"] * MAX_ENTRIES + ["Old.md"])
    assert last_open_files(vault, NOTES, NOW).paths == []


@pytest.mark.parametrize(
    "content",
    [
        b"{" * 100,  # broken
        b"[" * 200_000 + b"]" * 200_000,  # nested past the parser's recursion limit
        b"\xff\xfe not utf-8",
        b'{"lastOpenFiles": "Old.md"}',  # not a list: nothing
        b"[1, 2, 3]",
    ],
)
def test_a_broken_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    vault = _vault(tmp_path)
    (vault / ".obsidian" / "workspace.json").write_bytes(content)
    assert last_open_files(vault, NOTES, NOW).paths == []


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    padding = " " * MAX_BYTES
    (vault / ".obsidian" / "workspace.json").write_text(
        '{"lastOpenFiles": ["Old.md"]}' + padding, encoding="utf-8"
    )
    seen = last_open_files(vault, NOTES, NOW)
    assert seen.paths == [] and "over 1,000,000 bytes" in seen.notices[0]


def test_a_workspace_outside_the_vault_is_not_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "workspace.json").write_text('{"lastOpenFiles": ["Old.md"]}', encoding="utf-8")
    vault = _vault(tmp_path)
    (vault / ".obsidian" / "workspace.json").symlink_to(elsewhere / "workspace.json")
    seen = last_open_files(vault, NOTES, NOW)
    assert seen.paths == [] and "resolves outside the vault" in seen.notices[0]
    # The whole config folder a link out of the vault: the same.
    (vault / ".obsidian" / "workspace.json").unlink()
    (vault / ".obsidian").rmdir()
    (vault / ".obsidian").symlink_to(elsewhere, target_is_directory=True)
    seen = last_open_files(vault, NOTES, NOW)
    assert seen.paths == [] and "resolves outside the vault" in seen.notices[0]


def test_a_fifo_or_device_never_blocks(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    os.mkfifo(vault / ".obsidian" / "workspace.json")
    result: list[object] = []
    reader = threading.Thread(target=lambda: result.append(last_open_files(vault, NOTES, NOW)))
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert result[0].notices and "not a regular file" in result[0].notices[0]  # type: ignore[attr-defined]
    os.unlink(vault / ".obsidian" / "workspace.json")
    (vault / ".obsidian" / "workspace.json").symlink_to("/dev/zero")
    assert last_open_files(vault, NOTES, NOW).paths == []


def test_a_hostile_list_through_the_queue(tmp_path: Path) -> None:
    """End to end: the queue runs, says why it ignored the file, and keeps no hostile entry."""
    vault = queue_vault(tmp_path)
    workspace = vault.path / ".obsidian" / "workspace.json"
    workspace.parent.mkdir(exist_ok=True)
    workspace.write_text(
        json.dumps({"lastOpenFiles": ["../../etc/passwd", "/etc/passwd", "Old.md"] * 3}),
        encoding="utf-8",
    )
    os.utime(workspace, (NOW - DAY, NOW - DAY))
    report = review_queue(vault, clock=lambda: NOW)
    assert "Old.md" not in [q.path for q in report.notes]  # opened a day ago
    saved = load_review_state(state_file(vault.path))
    assert saved.open_files == ["Old.md"] and set(saved.opened) == {"Old.md"}
    workspace.write_bytes(b"\0" * (obsidian_opens.MAX_BYTES + 1))
    report = review_queue(vault, clock=lambda: NOW + 8 * DAY)
    assert any("workspace.json" in notice for notice in report.notices)
