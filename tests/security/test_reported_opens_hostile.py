"""The opens the Obsidian plugin reports (``POST /vaultctx/obsidian/opens``) are hostile input,
whoever sends them: a name is kept only when it is a markdown note inside the vault at exactly
that path (no ``..``, nothing absolute, no symbolic link on the way, no control file, nothing the
ignore rules exclude), a report is bounded in size and count, and the record is bounded too. The
record is private (0600 in a 0700 folder) and a link put in its place is neither read through
nor written through."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.ui_process import UiServer, running_ui
from vaultctx.brain import reported_opens
from vaultctx.brain.reported_opens import (
    MAX_PATHS,
    OPENS_PER_PATH,
    load_reported_opens,
    record_reported_opens,
)
from vaultctx.errors import VaultctxError
from vaultctx.vault.scanner import load_ignore_rules

REPO = Path(__file__).resolve().parents[2]
NOW = 1_800_000_000.0
NOTE = "30-resources/databases/SQLite tuning.md"


def hostile_names(vault: Path) -> list[object]:
    """Names that are no note of the vault, each with the file or link it points at made."""
    outside = vault.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text("secret\n", encoding="utf-8")
    (vault / "escape.md").symlink_to(outside / "secret.md")
    (vault / "escape-folder").symlink_to(outside, target_is_directory=True)
    (vault / "alias.md").symlink_to(vault / NOTE)  # a link to a note is not that note
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "notes.md").write_text("x\n", encoding="utf-8")
    (vault / "private").mkdir()
    (vault / "private" / "diary.md").write_text("dear diary\n", encoding="utf-8")
    (vault / ".indexignore").write_text("templates/\nprivate/\n", encoding="utf-8")
    (vault / "picture.png").write_bytes(b"\x89PNG")
    return [
        "../outside/secret.md",
        str(outside / "secret.md"),
        "/etc/passwd",
        "escape.md",
        "escape-folder/secret.md",
        "alias.md",
        f"00-inbox/../{NOTE}",
        f"./{NOTE}",
        NOTE.replace("/", "\\"),
        f"{NOTE}\0.png",
        ".obsidian/notes.md",
        "private/diary.md",
        "vaultctx.toml",
        "picture.png",
        "Missing.md",
        "",
        "x" * 5000 + ".md",
        42,
        None,
        ["a.md"],
    ]


def record(vault: Path, body: object, where: Path, now: float = NOW) -> tuple[int, int]:
    rules, _ = load_ignore_rules(vault)
    done = record_reported_opens(vault, rules, body, now, where)
    return done.recorded, done.refused


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "30-resources" / "databases").mkdir(parents=True)
    (root / "templates").mkdir()
    (root / NOTE).write_text("# SQLite tuning\n", encoding="utf-8")
    (root / "templates" / "Daily.md").write_text("# {{date}}\n", encoding="utf-8")
    return root


def test_only_notes_of_the_vault_at_their_own_path_are_kept(vault: Path, tmp_path: Path) -> None:
    names = [*hostile_names(vault), "templates/Daily.md"]
    where = tmp_path / "state" / "opens.json"
    body = [{"path": name, "at": NOW * 1000} for name in names]
    assert record(vault, body, where) == (0, len(body))
    assert not where.exists()  # nothing to keep: nothing written
    assert record(vault, [{"path": NOTE, "at": NOW * 1000}, *body[:3]], where) == (1, 3)
    assert load_reported_opens(where).opens == {NOTE: [NOW]}


@pytest.mark.parametrize(
    "at", [None, "1800000000000", True, float("inf"), float("nan"), (NOW - 400 * 86_400) * 1000]
)
def test_a_time_that_is_no_time_or_over_a_year_old_is_refused(
    vault: Path, tmp_path: Path, at: object
) -> None:
    where = tmp_path / "opens.json"
    assert record(vault, [{"path": NOTE, "at": at}], where) == (0, 1)


def test_a_time_in_the_future_is_now(vault: Path, tmp_path: Path) -> None:
    where = tmp_path / "opens.json"
    record(vault, [{"path": NOTE, "at": (NOW + 86_400 * 999) * 1000}], where)
    assert load_reported_opens(where).opens == {NOTE: [NOW]}


@pytest.mark.parametrize("body", [{"path": NOTE}, "x", [{"path": NOTE, "at": 1}] * 51])
def test_a_report_that_is_not_a_short_list_is_refused(
    vault: Path, tmp_path: Path, body: object
) -> None:
    with pytest.raises(VaultctxError, match="at most 50"):
        record(vault, body, tmp_path / "opens.json")


def test_ten_thousand_notes_are_bounded_the_oldest_dropped(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = tmp_path / "opens.json"
    folder = vault / "many"
    folder.mkdir()
    names = [f"many/{i:05}.md" for i in range(10_000)]
    for name in names:
        (vault / name).write_bytes(b"")
    monkeypatch.setattr(reported_opens, "MAX_REPORTED", 10_000)
    body = [{"path": name, "at": (NOW - 10_000 + i) * 1000} for i, name in enumerate(names)]
    assert record(vault, body, where) == (10_000, 0)
    kept = load_reported_opens(where).opens
    assert len(kept) == MAX_PATHS == 5_000
    assert sorted(kept) == names[5_000:]  # the notes opened last
    # One note opened again and again keeps its last OPENS_PER_PATH opens.
    again = [{"path": NOTE, "at": (NOW - 100 + i) * 1000} for i in range(40)]
    record(vault, again, where)
    assert load_reported_opens(where).opens[NOTE] == [NOW - 100 + i for i in range(39, 29, -1)]
    assert len(load_reported_opens(where).opens) == MAX_PATHS
    assert OPENS_PER_PATH == 10


def test_the_record_is_0600_in_a_0700_folder_even_after_a_wide_umask(
    vault: Path, tmp_path: Path
) -> None:
    where = tmp_path / "state" / "brain" / "v-opens.json"
    where.parent.mkdir(parents=True, mode=0o755)
    os.chmod(where.parent, 0o755)  # left wide by hand or an older version
    old = os.umask(0)
    try:
        record(vault, [{"path": NOTE, "at": NOW * 1000}], where)
    finally:
        os.umask(old)
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700


def test_a_record_replaced_by_a_link_is_not_followed(vault: Path, tmp_path: Path) -> None:
    target = tmp_path / "bashrc"
    target.write_text('{"version": 1, "opens": {"x.md": [1800000000.0]}}', encoding="utf-8")
    where = tmp_path / "state" / "opens.json"
    where.parent.mkdir(mode=0o700)
    where.symlink_to(target)
    read = load_reported_opens(where)
    assert read.opens == {} and "symbolic link" in read.notices[0]  # not read through
    record(vault, [{"path": NOTE, "at": NOW * 1000}], where)
    assert target.read_text(encoding="utf-8").startswith('{"version": 1, "opens": {"x.md"')
    assert not where.is_symlink() and load_reported_opens(where).opens == {NOTE: [NOW]}


def test_a_record_that_is_a_fifo_or_too_large_is_started_afresh(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert "not a regular file" in load_reported_opens(fifo).notices[0]  # and did not block
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"version": 1, "opens": {"a.md": [NOW]}}), encoding="utf-8")
    monkeypatch.setattr(reported_opens, "MAX_FILE_BYTES", 10)
    assert "over 10 bytes" in load_reported_opens(big).notices[0]


# -- through the real server ------------------------------------------------------------------


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("reported-opens")
    env = {"PYTHONPATH": f"{REPO / 'src'}:{REPO}", "XDG_STATE_HOME": str(root / "state")}
    with running_ui(root, prepare=hostile_names, env=env) as server:
        yield server


def call(ui: UiServer, body: object) -> tuple[int, dict[str, Any]]:
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {ui.token}",
        "Origin": "app://obsidian.md",
    }
    text = body if isinstance(body, str) else json.dumps(body)
    status, _, answer = ui.request(
        "/vaultctx/obsidian/opens", method="POST", headers=headers, body=text, cookie=False
    )
    return status, json.loads(answer) if answer.startswith("{") else {}


def test_the_server_keeps_no_hostile_name(ui: UiServer) -> None:
    refused = [
        "../outside/secret.md",
        "escape.md",
        "escape-folder/secret.md",
        "alias.md",
        ".obsidian/notes.md",
        "private/diary.md",
        "templates/Daily note.md",
        "/etc/passwd",
    ]
    now = time.time() * 1000
    status, data = call(ui, {"opens": [{"path": p, "at": now} for p in refused]})
    assert status == 200 and data == {"recorded": 0, "refused": len(refused)}
    state = ui.vault.parent / "state" / "vaultctx" / "brain"
    assert not state.exists() or not any(state.glob("*-opens.json"))
    status, data = call(ui, {"opens": [{"path": NOTE, "at": now}, {"path": refused[1], "at": now}]})
    assert status == 200 and data == {"recorded": 1, "refused": 1}
    [kept] = state.glob("*-opens.json")
    assert list(load_reported_opens(kept).opens) == [NOTE]


def test_a_huge_report_is_refused_before_it_is_read(ui: UiServer) -> None:
    huge = json.dumps({"opens": [{"path": NOTE, "at": 1}], "pad": "x" * 200_000})
    status, _ = call(ui, huge)
    assert status == 413
    status, data = call(ui, {"opens": [{"path": NOTE, "at": 1}] * 51})
    assert status == 400 and "at most 50" in data["error"]
