"""Both stores for the same test: a SQLite file, or the vault's schema in a PostgreSQL database
(``postgres_url``, tests/postgres_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.db_location import IndexLocation, PostgresLocation


def location_for(
    kind: str, vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> IndexLocation:
    if kind == "sqlite":
        return tmp_path / "index.db"
    url = request.getfixturevalue("postgres_url")
    return PostgresLocation(url=url, vault=str(vault.resolve()))


def assert_same_searches(
    vault: Path, expected_at: IndexLocation, found_at: IndexLocation, queries: list[str]
) -> None:
    """Hybrid search over both indexes gives the same notes, ranks and scores (1e-4)."""
    for query in queries:
        expected = Vault(vault, db=expected_at).search(query, limit=8).results
        found = Vault(vault, db=found_at).search(query, limit=8).results
        assert [(r.citation, r.bm25_rank, r.vec_rank) for r in found] == [
            (r.citation, r.bm25_rank, r.vec_rank) for r in expected
        ], query
        assert [r.score for r in found] == pytest.approx([r.score for r in expected], abs=1e-4)
