"""Running the agent's commands: a private user config, data and state dir, no keyring, none of the
caller's keys, and settings pointing at a fake backend; in the test process unless a test asks
for a real one (tests/cli_in_process.py says when a test needs its own process)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agent.fakes import GeminiFake, OllamaFake, OpenAIFake
from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
from tests.conftest import copy_example_vault
from vaultctx.api import Vault

KEY = "sk-test-0123456789abcdefghijklmnop"


@dataclass
class Indexed:
    vault: Path
    db: Path


def indexed_example(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    """The bundled example vault, copied and indexed (pass 1 only: fast, and enough to answer)."""
    root = tmp_path_factory.mktemp("agent")
    vault = copy_example_vault(root / "vault")
    db = root / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    return Indexed(vault, db)


def agent_env(tmp_path: Path, agent_toml: str, **extra: str) -> dict[str, str]:
    """A private user config (holding ``agent_toml``) and data dir, no keyring, no ambient keys."""
    config = tmp_path / "config"
    (config / "vaultctx").mkdir(parents=True)
    (config / "vaultctx" / "vaultctx.toml").write_text(agent_toml, encoding="utf-8")
    return clean_cli_env(
        tmp_path,
        drop=("OPENAI", "GEMINI", "GOOGLE", "AWS_", "OLLAMA"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        **extra,
    )


def vaultctx(
    indexed: Indexed,
    env: dict[str, str],
    command: str,
    *args: str,
    stdin: str | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``vaultctx COMMAND ARGS --vault V --db D`` to the end: in this process, or (``process``)
    as ``python -m vaultctx`` (generous deadline: loaded CI)."""
    words = [command, *args, "--vault", str(indexed.vault), "--db", str(indexed.db)]
    if not process:
        return run_vaultctx(words, env=env, input=stdin)
    argv = [sys.executable, "-m", "vaultctx", *words]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, timeout=300)


def ask(indexed: Indexed, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return vaultctx(indexed, env, "ask", *args)


SECRET_LINE = 'api_key_secret = "{}-test"\n'


def openai_toml(fake: OpenAIFake) -> str:
    url = f"{fake.base_url}/v1"
    return f'backend = "openai"\nmodel = "gpt-5.2"\nbase_url = "{url}"\n' + SECRET_LINE.format(
        "openai"
    )


def ollama_toml(fake: OllamaFake) -> str:
    return f'backend = "ollama"\nmodel = "qwen3:8b"\nbase_url = "{fake.base_url}"\n'


def gemini_toml(fake: GeminiFake) -> str:
    url = fake.base_url
    head = f'backend = "gemini"\nmodel = "gemini-3-flash"\nbase_url = "{url}"\n'
    return head + SECRET_LINE.format("gemini")
