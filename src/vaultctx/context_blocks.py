"""Named context blocks (docs/reference.md#integration): saved queries whose result is cached and
reused.

A block is declared in ``vaultctx.toml`` (user config dir, then the vault; the vault's wins)::

    [blocks.auth-patterns]
    query = "authentication patterns implementation"
    max_tokens = 1500
    ttl_hours = 24

``vaultctx context --block auth-patterns`` answers from the cache while it is valid and rebuilds
it when it is not. A cached block is invalid when its TTL has passed, when its declaration
changed, or when a note that contributed to it was edited, moved or deleted (each contributing
file's ``mtime_ns`` and size are stored and compared on every read). A note that *would* now
contribute but did not before is only picked up at the next rebuild: the TTL bounds that delay.

The cache is a JSON file beside the index (``<db>.blocks.json``): only the indexer writes the
database, and a block is derived data that can always be rebuilt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import platformdirs

from vaultctx.atomic_write import write_atomically
from vaultctx.config import APP_NAME, CONFIG_FILE_NAME, Config, ConfigError, read_toml
from vaultctx.db_location import local_anchor

DEFAULT_MAX_TOKENS = 1500
DEFAULT_TTL_HOURS = 24.0
CACHE_SUFFIX = ".blocks.json"
_KEYS = ("query", "max_tokens", "ttl_hours")
_BLOCK_EXAMPLE = (
    'declare each block as a table, e.g. [blocks.deploy] with query = "deployment checklist", '
    "max_tokens = 1500, ttl_hours = 24"
)


class UnknownBlockError(ConfigError):
    """The block name is not declared; the message lists the ones that are."""


@dataclass(frozen=True)
class BlockSpec:
    name: str
    query: str
    max_tokens: int = DEFAULT_MAX_TOKENS
    ttl_hours: float = DEFAULT_TTL_HOURS


@dataclass(frozen=True)
class BlockResult:
    """A block's text and sources, and whether they came from the cache."""

    name: str
    query: str
    markdown: str
    sources: list[str]
    built_at: float
    expires_at: float
    cached: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def config_files(config: Config, user_config_dir: Path | None = None) -> list[Path]:
    """The files blocks are read from, in precedence order (later wins), as for settings."""
    folder = user_config_dir or Path(platformdirs.user_config_dir(APP_NAME))
    return [folder / CONFIG_FILE_NAME, config.vault / CONFIG_FILE_NAME]


def load_block_specs(files: Sequence[Path]) -> dict[str, BlockSpec]:
    """Every ``[blocks.NAME]`` table of ``files``; a malformed one is an error naming the fix."""
    specs: dict[str, BlockSpec] = {}
    for path in files:
        if not path.is_file():
            continue
        blocks = read_toml(path).get("blocks", {})
        if not isinstance(blocks, Mapping):
            raise ConfigError(
                f"{path}: 'blocks' must be a table of [blocks.NAME] tables", _BLOCK_EXAMPLE
            )
        for name, table in blocks.items():
            specs[name] = _spec(path, name, table)
    return specs


def _spec(path: Path, name: str, table: Any) -> BlockSpec:
    where = f"{path}: [blocks.{name}]"
    if not isinstance(table, Mapping):
        raise ConfigError(
            f"{where} must be a table with query, max_tokens and ttl_hours", _BLOCK_EXAMPLE
        )
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r}", f"use the known keys: {', '.join(_KEYS)}"
        )
    query = table.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ConfigError(f"{where} needs a query", 'add one, e.g. query = "deployment checklist"')
    max_tokens = table.get("max_tokens", DEFAULT_MAX_TOKENS)
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 50:
        raise ConfigError(
            f"{where}: max_tokens must be a whole number of at least 50",
            f"write e.g. max_tokens = {DEFAULT_MAX_TOKENS}",
        )
    ttl = table.get("ttl_hours", DEFAULT_TTL_HOURS)
    if not isinstance(ttl, (int, float)) or isinstance(ttl, bool) or ttl <= 0:
        raise ConfigError(
            f"{where}: ttl_hours must be a number above 0",
            f"write e.g. ttl_hours = {DEFAULT_TTL_HOURS}",
        )
    return BlockSpec(name, query.strip(), max_tokens, float(ttl))


class _Hit(Protocol):
    @property
    def file_path(self) -> str: ...


class _Context(Protocol):
    """What a block is built from: ``Vault.context``'s answer (markdown, sources, hits)."""

    @property
    def markdown(self) -> str: ...
    @property
    def sources(self) -> list[str]: ...
    @property
    def results(self) -> Sequence[_Hit]: ...


# ``Vault.context(query, max_tokens=…)``: passed in, so this feature stands on the API rather than
# inside it (the API module imports this one, never the other way round).
ContextFunction = Callable[..., _Context]


def cache_path(db: Path) -> Path:
    return Path(f"{db}{CACHE_SUFFIX}")


def get_block(
    config: Config,
    context: ContextFunction,
    name: str,
    *,
    refresh: bool = False,
    files: Sequence[Path] | None = None,
    now: float | None = None,
) -> BlockResult:
    """The block ``name``: from the cache when still valid, else rebuilt and cached."""
    specs = load_block_specs(files if files is not None else config_files(config))
    spec = specs.get(name)
    if spec is None:
        defined = ", ".join(sorted(specs)) or "none"
        raise UnknownBlockError(
            f"no context block named {name!r} (defined: {defined})",
            f"declare it in {config.vault / CONFIG_FILE_NAME} as [blocks.{name}] with a query",
        )
    moment = time.time() if now is None else now
    cache = _read_cache(cache_path(local_anchor(config.db)))
    entry = cache.get(name)
    if not refresh and isinstance(entry, dict) and _still_valid(entry, spec, config.vault, moment):
        return _result(name, entry, cached=True)
    block = context(spec.query, max_tokens=spec.max_tokens)
    entry = {
        "query": spec.query,
        "max_tokens": spec.max_tokens,
        "ttl_hours": spec.ttl_hours,
        "markdown": block.markdown,
        "sources": block.sources,
        "built_at": moment,
        "files": {
            path: _fingerprint(config.vault, path)
            for path in dict.fromkeys(r.file_path for r in block.results)
        },
    }
    cache[name] = entry
    _write_cache(cache_path(local_anchor(config.db)), cache)
    return _result(name, entry, cached=False)


def _result(name: str, entry: dict[str, Any], *, cached: bool) -> BlockResult:
    built = float(entry["built_at"])
    return BlockResult(
        name=name,
        query=str(entry["query"]),
        markdown=str(entry["markdown"]),
        sources=[str(s) for s in entry["sources"]],
        built_at=built,
        expires_at=built + float(entry["ttl_hours"]) * 3600,
        cached=cached,
    )


def _still_valid(entry: dict[str, Any], spec: BlockSpec, vault: Path, now: float) -> bool:
    try:
        if (entry["query"], entry["max_tokens"], entry["ttl_hours"]) != (
            spec.query,
            spec.max_tokens,
            spec.ttl_hours,
        ):
            return False
        if now >= float(entry["built_at"]) + spec.ttl_hours * 3600:
            return False
        return all(
            _fingerprint(vault, path) == stored for path, stored in dict(entry["files"]).items()
        )
    except (KeyError, TypeError, ValueError):
        return False  # a cache written by another version: rebuild


def _fingerprint(vault: Path, path: str) -> list[int] | None:
    """(mtime_ns, size) of a contributing note, the indexer's own change test; None if gone."""
    try:
        stat = (vault / path).stat()
    except OSError:
        return None
    return [stat.st_mtime_ns, stat.st_size]


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: every block is simply rebuilt
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, cache: dict[str, Any]) -> None:
    """Atomic replace, so a concurrent reader sees the old cache or the new one, never half;
    0600, as the cache holds excerpts of private notes."""
    write_atomically(path, json.dumps(cache, ensure_ascii=False), mode=0o600)
