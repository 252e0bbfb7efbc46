"""A small MCP server over stdio for the client's tests, written with the SDK's own server.

Tools: ``echo`` (its text back), ``environment`` (the variables it was started with, as JSON),
``hang`` (never answers), ``crash`` (the process exits at once, status 3), ``fail`` (a tool error).
With ``STARTS_FILE`` set it appends the time and pid of each start to that file; with
``REFUSE_FILE`` set and that file present it writes a line to stderr (``REFUSE_LINE``, default
"boom: refusing to start") and exits with status 4 before serving; with ``IGNORE_TERM`` set it
ignores SIGTERM and stays when its stdin closes; with ``CRASH_AFTER=N`` the N-th ``echo`` of a
process exits it (status 3) instead of answering.
"""

from __future__ import annotations

import os
import sys
import time

if os.environ.get("STARTS_FILE"):
    with open(os.environ["STARTS_FILE"], "a", encoding="utf-8") as starts:
        starts.write(f"{time.time()} {os.getpid()}\n")
if os.environ.get("IGNORE_TERM"):
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.environ.get("REFUSE_FILE") and os.path.exists(os.environ["REFUSE_FILE"]):
    print(os.environ.get("REFUSE_LINE", "boom: refusing to start"), file=sys.stderr)
    sys.exit(4)

import json

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("test-server")
echoes = 0


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    global echoes
    echoes += 1
    if echoes == int(os.environ.get("CRASH_AFTER") or 0):
        print(f"crashing after {echoes} calls", file=sys.stderr, flush=True)
        os._exit(3)
    return text


@server.tool()
def environment() -> str:
    """The server's environment variables, as JSON."""
    return json.dumps(dict(os.environ))


@server.tool()
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "woke up"


@server.tool()
def crash() -> str:
    """The server process exits at once."""
    print("crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
def fail() -> str:
    """A tool error."""
    raise ToolError("the disk is full")


if __name__ == "__main__":
    print("test server starting", file=sys.stderr, flush=True)
    server.run("stdio")
    if os.environ.get("IGNORE_TERM"):  # a server that outlives its stdin and SIGTERM
        time.sleep(3600)
