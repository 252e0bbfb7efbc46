"""Write src/vaultctx/mcp/relay_description.json: what ``vaultctx serve`` answers to
``initialize`` and ``tools/list``, read off the real in-process server, for the relay
(``vaultctx.mcp.relay``) to answer without importing the MCP SDK.

    .venv/bin/python scripts/write_mcp_description.py [--check]

Run it after changing a tool (agent/tool_list.py), the server's instructions or the MCP SDK;
tests/mcp/test_relay_description.py fails until the file matches the server again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "src" / "vaultctx" / "mcp" / "relay_description.json"


def server_answers(allow_writes: bool) -> dict[str, Any]:
    """The ``initialize`` and ``tools/list`` results of ``vaultctx --no-engine serve``."""
    raw = server_lines(requests(), allow_writes)
    return {"initialize": json.loads(raw[1])["result"], "tools": json.loads(raw[2])["result"]}


def requests() -> list[dict[str, Any]]:
    """What a client sends first: ``initialize`` (id 1) and ``tools/list`` (id 2)."""
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "describe", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]


def server_lines(lines: list[dict[str, Any]], allow_writes: bool) -> dict[int, bytes]:
    """The server's raw answer line to each request of ``lines``, by id."""
    wanted = {line["id"] for line in lines if "id" in line}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="vaultctx-describe-") as folder:
        vault = Path(folder) / "vault"
        vault.mkdir()
        command = [sys.executable, "-m", "vaultctx", "--no-engine", "serve", "--vault", str(vault)]
        command += ["--db", f"{folder}/index.db", *(["--allow-writes"] if allow_writes else [])]
        server = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=folder,
        )
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        server.stdin.flush()
        answers: dict[int, bytes] = {}
        while len(answers) < len(wanted):
            raw = server.stdout.readline()
            if not raw:
                raise SystemExit(f"the server exited ({server.wait()})")
            message = json.loads(raw)
            if message.get("id") in wanted:
                answers[message["id"]] = raw
        server.stdin.close()
        server.wait(timeout=60)
    return answers


def describe() -> dict[str, Any]:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    return {
        "written_by": "scripts/write_mcp_description.py",
        "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "latest_handshake": LATEST_HANDSHAKE_VERSION,
        "modes": {
            "read_only": server_answers(allow_writes=False),
            "allow_writes": server_answers(allow_writes=True),
        },
    }


def rendered(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = rendered(describe())
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run scripts/write_mcp_description.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
