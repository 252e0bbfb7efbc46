"""An MCP server as a child process: started without a shell, spoken to over its pipes.

This replaces the SDK's ``stdio_client`` because of what that one does around the protocol: it
merges a default environment (``LOGNAME``, ``SHELL``, ``TERM``, ``USER`` on POSIX) into the one it
is given, and hands the child our stderr. Here the child gets exactly ``child_environment``: 15
variables a program needs to run (paths, home, temp, locale) and the server's own ``env``, so an
``OPENAI_API_KEY``, ``AWS_*`` or ``VAULTCTX_*`` of ours reaches it only when its entry lists it;
its stderr goes to a log file, which it can fill without ever blocking or reaching the terminal;
and stopping it is: close its stdin, terminate it (its whole process group on POSIX), kill it 3 s
later if it is still there.

Messages are JSON-RPC, one per line, both ways; a line that is not a JSON-RPC message (a server
printing a banner) is logged and skipped.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO

import anyio
import mcp_types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

INHERITED_ENV = (
    "PATH",
    "HOME",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "COMSPEC",
    "PATHEXT",
    "TMPDIR",
    "TMP",
    "TEMP",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
)
KILL_AFTER_S = 3.0
_EXIT_POLL_S = 0.02


def child_environment(
    own: Mapping[str, str], parent: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The 15 inherited variables ``parent`` (default: ours) has, then the server's own."""
    parent = os.environ if parent is None else parent
    env = {name: parent[name] for name in INHERITED_ENV if name in parent}
    env.update(own)
    return env


@dataclass
class ServerPipes:
    """A running server: the process, the SDK's two message streams, and ``closed``, set once the
    server's stdout has ended (it exited, crashed or closed it)."""

    process: Process
    read: MemoryObjectReceiveStream[SessionMessage | Exception]
    write: MemoryObjectSendStream[SessionMessage]
    closed: anyio.Event


@asynccontextmanager
async def spawn_server(
    command: str, args: Sequence[str], env: Mapping[str, str], stderr: IO[bytes]
) -> AsyncIterator[ServerPipes]:
    """Start ``command`` with exactly ``env``; stop it when the block ends, however it ends.

    Raises ``OSError`` when the program cannot be started (not found, not executable)."""
    process = await anyio.open_process(
        [command, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(env),
        # Its own process group, so that stopping it stops what it started (npx, uvx, docker).
        start_new_session=sys.platform != "win32",
    )
    to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    closed = anyio.Event()

    async def read_stdout() -> None:
        assert process.stdout is not None
        pending = b""
        try:
            async with to_session:
                async for chunk in process.stdout:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        message = _message(line)
                        if message is not None:
                            await to_session.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # our own shutdown, or the session is gone
        finally:
            closed.set()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    line = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(line.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading: end the session rather than leave a request waiting.
            await to_session.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield ServerPipes(process, read, write, closed)
        finally:
            with anyio.CancelScope(shield=True):
                await stop_process(process)
                for stream in (read, write):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


def _message(line: bytes) -> SessionMessage | None:
    if not line.strip():
        return None
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        log.warning("MCP server wrote a line that is not JSON-RPC: %.200r", line)
        return None


async def stop_process(process: Process) -> None:
    """Close its stdin, terminate it, and kill it after ``KILL_AFTER_S`` if it is still there."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if process.returncode is None:
        _signal(process, signal.SIGTERM)
        if not await _exited(process, KILL_AFTER_S):
            _signal(process, signal.SIGKILL if sys.platform != "win32" else signal.SIGTERM)
            if not await _exited(process, KILL_AFTER_S):
                log.warning("MCP server process %d survived SIGKILL; leaving it", process.pid)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()


def _signal(process: Process, number: int) -> None:
    """Send ``number`` to the server's process group (POSIX), or terminate it (Windows)."""
    with suppress(ProcessLookupError, PermissionError):
        if sys.platform == "win32":
            process.terminate()
        else:
            os.killpg(process.pid, number)


async def _exited(process: Process, within: float) -> bool:
    """Whether it exits within ``within`` seconds (polled: ``wait()`` also waits for the pipes
    to close, which a grandchild holding them would delay forever)."""
    with anyio.move_on_after(within):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL_S)
    return process.returncode is not None
