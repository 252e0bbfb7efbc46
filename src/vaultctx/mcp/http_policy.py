"""Who may talk to the HTTP server: the binding rules and the accepted Host and Origin headers.

Kept apart from ``server.py`` so the CLI can check a ``serve --http`` command line (and tests can
check the rules) without importing the MCP SDK, which takes a second or more to import.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765
TOKEN_ENV = "VAULTCTX_TOKEN"

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class InsecureBindError(ValueError):
    """Serving beyond this machine without a bearer token would expose every note."""


def is_loopback(host: str) -> bool:
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback unless every request must carry the bearer token."""
    if not is_loopback(host) and not token:
        raise InsecureBindError(
            f"--host {host} makes your notes reachable from other machines; set a bearer token "
            f"with --token or {TOKEN_ENV} (clients send `Authorization: Bearer <token>`)"
        )


def allowed_host_headers(host: str, extra_hosts: Sequence[str] = ()) -> list[str]:
    """Host header values to accept, with and without a port (DNS-rebinding protection).

    A web page can make the browser send requests to 127.0.0.1 under the page's own domain name;
    refusing unknown Host headers stops that. A specific non-local bind address is admitted
    because remote clients must use it; names for a wildcard bind are given with ``extra_hosts``.
    """
    names = list(LOCAL_NAMES)
    if host not in _WILDCARD_HOSTS and not is_loopback(host):
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
