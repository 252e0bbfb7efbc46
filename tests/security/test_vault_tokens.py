"""One ``serve --http --vaults FILE`` process, two vaults: a token opens its own vault and no
other. Another vault's token, a token less or more one character, a missing or malformed header
are all 401, and a path that names no vault does not tell a caller without a valid token which
names exist."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.mcp.conftest import HttpServer, stop, wait_until_listening
from tests.mcp.conftest import start_http_server as start_server
from tests.mcp.test_http import INITIALIZE, MCP_HEADERS
from tests.security.serving import serve_env, tiny_vault

TOKEN_A = "Vq7tMZ2cR1xkPb9sLhW4dN8yFe3Gj0uAo6TiKw5nYrE"
TOKEN_B = "8f3b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HttpServer, Path]]:
    root = tmp_path_factory.mktemp("two-vaults")
    for name in ("a", "b"):
        (root / name).mkdir()
        tiny_vault(root / name)
    (root / "b.token").write_text(TOKEN_B, encoding="ascii")
    (root / "b.token").chmod(0o600)
    file = root / "vaults.toml"
    file.write_text(
        '[[vault]]\nname = "alpha"\nvault = "a/vault"\ndb = "a/index.db"\nscope = "write"\n'
        'token_env = "ALPHA_TOKEN"\n\n'
        '[[vault]]\nname = "beta"\nvault = "b/vault"\ndb = "b/index.db"\n'
        'token_file = "b.token"\n',
        encoding="utf-8",
    )
    env = serve_env(root / "config", ALPHA_TOKEN=TOKEN_A)
    # Bound beyond loopback, where the tokens are all that stands between the notes and the LAN.
    started = start_server(["serve", "--vaults", str(file), "--host", "0.0.0.0"], env)
    try:
        wait_until_listening(started)
        yield started, root
    finally:
        stop(started)


def post(server: HttpServer, path: str, authorization: str | None) -> httpx2.Response:
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["authorization"] = authorization
    url = f"http://127.0.0.1:{server.port}{path}"
    return httpx2.post(url, json=INITIALIZE, headers=headers, timeout=30)


@pytest.fixture(scope="module")
def server(served: tuple[HttpServer, Path]) -> HttpServer:
    return served[0]


@pytest.mark.parametrize(
    ("path", "authorization", "status"),
    [
        ("/mcp/alpha", f"Bearer {TOKEN_A}", 200),
        ("/mcp/beta", f"Bearer {TOKEN_B}", 200),
        ("/mcp/alpha", f"Bearer {TOKEN_B}", 401),  # the other vault's token
        ("/mcp/beta", f"Bearer {TOKEN_A}", 401),
        ("/mcp/beta", f"Bearer {TOKEN_B[:-1]}", 401),  # no prefix accepted
        ("/mcp/beta", f"Bearer {TOKEN_B}0", 401),  # nor a longer token
        ("/mcp/alpha", f"Bearer {TOKEN_A[:-1]}", 401),
        ("/mcp/alpha", f"Bearer {TOKEN_A}x", 401),
        ("/mcp/beta", None, 401),
        ("/mcp/beta", TOKEN_B, 401),
        ("/mcp/beta", f"Basic {TOKEN_B}", 401),
        ("/mcp/beta", f"Bearer {TOKEN_A}{TOKEN_B}", 401),
        ("/mcp/beta", f"Bearer {TOKEN_B}{TOKEN_B}", 401),  # twice
        ("/mcp/beta", f"Bearer {TOKEN_B.upper()}", 401),  # another case
        ("/mcp/alpha", f"Bearer {TOKEN_A.swapcase()}", 401),
        ("/vaultctx/cli", f"Bearer {TOKEN_A}", 404),  # one vault's routes are not served
        ("/vaultctx/hook/context", f"Bearer {TOKEN_A}", 404),
        ("/mcp", f"Bearer {TOKEN_A}", 404),  # the single-vault path serves nothing here
        ("/mcp/gamma", None, 401),  # an unknown name looks like a known one to a stranger
        ("/mcp/gamma", f"Bearer {TOKEN_A[:-1]}", 401),
        ("/mcp/gamma", f"Bearer {TOKEN_A}", 404),
        ("/mcp/beta/", f"Bearer {TOKEN_A}", 404),
    ],
)
def test_a_token_opens_only_its_own_vault(
    server: HttpServer, path: str, authorization: str | None, status: int
) -> None:
    answer = post(server, path, authorization)
    assert answer.status_code == status, answer.text
    if status == 404 and path.startswith("/mcp"):
        assert "this token opens /mcp/alpha" in answer.json()["error_description"]


def test_the_host_check_holds_for_every_vault(server: HttpServer) -> None:
    for path, token in (("/mcp/alpha", TOKEN_A), ("/mcp/beta", TOKEN_B)):
        url = f"http://127.0.0.1:{server.port}{path}"
        headers = {**MCP_HEADERS, "authorization": f"Bearer {token}", "host": "evil.example"}
        answer = httpx2.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 421


def test_no_server_record_points_hooks_at_a_vault(served: tuple[HttpServer, Path]) -> None:
    """Hooks and CLI forwarding speak to one vault's server at /mcp: none is recorded here."""
    assert list(served[1].rglob("*.server.json")) == []
