"""Running the assistant's tools in-process against a private copy of the example vault."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tests.conftest import copy_example_vault
from vaultctx.agent.tool_contract import ToolContext, run_tool
from vaultctx.agent.tool_list import TOOLS_BY_NAME
from vaultctx.api import Vault


def vault_copy(tmp_path: Path, *, indexed: bool = False, name: str = "vault") -> Vault:
    """The example vault copied under ``tmp_path`` (its index next to it when ``indexed``;
    without one, writes skip re-indexing and run fast)."""
    root = copy_example_vault(tmp_path / name)
    vault = Vault(root, db=tmp_path / f"{name}-index.db")
    if indexed:
        vault.index(fast=True)
    return vault


def call(vault: Vault, tool: str, args: Any = None, **context: Any) -> str:
    """``tool``'s result for ``args``, through the whole argument contract."""
    spec = TOOLS_BY_NAME[tool]
    return asyncio.run(run_tool(spec, {} if args is None else args, ToolContext(vault, **context)))


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, by relative path."""
    tree: dict[str, bytes | None] = {}
    for current, folders, files in os.walk(folder):
        base = Path(current)
        for name in folders:
            tree[(base / name).relative_to(folder).as_posix()] = None
        for name in files:
            path = base / name
            tree[path.relative_to(folder).as_posix()] = (
                b"link:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            )
    return tree
