"""The MCP relay (``vaultctx serve``) talks to this user's engine only: a runtime folder that is
not private, or a socket served by another user, is never used; the relay serves in-process and
says why once."""

from __future__ import annotations

from pathlib import Path

from tests.engine.conftest import Indexed, folder, indexed
from tests.engine.test_mcp_relay import (
    IN_PROCESS_NOTE,
    SEARCH,
    SQLITE_NOTE,
    Raw,
    search_paths,
    serve_command,
)
from vaultctx.engine_link import runtime_dir as runtime

__all__ = ["folder", "indexed"]  # the engine tests' fixtures, used here too


def test_a_runtime_folder_open_to_others_is_not_used_by_the_relay(
    indexed: Indexed, folder: Path
) -> None:
    folder.mkdir(mode=0o700)
    folder.chmod(0o755)
    raw = Raw(serve_command(indexed))
    raw.handshake()
    assert SQLITE_NOTE in search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    stderr = raw.close()
    assert stderr.count(IN_PROCESS_NOTE) == 1, stderr
    assert "is open to other users (mode 0o755" in stderr
    assert not (folder / runtime.SOCKET_NAME).exists()
    assert not (folder / runtime.PID_NAME).exists()
