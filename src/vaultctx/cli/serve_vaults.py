"""``vaultctx serve --http --vaults FILE`` (several vaults, one process) and its ``--check``.

The file is checked before the MCP SDK is imported or a port bound, so ``--check`` answers at
once and a mistake in the file never leaves a half-started server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from vaultctx.cli.common import stdout
from vaultctx.errors import VaultctxError
from vaultctx.loopback.listeners import bind_listeners
from vaultctx.loopback.server_link import TOKEN_ENV
from vaultctx.mcp.served_vaults import ServedVault, load_served_vaults

# What --vaults replaces: its file names each vault, its index, its token and its scope.
SINGLE_VAULT_OPTIONS = ("--vault", "--db", "--token", "--no-token", "--watch", "--allow-writes")


def serve_vaults(
    file: Path | None,
    http: bool,
    check: bool,
    single_vault_values: Sequence[object],
    host: str,
    port: int,
    extra_hosts: Sequence[str],
) -> None:
    """Check the served-vaults ``file`` and serve it, or with ``check`` list it and return.
    ``single_vault_values`` are those of ``SINGLE_VAULT_OPTIONS``: none may be given."""
    if file is None:
        raise VaultctxError("--check needs --vaults FILE", "add --vaults and the file to check")
    if not http and not check:
        raise VaultctxError(
            "--vaults serves over HTTP only", "add --http (a stdio server has one client)"
        )
    options = zip(SINGLE_VAULT_OPTIONS, single_vault_values, strict=True)
    # VAULTCTX_TOKEN from a shell profile (as docs/mcp.md suggests for clients) is not a choice
    # made for this command: ignored here, as each vault's token comes from the file.
    from_env = os.environ.get(TOKEN_ENV)
    given = [o for o, value in options if value and not (o == "--token" and value == from_env)]
    if given:
        raise VaultctxError(
            f"{', '.join(given)} cannot be combined with --vaults: the file "
            "names each vault, its index, its token and its scope",
            "drop them, or leave out --vaults to serve one vault",
        )
    served = load_served_vaults(file, host=host)
    if check:
        _print_vaults(served)
        return
    sockets = bind_listeners(host, port)  # a busy port is refused before anything starts
    from vaultctx.mcp.multi_vault import run_vaults_http

    shown_host = f"[{host}]" if ":" in host else host
    for vault in served:
        print(
            f"vaultctx MCP server for {vault.vault} at http://{shown_host}:{port}"
            f"{vault.url_path} ({vault.scope}, token from {vault.token_source})",
            file=sys.stderr,
        )
    run_vaults_http(served, host=host, port=port, extra_hosts=extra_hosts, sockets=sockets)


def _print_vaults(served: Sequence[ServedVault]) -> None:
    """One line per vault: what a client connects to and what it may do; never a token."""
    from vaultctx.config import load_config

    for vault in served:
        index = load_config(vault.vault, vault.db).db  # where `serve` would open it
        stdout.print(
            f"{vault.url_path}  {vault.scope}  {vault.vault}  index: {index}  "
            f"token: {vault.token_source}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    stdout.print(f"{len(served)} vault(s) ready to serve", highlight=False)
