"""``vaultctx obsidian install|uninstall|connect``: the Obsidian plugin and its server.

``connect`` is what the plugin runs at start-up: one line of JSON, read from its standard output
and never saved: the engine's plugin socket and the vault's base path on it (the engine started
when none runs), or, where the engine does not serve, the address and token of the vault's
loopback server (started when none runs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, VaultOption, open_vault
from vaultctx.db_location import local_anchor

obsidian_app = typer.Typer(
    name="obsidian",
    help="The vaultctx plugin for Obsidian: install it into a vault, remove it.",
    no_args_is_help=True,
)
VaultFolder = Annotated[
    Path,
    typer.Option("--vault", "-v", help="The vault's folder (the one Obsidian opens)."),
]


@obsidian_app.command()
def install(vault: VaultFolder) -> None:
    """Copy the plugin into VAULT/.obsidian/plugins/vaultctx/ (other plugins stay untouched)."""
    from vaultctx.obsidian.install import ENABLE_HINT
    from vaultctx.obsidian.install import install as install_plugin

    written = install_plugin(vault)
    print(f"installed the vaultctx plugin in {written[0].parent}")
    print(f"enable it {ENABLE_HINT}")


@obsidian_app.command()
def uninstall(vault: VaultFolder) -> None:
    """Remove the plugin's files from VAULT/.obsidian/plugins/vaultctx/ and nothing else."""
    from vaultctx.obsidian.install import plugin_folder
    from vaultctx.obsidian.install import uninstall as uninstall_plugin

    removed = uninstall_plugin(vault)
    if not removed:
        print(f"the vaultctx plugin is not installed in {vault}")
        return
    for path in removed:
        print(f"removed {path}")
    if plugin_folder(vault.expanduser().resolve()).exists():
        print("other files in the plugin's folder were left as they are")


@obsidian_app.command()
def connect(
    vault: VaultOption = None,
    db: DbOption = None,
    no_start: Annotated[
        bool, typer.Option("--no-start", help="Only report a running server; start none.")
    ] = False,
) -> None:
    """Print where the plugin reaches vaultctx as JSON: the engine's socket, else a server."""
    from vaultctx.obsidian.connect import connect as connect_server

    handle = open_vault(vault, db)
    found = connect_server(handle.path, local_anchor(handle.db_path), start=not no_start)
    print(json.dumps(found.as_dict()))


def register(app: typer.Typer) -> None:
    app.add_typer(obsidian_app)
