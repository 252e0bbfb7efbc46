"""An indexed copy of the example vault, and how to run the hook the way Claude Code does."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_example_vault
from tests.mcp.conftest import subprocess_env as mcp_subprocess_env
from vaultctx.api import Vault


@dataclass(frozen=True)
class IndexedVault:
    vault: Path
    db: Path

    def hook_args(self, kind: str) -> list[str]:
        return [kind, "--vault", str(self.vault), "--db", str(self.db)]


@pytest.fixture(scope="package")
def indexed_vault(tmp_path_factory: pytest.TempPathFactory) -> IndexedVault:
    root = tmp_path_factory.mktemp("hooks")
    vault = root / "vault"
    copy_example_vault(vault)
    db = root / "index.db"
    handle = Vault(vault, db=db)
    handle.index(fast=True)
    handle.close()
    return IndexedVault(vault, db)


def subprocess_env(**extra: str) -> dict[str, str]:
    """This checkout on PYTHONPATH, and none of the caller's vaultctx hook settings."""
    env = mcp_subprocess_env()
    for name in ("VAULTCTX_HOOK_ACTIVE", "VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN", "VAULT_PATH"):
        env.pop(name, None)
    env.update(extra)
    return env


@dataclass(frozen=True)
class HookRun:
    returncode: int
    stdout: str
    stderr: str

    def answer(self) -> dict[str, Any]:
        answer = json.loads(self.stdout)
        assert isinstance(answer, dict)
        return answer


def run_hook_process(
    args: list[str], stdin: str, env: dict[str, str] | None = None, timeout: float = 60
) -> HookRun:
    """``python -m vaultctx.hooks ARGS`` with ``stdin``, exactly as Claude Code starts a hook."""
    process = subprocess.run(
        [sys.executable, "-m", "vaultctx.hooks", *args],
        input=stdin.encode(),
        capture_output=True,
        env=env or subprocess_env(),
        timeout=timeout,
    )
    return HookRun(process.returncode, process.stdout.decode(), process.stderr.decode())
