"""Every note a listing shows can be read back by the path shown; an absurd path gets a clear
refusal, never a crash; advice to rebuild names the very index it is about."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_types import TextContent

from mcp import Client
from tests.mcp.conftest import tool_error
from tests.postgres.conftest import location_for
from tests.security.stored_index import STORES
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server
from vaultctx.vault.paths import UnsafePathError

ODD_NAMES = ("C# notes.md", "back\\slash.md", "new\nline.md", "tab\tname.md", "50%25 done.md")


@pytest.fixture(params=STORES)
def vault(tmp_path: Path, request: pytest.FixtureRequest) -> Vault:
    root = tmp_path / "vault"
    root.mkdir()
    for number, name in enumerate(ODD_NAMES):
        (root / name).write_text(f"# Heading {number}\n\nbody of note {number}\n")
    handle = Vault(root, db=location_for(request.param, root, tmp_path, request))
    handle.index(fast=True)
    return handle


def test_every_listed_name_can_be_read_back(vault: Vault) -> None:
    listed = {note.path for note in vault.list_notes(limit=50).notes}
    assert listed == set(ODD_NAMES)
    for number, name in enumerate(ODD_NAMES):
        assert f"body of note {number}" in vault.read_note(name).text
    assert vault.read_note("C# notes.md#Heading 0").section == "Heading 0"


@pytest.mark.parametrize(
    "path", ["a" * 1000, "/".join(["b" * 300] * 3), "x" * 256 + ".md", "é" * 200 + ".md"]
)
def test_overlong_paths_are_refused_plainly(vault: Vault, path: str) -> None:
    with pytest.raises(UnsafePathError, match="longer than"):
        vault.read_note(path)


def test_escapes_still_refused_with_an_indexed_lookup(vault: Vault) -> None:
    for path in ("../vault/C# notes.md", "/etc/passwd", "..\\..\\etc\\passwd", "a\x00.md"):
        with pytest.raises(UnsafePathError):
            vault.read_note(path)


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_over_mcp_odd_names_read_and_long_paths_get_advice(vault: Vault) -> None:
    async with Client(build_server(vault), mode="legacy") as client:
        for name in ODD_NAMES:
            result = await client.call_tool("obsidian_read_note", {"file_path": name})
            assert not result.is_error, name
        error = tool_error(await client.call_tool("obsidian_read_note", {"file_path": "a" * 1000}))
        assert "longer than" in error["error"] and "path" in error["suggestion"]
        shown = "".join(
            b.text
            for b in (await client.call_tool("obsidian_list_notes", {})).content
            if isinstance(b, TextContent)
        )
        assert "C# notes.md" in shown


def test_doctor_advice_names_the_custom_db(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n")
    db = tmp_path / "custom place" / "index.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vaultctx",
            "doctor",
            "--json",
            "--vault",
            str(root),
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    checks = json.loads(done.stdout)["checks"]
    advice = [c["advice"] for c in checks if c["advice"]]
    assert advice and all("--db" in a and "custom place" in a for a in advice if "index" in a)
