"""``vaultctx serve --http`` as a real process for the HTTP security tests, kept out of the user's
own config folder (the server generates its token there)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.mcp.conftest import HttpServer, start_http_server, subprocess_env

# 43 URL-safe characters, as secrets.token_urlsafe(32) makes: strong enough for any bind.
STRONG_TOKEN = "q3Vt0bX9yJc2WmR7kLfA1sZ8nHd4pGe6TuYi5oKwB0M"


def tiny_vault(root: Path) -> tuple[Path, Path]:
    """A one-note vault and where its (never built) index would go: enough to serve."""
    vault = root / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\nNothing to see.\n", encoding="utf-8")
    return vault, root / "index.db"


def serve_env(config_home: Path, **extra: str) -> dict[str, str]:
    """This checkout, no token from the caller's environment, and a private user config dir."""
    env = subprocess_env()
    env["XDG_CONFIG_HOME"] = str(config_home)
    env.update(extra)
    return env


def start(vault: Path, db: Path, env: dict[str, str], *args: str) -> HttpServer:
    return start_http_server(["serve", "--vault", str(vault), "--db", str(db), *args], env)


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """Resident memory of a process from /proc, in KiB (``VmHWM`` for its peak)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def has_proc() -> bool:
    return os.path.exists(f"/proc/{os.getpid()}/status")
