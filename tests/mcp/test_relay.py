"""The relay's promises that need no engine: it imports nothing heavy, and what it answers by
itself is what the real server answers."""

from __future__ import annotations

import json
import subprocess
import sys

from scripts.write_mcp_description import TARGET, describe, rendered, requests, server_lines

from tests.mcp.conftest import subprocess_env
from vaultctx.mcp import relay

HEAVY = ("typer", "click", "rich", "mcp", "mcp_types", "pydantic", "anyio", "numpy", "starlette")


def test_the_relay_imports_nothing_heavy() -> None:
    probe = (
        "import sys, json\n"
        "import vaultctx.cli.entry, vaultctx.cli.serve_relay, vaultctx.mcp.relay\n"
        "print(json.dumps(sorted(m for m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=subprocess_env()
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "vaultctx.mcp.relay" in loaded
    heavy = [name for name in loaded if name.split(".")[0] in HEAVY]
    assert heavy == [], "the relay's path must stay standard library only"


def test_the_shipped_description_is_the_servers() -> None:
    """tools/list and initialize of `vaultctx --no-engine serve`, read-only and --allow-writes;
    run scripts/write_mcp_description.py when this fails."""
    assert TARGET.read_text(encoding="utf-8") == rendered(describe())


def test_the_relays_own_answers_are_the_servers_bytes() -> None:
    for allow_writes in (False, True):
        asked = requests()
        answers: list[bytes] = []
        fresh = relay.Relay(TARGET, TARGET, allow_writes, _Collect(answers))  # type: ignore[arg-type]
        for line in asked:
            fresh.from_client(json.dumps(line).encode() + b"\n")
        served = server_lines(asked, allow_writes)
        assert answers == [served[1], served[2]], f"allow_writes={allow_writes}"


def test_the_relay_negotiates_the_protocol_version_as_the_sdk_does() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    for number, version in enumerate([*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01", "2026-07-28"]):
        answers: list[bytes] = []
        fresh = relay.Relay(TARGET, TARGET, False, _Collect(answers))  # type: ignore[arg-type]
        fresh.from_client(_initialize(number, version))
        result = json.loads(answers[-1])["result"]
        wanted = version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        assert result["protocolVersion"] == wanted


class _Collect:
    def __init__(self, into: list[bytes]) -> None:
        self.into = into

    def write(self, data: bytes) -> None:
        self.into.append(data)

    def flush(self) -> None:
        pass


def _initialize(number: int, version: str) -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return (
        json.dumps(
            {"jsonrpc": "2.0", "id": number, "method": "initialize", "params": params}
        ).encode()
        + b"\n"
    )
