"""Several vaults in one PostgreSQL database behind one ``serve --http --vaults``: each vault is
its own schema there, and each token sees only its own vault's notes (the SQLite version is
tests/mcp/test_multi_vault.py)."""

from __future__ import annotations

from pathlib import Path

import anyio
import psycopg

from tests.mcp.conftest import start_http_server, stop, subprocess_env, wait_until_listening
from tests.mcp.test_multi_vault import session
from vaultctx.api import Vault

ALPHA_TOKEN = "Aq7tMZ2cR1xkPb9sLhW4dN8yFe3Gj0uAo6TiKw5nYrE"
BETA_TOKEN = "Bf3b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c"
WORDS = {"alpha": "quokkaplan", "beta": "wombatdraft"}


def _vault(root: Path, name: str, url: str) -> Path:
    vault = root / name
    vault.mkdir()
    (vault / f"{name}-plan.md").write_text(f"# Plan\nThe {WORDS[name]} ships in May.\n")
    (vault / f"{name}-notes.md").write_text(f"# Notes\nWeekly {name} sync on Tuesdays.\n")
    with Vault(vault, db=url) as handle:
        handle.index(fast=True)
    return vault


def test_two_vaults_in_one_database_each_see_only_their_own(
    tmp_path: Path, postgres_url: str
) -> None:
    alpha, beta = _vault(tmp_path, "alpha", postgres_url), _vault(tmp_path, "beta", postgres_url)
    with psycopg.connect(postgres_url) as conn:
        schemas = conn.execute("SELECT count(*) FROM public.vaultctx_vaults").fetchone()
    assert schemas is not None and schemas[0] == 2
    url = postgres_url  # its empty password ("postgres:@") is no password, as for --db
    vaults_file = tmp_path / "vaults.toml"
    vaults_file.write_text(
        f"""
[[vault]]
name = "alpha"
vault = "{alpha}"
db = "{url}"
token_env = "ALPHA_TOKEN"

[[vault]]
name = "beta"
vault = "{beta}"
db = "{url}"
token_env = "BETA_TOKEN"
"""
    )
    env = {**subprocess_env(), "ALPHA_TOKEN": ALPHA_TOKEN, "BETA_TOKEN": BETA_TOKEN}
    server = start_http_server(["serve", "--vaults", str(vaults_file)], env)
    try:
        wait_until_listening(server)
        for name, token, other in (("alpha", ALPHA_TOKEN, "beta"), ("beta", BETA_TOKEN, "alpha")):
            url = f"http://127.0.0.1:{server.port}/mcp/{name}"
            _, found, notes = anyio.run(session, url, token, WORDS[name])
            assert found[0] == f"{name}-plan.md"
            assert sorted(notes) == [f"{name}-notes.md", f"{name}-plan.md"]
            _, found, _ = anyio.run(session, url, token, WORDS[other])
            assert not any(path.startswith(other) for path in found)
    finally:
        stop(server)
