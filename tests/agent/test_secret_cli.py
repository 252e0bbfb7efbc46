"""`vaultctx secret`: a key goes in through a pipe or a hidden prompt, never an argument, and
never comes back out in any output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clean_env import clean_cli_env

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-Zq8ftY3kLm0PwX7vB2nR5sT9uH4jD6gA1cE"


@pytest.fixture
def keyring_env(tmp_path: Path) -> dict[str, str]:
    return clean_cli_env(
        drop=("OPENAI", "AWS_"),
        PYTHON_KEYRING_BACKEND="tests.agent.file_keyring.FileKeyring",
        VAULTCTX_TEST_KEYRING=str(tmp_path / "keyring.json"),
    )


def _vaultctx(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def test_set_check_delete_through_the_keyring(keyring_env: dict[str, str], tmp_path: Path) -> None:
    stored = _vaultctx(keyring_env, "secret", "set", "openai-work", stdin=KEY + "\n")
    assert stored.returncode == 0, stored.stderr
    assert "stored openai-work in the keyring (FileKeyring)" in stored.stdout
    assert json.loads((tmp_path / "keyring.json").read_text()) == {"vaultctx/openai-work": KEY}
    checked = _vaultctx(keyring_env, "secret", "check", "openai-work")
    assert checked.returncode == 0 and checked.stdout.strip() == "openai-work is set"
    deleted = _vaultctx(keyring_env, "secret", "delete", "openai-work")
    assert deleted.returncode == 0 and "deleted openai-work" in deleted.stdout
    missing = _vaultctx(keyring_env, "secret", "check", "openai-work")
    assert missing.returncode == 2
    assert "vaultctx secret set openai-work" in missing.stderr
    for result in (stored, checked, deleted, missing):
        assert KEY not in result.stdout + result.stderr


def test_the_key_is_never_an_argument(keyring_env: dict[str, str]) -> None:
    refused = _vaultctx(keyring_env, "secret", "set", "openai-work", KEY)
    assert refused.returncode == 2
    assert KEY not in refused.stdout


def test_an_empty_pipe_stores_nothing(keyring_env: dict[str, str], tmp_path: Path) -> None:
    empty = _vaultctx(keyring_env, "secret", "set", "openai-work", stdin="")
    assert empty.returncode == 2
    assert "the secret is empty" in empty.stderr
    assert not (tmp_path / "keyring.json").exists()
