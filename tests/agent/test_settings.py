"""[agent] settings: files, environment and flags in that order; bad values named with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.agent.settings import AgentSettings, load_agent_settings
from vaultctx.config import ConfigError


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def user_config(tmp_path: Path) -> Path:
    return tmp_path / "config" / "vaultctx.toml"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    return folder


def test_defaults_without_any_file(vault: Path, user_config: Path) -> None:
    settings = load_agent_settings(vault, env={}, user_config=user_config)
    assert settings == AgentSettings()
    assert settings.endpoint() == "http://localhost:11434"


def test_flags_beat_environment_beat_vault_file_beat_user_file(
    vault: Path, user_config: Path
) -> None:
    _write(
        user_config, '[agent]\nbackend = "openai"\nmodel = "u"\neffort = "low"\nmax_tokens = 100\n'
    )
    _write(vault / "vaultctx.toml", '[agent]\ncontext_tokens = 900\neffort = "high"\n')
    env = {"VAULTCTX_AGENT_EFFORT": "max", "VAULTCTX_AGENT_MAX_TOKENS": "300"}
    settings = load_agent_settings(
        vault, {"max_tokens": 500, "model": None}, env=env, user_config=user_config
    )
    assert (
        settings.backend,
        settings.model,
        settings.context_tokens,
        settings.effort,
        settings.max_tokens,
    ) == ("openai", "u", 900, "max", 500)


def test_top_level_settings_are_not_agent_settings(vault: Path, user_config: Path) -> None:
    _write(vault / "vaultctx.toml", "chunk_max_chars = 1000\n[agent]\nmax_tokens = 99\n")
    assert load_agent_settings(vault, env={}, user_config=user_config).max_tokens == 99


@pytest.mark.parametrize(
    ("table", "wanted"),
    [
        ('backend = "claude"', "unknown backend 'claude'; use one of: openai, ollama, gemini"),
        ('base_url = "file:///etc/passwd"', "is not an http:// or https:// URL"),
        ('base_url = "https://me:pw@host/v1"', "must not carry a user name or password"),
        ("max_tokens = 0", "'max_tokens' must be between 1 and 200000"),
        ('max_tokens = "many"', "'max_tokens' must be a number"),
        ("translate = 1", "'translate' must be true or false"),
        ('api_key = "sk-123"', "unknown agent setting 'api_key'"),
    ],
)
def test_bad_values_name_the_setting(
    vault: Path, user_config: Path, table: str, wanted: str
) -> None:
    _write(user_config, f"[agent]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        load_agent_settings(vault, env={}, user_config=user_config)
    assert wanted in caught.value.one_line()
    assert str(user_config) in caught.value.message


def test_a_bad_environment_value_names_the_variable(vault: Path, user_config: Path) -> None:
    with pytest.raises(ConfigError, match="VAULTCTX_AGENT_TIMEOUT='soon' is not a number"):
        load_agent_settings(vault, env={"VAULTCTX_AGENT_TIMEOUT": "soon"}, user_config=user_config)


# What a vault's own file may not set (where text is sent): tests/security/
# test_vault_config_destinations.py.


def test_the_users_own_choices_override_a_vault_endpoint(vault: Path, user_config: Path) -> None:
    _write(user_config, '[agent]\nbackend = "openai"\n')
    _write(vault / "vaultctx.toml", '[agent]\nbase_url = "https://collector.example/v1"\n')
    settings = load_agent_settings(
        vault, {"base_url": "https://api.openai.com/v1"}, env={}, user_config=user_config
    )
    assert settings.endpoint() == "https://api.openai.com/v1"
    same = load_agent_settings(
        vault, env={"VAULTCTX_AGENT_BASE_URL": "https://proxy.corp/v1"}, user_config=user_config
    )
    assert same.endpoint() == "https://proxy.corp/v1"
