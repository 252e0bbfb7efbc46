"""Where a vault's index lives when no ``--db`` or ``DB_PATH`` says: one file per vault in the
user's data folder, so sync tools never copy it.

Apart from ``config`` (which re-exports it) so that the CLI, before it asks a running server,
can name the index without importing the settings machinery (dataclasses, TOML).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

APP_NAME = "vaultctx"


def default_db_path(vault: Path) -> Path:
    """One database per vault in the user's data dir, so sync tools never copy the index."""
    resolved = vault.expanduser().resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", resolved.name).strip("-") or "vault"
    return Path(platformdirs.user_data_dir(APP_NAME)) / f"{slug}-{digest}.db"


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_SCHEMA_SLUG = re.compile(r"[^a-z0-9]+")


def is_postgres_url(value: str) -> bool:
    return value.strip().lower().startswith(POSTGRES_SCHEMES)


@dataclass(frozen=True)
class PostgresLocation:
    """One vault's index in a PostgreSQL database: the server's URL, and the vault, whose
    resolved path names its schema there (several vaults share one database)."""

    url: str
    vault: str
    # The user's settings file the URL came from, or None for --db and the environment: a
    # password in the URL is accepted only from a private settings file (docs/postgres.md). Not
    # part of the location's identity: the same URL from either source is the same index.
    config_file: str | None = field(default=None, compare=False)

    @property
    def schema(self) -> str:
        """``v_<name>_<digest>``: readable in ``\\dn``, unique per vault path, a valid
        identifier of at most 63 bytes whatever the folder is called."""
        digest = hashlib.sha256(self.vault.encode()).hexdigest()[:10]
        slug = _SCHEMA_SLUG.sub("_", Path(self.vault).name.lower()).strip("_")[:40] or "vault"
        return f"v_{slug}_{digest}"

    def __str__(self) -> str:
        """The URL without its password (user output and logs), and the vault's schema."""
        return f"{redacted_url(self.url)} (schema {self.schema})"


def redacted_url(url: str) -> str:
    """``url`` with any password replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


# Where a vault's index lives: a SQLite file, or a schema in a PostgreSQL database.
IndexLocation = Path | PostgresLocation


def index_location(
    value: str | Path, vault: Path, *, config_file: Path | None = None
) -> IndexLocation:
    """``--db``/``DB_PATH``/``db_url`` as a location: a PostgreSQL URL or a file path.
    ``config_file``: the user's settings file ``value`` was read from (None: the command line or
    the environment)."""
    if isinstance(value, str) and is_postgres_url(value):
        return PostgresLocation(
            url=value.strip(),
            vault=str(vault.expanduser().resolve()),
            config_file=None if config_file is None else str(config_file),
        )
    return Path(value).expanduser().resolve()


def local_anchor(location: IndexLocation) -> Path:
    """A file path naming this index on this machine, for the files kept beside it (caches,
    session records, the running server's address): the index file itself, or for a PostgreSQL
    index the file a local index of the vault would be."""
    if isinstance(location, PostgresLocation):
        return default_db_path(Path(location.vault))
    return location
