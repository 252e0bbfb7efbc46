"""An engine killed after a client connected but before the client sent its request: the
connection is reset at the send (a broken pipe). Every client of the engine (a forwarded
command, ``ask``/``chat``, the MCP relay) must take that for a broken engine: run the command
here and start a new engine, as when the engine says no hello. A broken pipe that escaped as a
plain ``OSError`` ran the command here but left no engine for the next one (the flake of
``test_the_engine_killed_mid_request``: one run in three on a loaded machine), and gave
``ask`` a traceback.

The kill is placed in that window by wrapping the client's peer check, which runs between
``connect`` and the send; the engine, the socket and the reset are real."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

from tests.engine.conftest import (
    Indexed,
    engine_answers,
    engine_pid,
    freeze,
    process_gone,
    start_engine,
    wait_for,
)
from vaultctx.cli import forward, forward_turn
from vaultctx.engine_link import client
from vaultctx.mcp import relay

SENT_TOO_LATE = "closed the connection before the request was sent (BrokenPipeError)"


def kill_after_the_connect(monkeypatch: pytest.MonkeyPatch, pid: int) -> None:
    """The next connection made to the engine finds it dead when the request is sent."""
    real = client.peer_uid
    armed = [True]

    def peer_uid(connection: object) -> int:
        uid = real(connection)  # type: ignore[arg-type]
        if armed.pop() if armed else False:
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: process_gone(pid), "the engine is gone")
            # The kernel resets the connection a moment after the process is gone; wait for
            # that (and take the reset), so the send meets a closed peer every time.
            wait_for(lambda: _reset(connection), "the connection is reset")
        return uid

    monkeypatch.setattr(client, "peer_uid", peer_uid)


def _reset(connection: object) -> bool:
    """Whether the engine's end of ``connection`` is closed (a reset or an end of stream)."""
    assert isinstance(connection, socket.socket)
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def stopped_engine(monkeypatch: pytest.MonkeyPatch) -> int:
    """A running engine, stopped (SIGSTOP) so the client's connection waits in its backlog
    as it would behind a busy engine, and armed to die after the next connect."""
    pid = start_engine()
    freeze(pid)
    kill_after_the_connect(monkeypatch, pid)
    return pid


@pytest.mark.parametrize(
    ("reach", "words"),
    [
        (forward.forward, ("search", "vault notes", "--limit", "3")),
        (forward_turn.forward_turn, ("ask", "what is in the vault?")),
    ],
    ids=["search", "ask"],
)
def test_the_command_runs_here_and_a_new_engine_is_started(
    indexed: Indexed,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reach: object,
    words: tuple[str, ...],
) -> None:
    doomed = stopped_engine(monkeypatch)
    starts = counted_starts(monkeypatch)
    assert reach(indexed.args(*words)) is None  # type: ignore[operator]  # None: run it here
    said = capsys.readouterr().err
    assert said.count(SENT_TOO_LATE) == 1, said
    # The new engine is started once the command has answered (cli.entry.run), not before
    # the command runs here: a replacement may wait seconds for the old engine's lock.
    assert starts == []
    forward.start_engine_if_wanted()
    assert starts
    wait_for(lambda: engine_answers() and engine_pid() != doomed, "a new engine answers")


def counted_starts(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Each engine start made from here on (the real one, recorded)."""
    real = client.start
    starts: list[int | None] = []

    def start(warm: object = None) -> int | None:
        starts.append(real(warm))  # type: ignore[arg-type]
        return starts[-1]

    monkeypatch.setattr(client, "start", start)
    return starts


def test_the_mcp_relay_takes_it_for_a_broken_engine(
    indexed: Indexed, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Relay.connect`` serves a broken engine's session in-process and replaces the engine."""
    stopped_engine(monkeypatch)
    with pytest.raises(client.EngineBrokenError, match="before the request was sent"):
        relay.open_engine_session(indexed.vault, indexed.db, allow_writes=False)
