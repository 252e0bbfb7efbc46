"""``vaultctx serve`` (stdio) through the engine: decided before typer is imported.

Only the plain stdio form is relayed (``--vault``, ``--db``, ``--allow-writes``); any other
option (``--http``, ``--help``, a typo) runs the typer command in-process, which serves or says
what is wrong in its own words. So does a vault this process cannot locate, and a machine or
environment without the engine (``--no-engine``, ``VAULTCTX_ENGINE=off``, Windows).
"""

from __future__ import annotations

import os

from vaultctx.cli.forward import _locate, _vault_and_db

RELAYED_FLAGS = frozenset({"--allow-writes"})
VALUE_OPTIONS = frozenset({"--vault", "-v", "--db"})


def relay(argv: list[str]) -> int | None:
    """Serve ``vaultctx serve ARGS`` as a relay and return its exit code; None when the
    command must run in-process."""
    from vaultctx.engine_link import client

    if argv[:1] != ["serve"] or os.name == "nt" or not client.enabled():
        return None
    args = argv[1:]
    if not _plain(args):
        return None
    located = _locate(*_vault_and_db(args))
    if located is None:
        return None
    from vaultctx.mcp import relay as mcp_relay

    return mcp_relay.run(*located, allow_writes="--allow-writes" in args)


def _plain(args: list[str]) -> bool:
    """Whether ``args`` holds only the options the relay honours, each well formed."""
    position = 0
    while position < len(args):
        arg = args[position]
        if arg in VALUE_OPTIONS:
            if position + 1 >= len(args):
                return False
            position += 2
            continue
        if not (
            arg in RELAYED_FLAGS
            or arg.startswith(("--vault=", "--db="))
            or (arg.startswith("-v") and not arg.startswith("--") and len(arg) > 2)
        ):
            return False
        position += 1
    return True
