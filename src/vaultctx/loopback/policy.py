"""Who may talk to the local HTTP servers (``serve --http``, ``vaultctx ui``): the binding rules
and the accepted Host and Origin headers.

Kept apart from the servers so the CLI can check a command line (and tests can check the rules)
without importing the MCP SDK, which takes a second or more to import.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from vaultctx.errors import VaultctxError
from vaultctx.loopback.server_link import TOKEN_ENV, WILDCARD_HOSTS
from vaultctx.loopback.token import TOKEN_BYTES, strength_problem

DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


class InsecureBindError(VaultctxError):
    """Serving beyond this machine without a strong bearer token would expose every note."""


def is_loopback(host: str) -> bool:
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback unless every request must carry a strong bearer token.

    On loopback a weaker token of the user's own choosing is their call (only this machine can try
    guesses); from the network a guessable token is as good as none.
    """
    if is_loopback(host):
        return
    if not token:
        raise InsecureBindError(
            f"--host {host} makes your notes reachable from other machines, so it needs a bearer "
            "token",
            f"leave out --no-token to use the generated one, or set one with --token or "
            f"{TOKEN_ENV} (clients send `Authorization: Bearer <token>`)",
        )
    problem = strength_problem(token)
    if problem:
        raise InsecureBindError(
            f"--host {host} needs a bearer token of at least {TOKEN_BYTES} random bytes, and this "
            f"one has {problem}",
            'generate one with `openssl rand -hex 32` or `python -c "import secrets; '
            f'print(secrets.token_urlsafe(32))"`, or leave out --token and {TOKEN_ENV} to use '
            "the generated token",
        )


def allowed_host_headers(host: str, extra_hosts: Sequence[str] = ()) -> list[str]:
    """Host header values to accept, with and without a port (DNS-rebinding protection).

    A web page can make the browser send requests to 127.0.0.1 under the page's own domain name;
    refusing unknown Host headers stops that. A specific non-local bind address is admitted
    because remote clients must use it; names for a wildcard bind are given with ``extra_hosts``.
    """
    names = list(LOCAL_NAMES)
    if host not in WILDCARD_HOSTS and not is_loopback(host):
        names.append(f"[{host}]" if ":" in host else host)
    names += extra_hosts
    return [form for name in names for form in (name, f"{name}:*")]


def allowed_origins() -> list[str]:
    """Browser origins allowed to call the server: pages served from this machine only."""
    return [
        f"{scheme}://{name}{port}"
        for scheme in ("http", "https")
        for name in LOCAL_NAMES
        for port in ("", ":*")
    ]
