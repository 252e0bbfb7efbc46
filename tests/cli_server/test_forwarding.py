"""``search``, ``context``, ``links`` and ``status`` answered by a running ``serve --http``: the
same output and exit code as the command run in-process, and the in-process run whenever the
server cannot be trusted or reached."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_server.conftest import Served, cli_env, comparable, vaultctx
from vaultctx.loopback import server_link

COMMANDS = [
    ["search", "roll back the billing deploy", "--json"],
    ["search", "roll back the billing deploy"],
    ["search", "postmortem", "--notes", "--mode", "bm25", "--limit", "3"],
    ["search", "invoice", "--graph", "--tag", "security"],
    ["context", "billing service timeouts"],
    ["context", "billing service timeouts", "--format", "json"],
    ["links", "Billing service"],
    ["links", "Billing service", "--json"],
    ["links", "--broken"],
    ["status"],
    ["status", "--json"],
    # Errors: the same message and exit code.
    ["links", "No such note anywhere"],
    ["search", "x", "--mode", "nonsense"],
    ["search", "x", "--depth", "2"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_forwarded_output_is_the_in_process_output(served: Served, command: list[str]) -> None:
    forwarded = vaultctx(served.args(*command))
    local = vaultctx(served.args(*command), in_process=True)
    assert forwarded.forwarded and not local.forwarded
    assert forwarded.code == local.code, forwarded.stderr + local.stderr
    assert comparable(forwarded.stdout) == comparable(local.stdout)
    assert forwarded.stderr == local.stderr


def test_usage_errors_and_help_run_in_process(served: Served) -> None:
    for command in (["search", "--limit", "0", "x"], ["search", "--help"], ["status", "--bogus"]):
        run = vaultctx(served.args(*command))
        local = vaultctx(served.args(*command), in_process=True)
        assert not run.forwarded
        assert (run.code, run.stdout, run.stderr) == (local.code, local.stdout, local.stderr)


def test_a_terminal_gets_the_colours_and_width_it_would_get_in_process(served: Served) -> None:
    """Under a pseudo-terminal 100 columns wide: rich's panels and colours as in-process."""
    import fcntl
    import pty
    import struct
    import termios

    def at_terminal(in_process: bool) -> bytes:
        main, secondary = pty.openpty()
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        env = cli_env(TERM="xterm-256color", VAULTCTX_VERBOSE="0")
        if in_process:
            env["VAULTCTX_NO_SERVER"] = "1"
        process = subprocess.Popen(
            [sys.executable, "-m", "vaultctx", *served.args("search", "billing", "--limit", "2")],
            stdin=secondary,
            stdout=secondary,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
        os.close(main)
        return b"".join(chunks)

    forwarded, local = at_terminal(False), at_terminal(True)
    assert b"\x1b[" in local and b"\xe2\x95\xad" in local  # colours and a panel's corner
    strip = [comparable(out.decode()) for out in (forwarded, local)]
    assert strip[0] == strip[1]


def test_a_record_of_a_dead_process_is_ignored_at_once(served: Served, tmp_path: Path) -> None:
    db = _copy_index(served, tmp_path)
    done = subprocess.Popen([sys.executable, "-c", ""])
    done.wait()
    state = {"url": served.server.url.removesuffix("/mcp"), "pid": done.pid, "token": "x"}
    _plant(db, state)
    _assert_in_process(served, db)


def test_a_closed_port_falls_back_at_once(served: Served, tmp_path: Path) -> None:
    db = _copy_index(served, tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _plant(db, {"url": f"http://127.0.0.1:{port}", "pid": os.getpid(), "token": "x"})
    _assert_in_process(served, db)


def test_a_wrong_token_falls_back(served: Served) -> None:
    """The server's own record with its token replaced: refused (401), run in-process."""
    path = server_link.state_path(served.db)
    original = path.read_bytes()
    try:
        state = json.loads(original)
        state["token"] = "not-the-token"
        path.write_text(json.dumps(state))
        run = vaultctx(served.args("status", "--json"))
        assert not run.forwarded and run.code == 0
        assert json.loads(run.stdout)["db"] == str(served.db)
    finally:
        path.write_bytes(original)


def test_a_server_for_another_index_declines(served: Served, tmp_path: Path) -> None:
    """A record beside another index naming this server (with its token): it serves another
    index, so it declines, and the command runs on the index it names."""
    db = _copy_index(served, tmp_path)
    record = json.loads(server_link.state_path(served.db).read_text())
    _plant(db, record)
    _assert_in_process(served, db)


def _copy_index(served: Served, tmp_path: Path) -> Path:
    db = tmp_path / "other.db"
    db.write_bytes(served.db.read_bytes())
    return db


def _plant(db: Path, state: dict[str, object]) -> None:
    path = server_link.state_path(db)
    path.write_text(json.dumps(state))
    path.chmod(0o600)


def _assert_in_process(served: Served, db: Path) -> None:
    args = ["status", "--json", "--vault", str(served.vault), "--db", str(db)]
    started = time.monotonic()
    run = vaultctx(args)
    local = vaultctx(args, in_process=True)
    assert not run.forwarded and run.code == local.code == 0
    assert json.loads(run.stdout)["db"] == str(db)
    assert comparable(run.stdout) == comparable(local.stdout)
    assert time.monotonic() - started < 120  # no retries, no hang (a loaded machine is slow)
