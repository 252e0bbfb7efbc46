"""Both stores for the same test: a SQLite file, or the vault's schema in a PostgreSQL database
(``postgres_url``, tests/postgres_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.db_location import IndexLocation, PostgresLocation


def location_for(
    kind: str, vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> IndexLocation:
    if kind == "sqlite":
        return tmp_path / "index.db"
    url = request.getfixturevalue("postgres_url")
    return PostgresLocation(url=url, vault=str(vault.resolve()))
