"""Every log vaultctx writes is ``0600`` in a ``0700`` folder, private from its creation.

The only log files vaultctx writes are its MCP client's: each external server's stderr, kept in
``<user log dir>/mcp/<server>.log``, which echoes the tool calls a model made, passages of notes
included (``serve``, ``serve --http`` and ``ui`` log to stderr only, and hooks to nowhere). The
client here starts a real server (tests/agent/mcp_test_server.py, which writes a line to stderr
and exits) and the files are examined afterwards; the umask is 0 so that a file or folder made
with the system's default modes would show as world-readable.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultctx.agent.mcp_client import LOG_LIMIT_BYTES, McpClients, ServerStatus
from vaultctx.agent.mcp_config import McpServerConfig
from vaultctx.private_log import PrivateLogError, open_private_log

TEST_SERVER = Path(__file__).parents[1] / "agent" / "mcp_test_server.py"


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 0: anything not created with explicit modes comes out 0666 / 0777."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def run_server(log_dir: Path, tmp_path: Path) -> ServerStatus:
    """One real MCP server that prints ``boom: refusing to start`` to stderr and exits."""
    server = McpServerConfig(
        "refuses", sys.executable, (str(TEST_SERVER),), {"REFUSE_FILE": str(TEST_SERVER)}
    )

    async def session() -> ServerStatus:
        async with McpClients([server], log_dir=log_dir, reconnect_delay=0.1) as clients:
            return clients.status()[0]

    return asyncio.run(session())


def test_a_new_log_and_its_folders_are_private_from_the_start(
    tmp_path: Path, open_umask: None
) -> None:
    log_dir = tmp_path / "state" / "vaultctx" / "log" / "mcp"
    status = run_server(log_dir, tmp_path)
    assert status.last_error == "exited with status 4: boom: refusing to start"
    log = log_dir / "refuses.log"
    assert "boom: refusing to start" in log.read_text(encoding="utf-8")
    assert mode(log) == 0o600
    for folder in (log_dir, log_dir.parent, log_dir.parent.parent, tmp_path / "state"):
        assert mode(folder) == 0o700, folder


def test_created_with_its_modes_never_chmod_ed_after(
    tmp_path: Path, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No moment when another user could open the new file: no chmod is needed at all."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a new log or folder was made wide and chmod-ed afterwards")

    monkeypatch.setattr(os, "chmod", refuse)
    monkeypatch.setattr(os, "fchmod", refuse)
    with open_private_log(tmp_path / "logs" / "new" / "a.log") as handle:
        handle.write(b"passage of a note\n")
    assert mode(tmp_path / "logs" / "new" / "a.log") == 0o600
    assert mode(tmp_path / "logs") == mode(tmp_path / "logs" / "new") == 0o700


def test_an_existing_open_folder_and_log_are_tightened(tmp_path: Path) -> None:
    log_dir = tmp_path / "mcp"
    log_dir.mkdir()
    os.chmod(log_dir, 0o755)
    log = log_dir / "refuses.log"
    log.write_text("an earlier run\n", encoding="utf-8")
    os.chmod(log, 0o644)
    run_server(log_dir, tmp_path)
    assert (mode(log_dir), mode(log)) == (0o700, 0o600)
    text = log.read_text(encoding="utf-8")
    assert text.startswith("an earlier run\n") and "boom: refusing to start" in text


def test_a_log_over_the_limit_starts_afresh_privately(tmp_path: Path) -> None:
    log_dir = tmp_path / "mcp"
    log_dir.mkdir(mode=0o700)
    log = log_dir / "refuses.log"
    log.write_bytes(b"x" * (LOG_LIMIT_BYTES + 1))
    run_server(log_dir, tmp_path)
    assert log.stat().st_size < 10_000 and mode(log) == 0o600


def test_a_link_in_place_of_the_log_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    log_dir = tmp_path / "mcp"
    log_dir.mkdir(mode=0o700)
    target = tmp_path / "bashrc"
    target.write_text("export PATH\n", encoding="utf-8")
    os.chmod(target, 0o644)
    (log_dir / "refuses.log").symlink_to(target)
    status = run_server(log_dir, tmp_path)
    assert status.state == "failed"
    assert f"cannot keep the log {log_dir / 'refuses.log'} private" in (status.last_error or "")
    assert target.read_text(encoding="utf-8") == "export PATH\n" and mode(target) == 0o644


def test_a_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "shared"
    elsewhere.mkdir()
    os.chmod(elsewhere, 0o777)
    (tmp_path / "mcp").symlink_to(elsewhere)
    status = run_server(tmp_path / "mcp", tmp_path)
    assert status.state == "failed" and "symbolic link" in (status.last_error or "")
    assert list(elsewhere.iterdir()) == [] and mode(elsewhere) == 0o777


def test_a_fifo_in_place_of_the_log_is_refused_without_waiting(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "a.log")
    with pytest.raises(PrivateLogError, match="not a regular file"):
        open_private_log(folder / "a.log")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    with pytest.raises(PrivateLogError, match=r"belongs to another user \(uid 4242\)"):
        open_private_log(folder / "a.log")
    assert list(folder.iterdir()) == []


def test_the_chats_line_history_is_private_too(
    tmp_path: Path, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``vaultctx chat`` keeps every question typed at its prompt: a log of the user's own."""
    from vaultctx.cli.chat_repl import _history_file

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    history = _history_file()
    assert history == tmp_path / "state" / "vaultctx" / "chat_history"
    assert (mode(history), mode(history.parent), mode(tmp_path / "state")) == (0o600, 0o700, 0o700)
