"""The agent's settings: which backend and model, where it is, and the name of its key.

Read from the ``[agent]`` table of ``vaultctx.toml`` (the user config dir's, then the vault's),
then ``VAULTCTX_AGENT_*`` environment variables, then command-line flags, each overriding the one
before. A key itself is never a setting: ``api_key_secret`` names a secret in the OS keyring
(agent/secrets.py), so a settings file can be shared or synced without leaking anything.

A vault's own ``vaultctx.toml`` travels with the vault (sync, a cloned repo), so it is trusted less
than the user's config dir: it may not set anything that decides where questions and notes are
sent or which programs run (``backend``, ``base_url``, ``model``, ``region``, ``profile``,
``api_key_secret``, ``mcp_config``; destination_keys.py). Such a key in it is left out, with a
notice; a vault's file may still tune how the agent behaves (``max_tokens``, ``context_tokens``,
``template_folder``...).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

from vaultctx.agent.llm_backends.registry import DEFAULT_BACKEND, get_backend
from vaultctx.config import APP_NAME, CONFIG_FILE_NAME, ConfigError, is_user_file, read_toml
from vaultctx.destination_keys import without_destinations

MAX_TOKENS_RANGE = (1, 200_000)
ENV_PREFIX = "VAULTCTX_AGENT_"


@dataclass(frozen=True)
class AgentSettings:
    """What ``vaultctx ask`` and ``chat`` talk to, and how much they ask for."""

    backend: str = DEFAULT_BACKEND
    model: str | None = None
    base_url: str | None = None
    region: str | None = None
    profile: str | None = None
    api_key_secret: str | None = None
    effort: str | None = None
    max_tokens: int = 4096
    system_prompt: str = ""
    # Tokens of vault passages given to the model with each question.
    context_tokens: int = 3000
    # Also search a translation of a question whose language differs from the vault's.
    translate: bool = True
    # Seconds to wait for the backend's first byte, and between bytes after it.
    timeout: float = 120.0
    # The JSON file of external MCP servers (None: mcp.json in the user config dir), and the
    # seconds each request to one of them may take (agent/mcp_client.py).
    mcp_config: str | None = None
    mcp_timeout: float = 10.0
    # Ask before each tool that changes a note (and every MCP tool) runs. On unless the user's
    # own settings or the environment turn it off (a vault's file cannot): a model's change
    # is shown as a diff and made only when the user says yes (the seed assistant asks nothing).
    confirm_changes: bool = True
    # The vault folder the template tools read and write.
    template_folder: str = "Templates"
    # The language of tool results and the chat's fixed lines (agent/wording.py): "en" or
    # "ko"; unset, the locale's.
    language: str | None = None

    def user_language(self) -> str:
        from vaultctx.agent.wording import language_from_locale

        return self.language or language_from_locale()

    def endpoint(self) -> str | None:
        """The base URL requests go to (None: the client library's own)."""
        return get_backend(self.backend).endpoint(self)


_STRING_KEYS = (
    "backend",
    "model",
    "base_url",
    "region",
    "profile",
    "api_key_secret",
    "effort",
    "mcp_config",
    "language",
)
MCP_TIMEOUT_RANGE = (1, 60)


def user_config_file() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / CONFIG_FILE_NAME


def load_agent_settings(
    vault: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    user_config: Path | None = None,
) -> AgentSettings:
    """Settings from the files, the environment and ``overrides`` (flags; None values ignored);
    from the vault's own file only those that do not decide where text is sent."""
    settings = AgentSettings()
    trusted = user_config or user_config_file()
    if trusted.is_file():
        settings = _apply(settings, _agent_table(trusted), str(trusted))
    asked_to_confirm = settings.confirm_changes
    vault_file = vault / CONFIG_FILE_NAME if vault is not None else None
    if vault_file is not None and vault_file.is_file() and not is_user_file(vault_file, trusted):
        vault_table = without_destinations("agent", _agent_table(vault_file), vault_file, trusted)
        settings = _apply(settings, vault_table, str(vault_file))
        # A vault's file may ask for confirmation, never switch off the user's own.
        if asked_to_confirm:
            settings = replace(settings, confirm_changes=True)
    environ = os.environ if env is None else env
    from_env = {
        f.name: environ[ENV_PREFIX + f.name.upper()]
        for f in fields(AgentSettings)
        if ENV_PREFIX + f.name.upper() in environ
    }
    settings = _apply(settings, from_env, "the environment", strings=True)
    given = {key: value for key, value in (overrides or {}).items() if value is not None}
    return _apply(settings, given, "the command line")


def _agent_table(path: Path) -> dict[str, Any]:
    table = read_toml(path).get("agent", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'agent' must be a table", "write it as [agent] on its own line")
    return table


def _apply(
    settings: AgentSettings, data: Mapping[str, Any], source: str, *, strings: bool = False
) -> AgentSettings:
    known = {f.name: f for f in fields(AgentSettings)}
    updates: dict[str, Any] = {}
    for key, raw in data.items():
        refuse_unknown_key(key, sorted(known), f"{source}: unknown agent setting")
        default = getattr(AgentSettings(), key)
        value = _coerce(key, raw, default, source) if strings else raw
        updates[key] = _checked(key, value, default, source)
    return replace(settings, **updates)


def _coerce(key: str, raw: str, default: object, source: str) -> object:
    """An environment variable's text as the setting's type."""
    if isinstance(default, bool):
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(
            f"{source}: {ENV_PREFIX}{key.upper()}={raw!r} is not true or false",
            "set it to true or false",
        )
    if isinstance(default, (int, float)):
        try:
            return type(default)(raw)
        except ValueError:
            raise ConfigError(
                f"{source}: {ENV_PREFIX}{key.upper()}={raw!r} is not a number",
                f"set it to a number such as {default}",
            ) from None
    return raw


def _checked(key: str, value: object, default: object, source: str) -> object:
    if key == "template_folder":
        return _template_folder(value, source)
    if key in _STRING_KEYS or key == "system_prompt":
        if not isinstance(value, str):
            raise ConfigError(
                f"{source}: '{key}' must be text, got {value!r}", f'write {key} = "..."'
            )
        value = value.strip() if key != "system_prompt" else value
        if key in _STRING_KEYS and not value:
            return None
    elif isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{source}: '{key}' must be true or false", f"write {key} = true")
    elif isinstance(default, (int, float)) and (
        isinstance(value, bool) or not isinstance(value, (int, float))
    ):
        raise ConfigError(
            f"{source}: '{key}' must be a number, got {value!r}", f"write {key} = {default}"
        )
    if key == "language" and value is not None:
        return _language(str(value), source)
    if key == "backend":
        return check_backend(str(value), source)
    if key == "base_url":
        return check_base_url(str(value), source)
    if key == "max_tokens":
        return _in_range(key, int(value), MAX_TOKENS_RANGE, source)  # type: ignore[call-overload]
    if key == "context_tokens":
        return _in_range(key, int(value), (200, 100_000), source)  # type: ignore[call-overload]
    if key == "timeout":
        return float(_in_range(key, value, (1, 3600), source))  # type: ignore[arg-type]
    if key == "mcp_timeout":
        return float(_in_range(key, value, MCP_TIMEOUT_RANGE, source))  # type: ignore[arg-type]
    return value


def _language(value: str, source: str) -> str:
    from vaultctx.agent.wording import LANGUAGES

    if value.lower() not in LANGUAGES:
        raise ConfigError(
            f"{source}: language {value!r} is not one vaultctx speaks ({', '.join(LANGUAGES)})",
            'write language = "en" or language = "ko" under [agent], or leave it out to follow '
            "the locale",
        )
    return value.lower()


def _template_folder(value: object, source: str) -> str:
    from vaultctx.vault.paths import UnsafePathError, normalize_vault_path

    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"{source}: 'template_folder' must be a folder of the vault, got {value!r}",
            'write template_folder = "Templates"',
        )
    try:
        return normalize_vault_path(value.strip())
    except UnsafePathError as exc:
        raise ConfigError(
            f"{source}: template_folder {value!r}: {exc.message}",
            'give a vault-relative folder such as "Templates"',
        ) from exc


def refuse_unknown_key(key: str, known: Sequence[str], problem: str) -> None:
    """A table's key that is not a setting, refused with the ones that are."""
    if key not in known:
        raise ConfigError(f"{problem} '{key}'", f"use one of: {', '.join(known)}")


def check_backend(name: str, source: str = "the command line") -> str:
    """A backend name as the registry knows it (agent/llm_backends/registry.py)."""
    return get_backend(name.strip().lower(), source).name


def check_base_url(url: str, source: str = "the command line") -> str:
    """An http(s) URL with a host; anything else (``file:``, a bare host) is refused."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"{source}: base_url {url!r} is not an http:// or https:// URL",
            "give the server's address, e.g. https://api.openai.com/v1 or http://localhost:11434",
        )
    if parts.username or parts.password:
        raise ConfigError(
            f"{source}: base_url must not carry a user name or password",
            "store the key with `vaultctx secret set NAME` and set api_key_secret = NAME",
        )
    return url.strip().rstrip("/")


def _in_range(key: str, value: float, bounds: tuple[int, int], source: str) -> float:
    low, high = bounds
    if not low <= value <= high:
        raise ConfigError(
            f"{source}: '{key}' must be between {low} and {high}, got {value}",
            f"set {key} to a value in that range",
        )
    return value
