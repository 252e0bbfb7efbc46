"""The agent's MCP client: external servers (mcp.json) whose tools the model may call.

``McpClients`` starts every enabled server of the file, lists its tools and keeps each server
running beside the conversation::

    async with McpClients.from_settings(settings) as clients:
        agent = Agent(model, toolsets=[clients.toolset()])
        clients.status()      # per server: running / failed / disabled, tools, last error

Tools are offered as ``mcp_{server}_{tool}``. Every request to a server (``tools/list``,
``tools/call``) may take ``mcp_timeout`` seconds (default 10, 1-60); only the handshake waits
longer, ``STARTUP_TIMEOUT_S`` at least, because it also waits for the program to start. A tool
that fails, times out or whose server is down answers the model with a line it can read
(``Tool execution error: mcp_x_y: timed out after 10 s``): the conversation goes on. A server that
crashes is started again up to 3 times, 5 s apart, then marked failed with its last error. A call
that comes while it is being started again waits for the outcome, so a crash mid-turn is mended
within the turn; and its tools stay offered throughout, answering that the server is unavailable
once it has failed, rather than vanishing from under a model that has just seen them.

What a server says about itself (the last line of its stderr, its error messages) reaches the
terminal through ``vaultctx mcp list`` and the chat, so ``last_error`` holds it without control
characters: a server may not clear the screen, write the clipboard (OSC 52) or hide a link.

Each server runs in a task of its own, so ``start`` and ``stop`` may be awaited in different
``asyncio.Runner.run`` calls of one event loop (the chat's), with turns between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio
import mcp_types
import platformdirs
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from vaultctx import __version__
from vaultctx.agent.mcp_config import McpServerConfig, load_mcp_config
from vaultctx.agent.mcp_stdio import ServerPipes, child_environment, spawn_server
from vaultctx.agent.mcp_tools import ExposedTool, exposed_names, failure, result_text
from vaultctx.config import APP_NAME
from vaultctx.errors import VaultctxError
from vaultctx.private_log import open_private_log
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from pydantic_ai.toolsets import AbstractToolset

    from vaultctx.agent.settings import AgentSettings

RECONNECT_ATTEMPTS = 3
RECONNECT_DELAY_S = 5.0
# How often a call waiting for a server being started again looks at its state.
RECONNECT_POLL_S = 0.05
# The handshake waits at least this long: it also waits for the program to start (an
# interpreter importing its SDK, npx or uvx fetching a package on first use).
STARTUP_TIMEOUT_S = 30.0
LOG_LIMIT_BYTES = 1_000_000
CLIENT_INFO = mcp_types.Implementation(name="vaultctx", version=__version__)


@dataclass(frozen=True)
class ServerStatus:
    """One server as ``vaultctx mcp list`` shows it; ``state`` is running, starting,
    reconnecting, failed, disabled or stopped."""

    name: str
    state: str
    tools: int
    last_error: str | None
    log: Path

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state,
            "tools": self.tools,
            "last_error": self.last_error,
            "log": str(self.log),
        }


class McpServer:
    """One external server: its process, its session while it runs, and what it last said."""

    def __init__(
        self, config: McpServerConfig, *, timeout: float, log_dir: Path, reconnect_delay: float
    ) -> None:
        self.config = config
        self.timeout = timeout
        self.log = log_dir / f"{config.name}.log"
        self.reconnect_delay = reconnect_delay
        self.state = "disabled" if config.disabled else "stopped"
        self.tools: list[mcp_types.Tool] = []
        self._last_error: str | None = None
        self.session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._settled = anyio.Event()
        self._stopping = anyio.Event()
        self._log_start = 0
        self._came_up = False
        self._pipes: ServerPipes | None = None
        self._step = "initialize"

    @property
    def last_error(self) -> str | None:
        return self._last_error

    @last_error.setter
    def last_error(self, error: str | None) -> None:
        self._last_error = None if error is None else printable(error)

    def status(self) -> ServerStatus:
        tools = len(self.tools) if self.state == "running" else 0
        return ServerStatus(self.config.name, self.state, tools, self.last_error, self.log)

    async def start(self) -> None:
        """Start it and wait until it runs or has failed."""
        if self.config.disabled or self._task is not None:
            return
        self.state = "starting"
        self._task = asyncio.create_task(self._supervise(), name=f"mcp server {self.config.name}")
        await self._settled.wait()

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def call(self, exposed: str, tool: str, arguments: dict[str, Any]) -> str:
        """The tool's answer as text, or a failure line; never an exception. While the server
        is being started again, the call waits for it (running again, or failed)."""
        await self._reconnected()
        session = self.session
        if session is None or self.state != "running":
            why = f": {self.last_error}" if self.last_error else ""
            return failure(
                exposed, f"server {self.config.name!r} is unavailable ({self.state}{why})"
            )
        try:
            with anyio.fail_after(self.timeout):
                result = await session.call_tool(tool, arguments)
        except TimeoutError:
            return failure(exposed, f"timed out after {self.timeout:g} s")
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                return failure(
                    exposed,
                    f"server {self.config.name!r} closed the connection; it is being started "
                    "again, so the next call may work",
                )
            return failure(exposed, f"MCP error: {exc.message}")
        except Exception as exc:  # a result the SDK cannot read: the model hears of it, no more
            return failure(exposed, _describe(exc))
        if result.is_error:
            return failure(exposed, result_text(result) or "execution failed")
        return result_text(result)

    async def _reconnected(self) -> None:
        """Wait while the server is being started again: every attempt may take the delay and
        a handshake, so the wait is bounded by what all of them may take."""
        attempt = self.reconnect_delay + max(self.timeout, STARTUP_TIMEOUT_S)
        deadline = time.monotonic() + RECONNECT_ATTEMPTS * attempt
        while self._restarting() and time.monotonic() < deadline:
            await anyio.sleep(RECONNECT_POLL_S)

    def _restarting(self) -> bool:
        """Being started again, or about to be: its output has ended (a call may learn of a
        crash before the supervising task does)."""
        if self.state == "reconnecting":
            return True
        pipes = self._pipes
        ended = pipes is not None and pipes.closed.is_set()
        return self.state == "running" and ended and not self._stopping.is_set()

    async def _supervise(self) -> None:
        try:
            came_up, error = await self._run_once()
            if not came_up:
                self._fail(error)
                return
            failures = 0
            while error is not None:  # it crashed: start it again, 3 times at most, 5 s apart
                failures += 1
                if failures > RECONNECT_ATTEMPTS:
                    self._fail(error)
                    return
                self.state, self.last_error = "reconnecting", error
                with anyio.move_on_after(self.reconnect_delay):
                    await self._stopping.wait()
                if self._stopping.is_set():
                    break
                came_up, error = await self._run_once()
                if came_up:
                    failures = 0
            self.state = "stopped"
        except Exception as exc:  # a bug here must not end the conversation either
            self._fail(_describe(exc))
        finally:
            self.session = None
            self._settled.set()

    def _fail(self, error: str | None) -> None:
        self.state, self.last_error = "failed", error
        self.session = None

    async def _run_once(self) -> tuple[bool, str | None]:
        """One life of the server: start it, list its tools, serve until it ends or ``stop``.
        Returns whether it came up, and why it ended (None: ``stop`` ended it)."""
        self._came_up, self._pipes, self._step = False, None, "initialize"
        error: str | None = None
        try:
            with self._open_log() as stderr:
                await self._serve(stderr)
        except TimeoutError:
            startup = self._step == "initialize"
            limit = max(self.timeout, STARTUP_TIMEOUT_S) if startup else self.timeout
            error = f"no answer to {self._step} within {limit:g} s"
        except OSError as exc:
            error = f"cannot start {self.config.command!r}: {exc.strerror or exc}"
        except Exception as exc:
            error = _describe(exc)
        self.session = None
        if self._stopping.is_set():
            return self._came_up, None
        if self._pipes is not None and self._pipes.closed.is_set():
            error = self._exit_text(self._pipes.process.returncode)
        return self._came_up, error or "the connection ended"

    async def _serve(self, stderr: IO[bytes]) -> None:
        env = child_environment(self.config.env)
        program = _program(self.config.command, env)
        async with (
            spawn_server(program, self.config.args, env, stderr) as self._pipes,
            ClientSession(self._pipes.read, self._pipes.write, client_info=CLIENT_INFO) as session,
        ):
            with anyio.fail_after(max(self.timeout, STARTUP_TIMEOUT_S)):
                await session.initialize()
            self._step = "tools/list"
            self.tools = await self._list_tools(session)
            self.session, self.state, self.last_error = session, "running", None
            self._came_up = True
            self._settled.set()
            await _until_either(self._pipes.closed, self._stopping)
            self.session = None
            if not self._stopping.is_set():  # it crashed: calls from now on wait for the restart
                self.state = "reconnecting"

    async def _list_tools(self, session: ClientSession) -> list[mcp_types.Tool]:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        while True:
            params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with anyio.fail_after(self.timeout):
                page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    @contextlib.contextmanager
    def _open_log(self) -> Iterator[IO[bytes]]:
        """The server's stderr file: appended to, started afresh beyond ``LOG_LIMIT_BYTES``;
        ``0600`` in a ``0700`` folder, as it echoes tool calls holding note text."""
        with open_private_log(self.log, limit=LOG_LIMIT_BYTES) as handle:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            handle.write(f"--- {stamp} vaultctx starts {self.config.command}\n".encode())
            handle.flush()
            self._log_start = handle.tell()
            yield handle

    def _exit_text(self, status: int | None) -> str:
        """How the server ended: its exit status and the last line it wrote to stderr."""
        said = ""
        with contextlib.suppress(OSError):
            with self.log.open("rb") as handle:
                handle.seek(self._log_start)
                lines = handle.read().decode("utf-8", "replace").splitlines()
            said = next((line.strip() for line in reversed(lines) if line.strip()), "")
        ended = "closed its output" if status is None else f"exited with status {status}"
        return f"{ended}: {said[:300]}" if said else ended


class McpClients:
    """Every server of an mcp.json: started together, offered to the model as one toolset."""

    def __init__(
        self,
        servers: Sequence[McpServerConfig],
        *,
        timeout: float = 10.0,
        log_dir: Path | None = None,
        reconnect_delay: float = RECONNECT_DELAY_S,
    ) -> None:
        folder = log_dir or Path(platformdirs.user_log_dir(APP_NAME)) / "mcp"
        self.servers = [
            McpServer(config, timeout=timeout, log_dir=folder, reconnect_delay=reconnect_delay)
            for config in servers
        ]

    @classmethod
    def from_settings(cls, settings: AgentSettings, **options: Any) -> McpClients:
        """The servers of the file ``settings.mcp_config`` names (default: the user's mcp.json),
        with its ``mcp_timeout``; a bad file raises ``ConfigError``."""
        servers = load_mcp_config(settings.mcp_config)
        return cls(servers, timeout=settings.mcp_timeout, **options)

    async def __aenter__(self) -> McpClients:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start every enabled server at once; returns when each runs or has failed."""
        await asyncio.gather(*(server.start() for server in self.servers))

    async def stop(self) -> None:
        """Stop every server: close its stdin, terminate, kill 3 s later if still there."""
        await asyncio.gather(*(server.stop() for server in self.servers))

    def status(self) -> list[ServerStatus]:
        return [server.status() for server in self.servers]

    def tools(self) -> list[ExposedTool]:
        """The tools of every server that has listed them, under the names the model sees; a
        server that crashed keeps its tools, which answer that it is unavailable."""
        return [exposed for exposed, _server in self._exposed()]

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call the tool the model knows as ``name``: its answer, or a failure line."""
        for exposed, server in self._exposed():
            if exposed.name == name:
                return await server.call(name, exposed.tool.name, arguments)
        return failure(name, "no such tool")

    def toolset(self) -> AbstractToolset[Any]:
        """These servers' tools as one pydantic-ai toolset (``Agent(model, toolsets=[...])``)."""
        from vaultctx.agent.mcp_toolset import McpToolset

        return McpToolset(self)

    def _exposed(self) -> list[tuple[ExposedTool, McpServer]]:
        # Names come from every server's last listing, so one being restarted does not rename
        # another's tools.
        pairs = [(server, tool) for server in self.servers for tool in server.tools]
        names = exposed_names([(server.config.name, tool.name) for server, tool in pairs])
        return [
            (ExposedTool(name, server.config.name, tool), server)
            for name, (server, tool) in zip(names, pairs, strict=True)
        ]


async def _until_either(first: anyio.Event, second: anyio.Event) -> None:
    async with anyio.create_task_group() as tasks:

        async def wait(event: anyio.Event) -> None:
            await event.wait()
            tasks.cancel_scope.cancel()

        tasks.start_soon(wait, first)
        tasks.start_soon(wait, second)


def _program(command: str, env: dict[str, str]) -> str:
    """On Windows, ``npx`` is ``npx.cmd``, which only a lookup along PATH finds without a shell."""
    if sys.platform == "win32":
        return shutil.which(command, path=env.get("PATH")) or command
    return command


def _describe(exc: BaseException) -> str:
    """One line for an exception, the first leaf of an exception group (task groups raise them;
    spelt without ``BaseExceptionGroup``, which Python 3.10 lacks)."""
    while isinstance(inner := getattr(exc, "exceptions", None), tuple) and inner:
        exc = inner[0]
    if isinstance(exc, MCPError):
        return f"MCP error: {exc.message}"
    if isinstance(exc, VaultctxError):
        return exc.one_line()
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
