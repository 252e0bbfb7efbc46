"""The idle timeout: the environment, else the user's ``[engine] idle_minutes``, else 15 min."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.engine.server import DEFAULT_IDLE_SECONDS, idle_seconds
from vaultctx.engine_link import client


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv(client.IDLE_ENV, raising=False)
    (tmp_path / "vaultctx").mkdir()
    return tmp_path / "vaultctx" / "vaultctx.toml"


def test_the_default_is_fifteen_minutes(config: Path) -> None:
    assert idle_seconds() == DEFAULT_IDLE_SECONDS == 900


def test_the_user_setting(config: Path) -> None:
    config.write_text("[engine]\nidle_minutes = 2.5\n")
    assert idle_seconds() == 150


def test_the_environment_wins(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config.write_text("[engine]\nidle_minutes = 2\n")
    monkeypatch.setenv(client.IDLE_ENV, "7")
    assert idle_seconds() == 7


@pytest.mark.parametrize("value", ["0", "-1", '"soon"', "true"])
def test_a_bad_setting_keeps_the_default(config: Path, value: str) -> None:
    config.write_text(f"[engine]\nidle_minutes = {value}\n")
    assert idle_seconds() == DEFAULT_IDLE_SECONDS
