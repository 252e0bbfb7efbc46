"""What ``--help`` and ``--version`` show, from a real ``vaultctx`` process."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import pytest


def vaultctx(*args: str) -> subprocess.CompletedProcess[str]:
    # A wide terminal, so no help line is wrapped in the middle of what is checked.
    env = {**os.environ, "COLUMNS": "160", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("command", "switch"),
    [
        (["index"], "--fast"),
        (["serve"], "--no-token"),
        (["watch"], "--quality"),
        (["config", "claude"], "--write"),
        ([], "--version"),
    ],
)
def test_switches_are_shown_without_a_value(command: list[str], switch: str) -> None:
    done = vaultctx(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert switch in done.stdout
    assert "<bool>" not in done.stdout
    assert "<str>" in done.stdout or not command  # options that take a value still say so


def test_version_is_the_installed_package_version() -> None:
    done = vaultctx("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"vaultctx {importlib.metadata.version('vaultctx')}\n"
