"""One configuration object for every entry point.

Precedence: explicit arguments (CLI flags) > environment > ``vaultctx.toml`` in the vault >
``vaultctx.toml`` in the user config dir > defaults, except for the settings that decide where
notes are sent, which a vault's own file may not set (destination_keys.py). ``VAULT_PATH`` and
``DB_PATH``, the names the tool vaultctx grew from used, keep working so existing MCP client
configs need no change.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path, PureWindowsPath
from typing import Any

import platformdirs

# Re-exported: callers name the index location and the app folder through the settings module.
from vaultctx.db_location import APP_NAME as APP_NAME
from vaultctx.db_location import IndexLocation, PostgresLocation, index_location, is_postgres_url
from vaultctx.db_location import default_db_path as default_db_path
from vaultctx.destination_keys import without_destinations
from vaultctx.errors import VaultctxError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_FILE_NAME = "vaultctx.toml"


class ConfigError(VaultctxError, ValueError):
    """A setting is missing or invalid: the message says which, the suggestion how to fix it.

    Also a ``ValueError``, as an invalid setting is an invalid value."""


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the OS tells (a container's or
    ``taskset``'s CPU set), else every core. More busy workers or readers than that only take
    turns."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on macOS or Windows
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Settings:
    """Tunable behaviour, readable from ``vaultctx.toml`` (keys are the field names)."""

    max_file_bytes: int = 5_000_000
    embed_batch_size: int = 64
    chunk_max_chars: int = 2000
    chunk_min_chars: int = 30
    chunk_overlap: int = 200
    # Let the overlap start at a word when no sentence starts in it (after a sentence longer
    # than chunk_overlap); off: measured slightly worse on SciFact (docs/benchmarks.md).
    chunk_overlap_mid_sentence: bool = False
    index_excalidraw: bool = False
    index_kanban: bool = False
    ignore: tuple[str, ...] = ()
    # Processes preparing files in large index runs; 0 = one per core this process may use
    # (``usable_cores``; index/parallel.py).
    index_workers: int = 0
    # Embedding engines by registered name (embed/registry.py): pass 1, and pass 2 ("" = none).
    # A remote engine, "provider:model", may be chosen only in the user's own file
    # (destination_keys.py).
    engine: str = "static"
    quality_engine: str = "onnx"
    # The engine for notes and questions the English models cannot read: "auto" picks the first
    # installed of embed/registry.py's MULTILINGUAL_ENGINES, "" switches it off. Which chunks it
    # embeds: "auto" (every chunk once any is not English), "all" or "off" (multilingual_pass.py).
    multilingual_engine: str = "auto"
    multilingual_chunks: str = "auto"
    # Where `capture` writes, relative to the vault. Unset: the vault's own `00-inbox/` or
    # `Inbox/` if it has one, else `00-inbox/` (see capture.py).
    inbox_folder: str | None = None
    # The change ledger (docs/changes.md): a record younger than this many days is never
    # dropped; older ones go once the ledger holds more than ledger_max_mb of contents.
    # The user's own file only: a vault's file could otherwise shorten its own undo history.
    ledger_keep_days: int = 7
    ledger_max_mb: int = 500


@dataclass(frozen=True)
class Config:
    """Where the vault and its index live, plus the settings that shape indexing and search."""

    vault: Path
    db: IndexLocation
    settings: Settings = field(default_factory=Settings)


def check_db_location(vault: Path, db: IndexLocation) -> None:
    """Refuse an index inside the vault: sync tools would copy it, the scanner would meet it, and
    a ``--db`` typo (``--db plan.md``) could name one of the user's notes."""
    if isinstance(db, PostgresLocation):
        return
    root = Path(os.path.realpath(vault))
    target = Path(os.path.realpath(db))
    if target == root or root in target.parents:
        raise ConfigError(
            f"the index {db} would be inside the vault {vault}; vaultctx keeps its index outside "
            "your notes",
            "leave out --db (the default is your per-user data folder) or choose a path outside "
            "the vault",
        )


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict, or a ConfigError naming the file and the problem."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})", "fix the file or remove it") from exc
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read ({exc.strerror})", "make the file readable or remove it"
        ) from exc


# Settings a vault's own file may not set: they decide how long its changes stay undoable.
USER_ONLY_KEYS = ("ledger_keep_days", "ledger_max_mb")


def _settings_from(
    data: Mapping[str, Any], source: Path, base: Settings, *, user_file: Path | None = None
) -> Settings:
    """``user_file`` is given when ``source`` is a vault's own file: that travels with the vault
    (sync, a cloned repo), so it may not shorten how long its changes stay undoable; only the
    user's own file (``user_file``) may."""
    known = {f.name: f for f in fields(Settings)}
    updates: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(value, (bool, int, str, list)):
            continue  # tables such as [blocks] belong to other features
        if key not in known:
            raise ConfigError(
                f"{source}: unknown setting '{key}'",
                f"use one of the known settings: {', '.join(sorted(known))}",
            )
        default = getattr(base, key)
        if key in USER_ONLY_KEYS and user_file is not None:
            raise ConfigError(
                f"{source}: '{key}' decides how long changes stay undoable, so only your own "
                "settings file may set it, not a vault's",
                f"set {key} in your own settings file {user_file}",
            )
        if key in USER_ONLY_KEYS and (type(value) is not int or value < 0):
            raise ConfigError(
                f"{source}: '{key}' must be a whole number of 0 or more, got {value!r}",
                f"write it as {key} = {_toml_value(default)}, the default",
            )
        if key == "inbox_folder":
            updates[key] = vault_relative_folder(key, value, source)
        elif key == "multilingual_chunks" and value not in ("auto", "all", "off"):
            raise ConfigError(
                f'{source}: \'multilingual_chunks\' must be "auto", "all" or "off", got {value!r}',
                'write it as multilingual_chunks = "auto", the default',
            )
        elif isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(
                    f"{source}: '{key}' must be a list of strings",
                    f'write it as {key} = ["first", "second"]',
                )
            updates[key] = tuple(value)
        elif type(value) is not type(default):
            raise ConfigError(
                f"{source}: '{key}' must be {type(default).__name__}, got {value!r}",
                f"write it as {key} = {_toml_value(default)}, the default",
            )
        else:
            updates[key] = value
    return replace(base, **updates)


_FOLDER_EXAMPLE = 'give a folder relative to the vault, such as "Inbox" or "areas/inbox"'


def vault_relative_folder(key: str, value: object, source: Path) -> str:
    """A folder inside the vault, as ``a/b``; absolute paths, ``~`` and ``..`` are refused, as
    they would lead out of it (either separator is accepted: a vault is shared across systems)."""
    if not isinstance(value, str):
        raise ConfigError(f"{source}: '{key}' must be str, got {value!r}", _FOLDER_EXAMPLE)
    parts = [part for part in value.replace("\\", "/").split("/") if part not in ("", ".")]
    escapes = value.startswith(("/", "\\", "~")) or PureWindowsPath(value).drive or ".." in parts
    if escapes or not parts or any(ord(char) < 0x20 for char in value):
        raise ConfigError(
            f"{source}: '{key}' must name a folder inside the vault, not {value!r}",
            _FOLDER_EXAMPLE,
        )
    return "/".join(parts)


def table_values(
    vault: Path, table: str, user_config_dir: Path | None = None
) -> dict[str, tuple[Path, Any]]:
    """``[table]`` of the user's vaultctx.toml, then the vault's (the vault's wins per key, except
    a key deciding where notes go, which it may not set): key → (the file that set it, its
    value), so a bad value is reported with the file to fix."""
    folder = user_config_dir or Path(platformdirs.user_config_dir(APP_NAME))
    user_file, vault_file = folder / CONFIG_FILE_NAME, vault / CONFIG_FILE_NAME
    values: dict[str, tuple[Path, Any]] = {}
    for path in (user_file, vault_file):
        if not path.is_file() or (path is vault_file and is_user_file(vault_file, user_file)):
            continue
        raw = read_toml(path).get(table, {})
        if not isinstance(raw, dict):
            raise ConfigError(
                f"{path}: '{table}' must be a table", f"write it as [{table}] on its own line"
            )
        if path is vault_file:
            raw = without_destinations(table, raw, vault_file, user_file)
        for key, value in raw.items():
            values[key] = (path, value)
    return values


def is_user_file(vault_file: Path, user_file: Path) -> bool:
    """Whether the vault's file is the user's own (a vault kept in the user config dir): read
    once, as the user's."""
    return os.path.realpath(vault_file) == os.path.realpath(user_file)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def load_config(
    vault: str | Path | None = None,
    db: str | IndexLocation | None = None,
    *,
    env: Mapping[str, str] | None = None,
    user_config_dir: Path | None = None,
) -> Config:
    """Resolve the vault, the database and the settings, refusing anything that cannot work."""
    environ = os.environ if env is None else env
    vault_value = vault if vault is not None else environ.get("VAULT_PATH")
    if vault_value is None or str(vault_value).strip() == "":
        raise ConfigError(
            "no vault given",
            "pass --vault PATH (or set VAULT_PATH) to the folder of your notes",
        )
    vault_path = Path(vault_value).expanduser()
    if not vault_path.exists():
        raise ConfigError(
            f"vault folder not found: {vault_path}", "check the path given to --vault"
        )
    if not vault_path.is_dir():
        raise ConfigError(
            f"vault path is not a folder: {vault_path}", "pass the folder of your notes to --vault"
        )
    vault_path = vault_path.resolve()

    settings = Settings()
    config_dir = user_config_dir or Path(platformdirs.user_config_dir(APP_NAME))
    user_file = config_dir / CONFIG_FILE_NAME
    user_db: str | None = None
    if user_file.is_file():
        user_data = read_toml(user_file)
        user_db = _user_db_setting(user_data, user_file)
        settings = _settings_from(user_data, user_file, settings)
    vault_file = vault_path / CONFIG_FILE_NAME
    if vault_file.is_file() and not is_user_file(vault_file, user_file):
        data = read_toml(vault_file)
        _refuse_vault_db_setting(data, vault_file, user_file)
        embedding = data.get("embedding")
        if isinstance(embedding, dict):  # read from the user's file only (agent/remote_embed.py)
            without_destinations("embedding", embedding, vault_file, user_file)
        own = without_destinations("", data, vault_file, user_file)
        settings = _settings_from(own, vault_file, settings, user_file=user_file)

    db_value = db if db is not None else environ.get("DB_PATH") or environ.get("DB_URL") or user_db
    if isinstance(db_value, PostgresLocation):
        location: IndexLocation = db_value
    elif db_value:
        from_user_file = (
            db is None
            and db_value == user_db
            and not (environ.get("DB_PATH") or environ.get("DB_URL"))
        )
        location = index_location(
            db_value, vault_path, config_file=user_file if from_user_file else None
        )
    else:
        location = default_db_path(vault_path)
    check_db_location(vault_path, location)
    return Config(vault=vault_path, db=location, settings=settings)


# Where the index lives, in a settings file: the user's own only (``db_url`` a PostgreSQL URL,
# ``db_path`` a file). A vault's file travels with the vault; were it trusted with these, opening
# a vault could send every note's text to a database server of its author's choosing.
DB_KEYS = ("db_url", "db_path")


def _user_db_setting(data: dict[str, Any], source: Path) -> str | None:
    found: str | None = None
    for key in DB_KEYS:
        value = data.pop(key, None)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f"{source}: '{key}' must be a non-empty string, got {value!r}",
                f'write it as {key} = "postgresql://user@host/dbname"'
                if key == "db_url"
                else f'write it as {key} = "/path/to/index.db"',
            )
        if key == "db_url" and not is_postgres_url(value):
            raise ConfigError(
                f"{source}: 'db_url' must be a postgresql:// URL, got {value!r}",
                "use db_path for an index file, or write the URL as postgresql://user@host/db",
            )
        found = found or value
    return found


def _refuse_vault_db_setting(data: dict[str, Any], source: Path, user_file: Path) -> None:
    for key in DB_KEYS:
        if key in data:
            raise ConfigError(
                f"{source}: '{key}' decides where your notes' text is stored, so only your own "
                "settings file may set it, not a vault's",
                f"remove it from {source}; set it in your own settings file {user_file}, or pass "
                "--db",
            )
