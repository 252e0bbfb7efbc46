from __future__ import annotations

import shutil
from pathlib import Path

import apsw
import pytest

import vaultctx.index.db as db_module
from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.index import indexer as indexer_module
from vaultctx.index.db import IndexMissingError
from vaultctx.index.text_codec import pack_text
from vaultctx.scrub.fingerprint import SCRUBBER_META, scrubber_fingerprint
from vaultctx.search.budget import estimate_tokens


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("ret")
    vault_dir = root / "vault"
    copy_example_vault(vault_dir)
    vault = Vault(vault_dir, db=root / "index.db")
    vault.index(fast=True)
    return vault


def test_result_shape(indexed: Vault) -> None:
    response = indexed.search("SQLite WAL busy timeout", limit=5)
    assert 0 < response.count <= 5
    first = response.results[0]
    assert first.file_path.endswith(".md") and not first.file_path.startswith("/")
    assert first.citation.startswith(first.file_path)
    if first.section:
        assert first.citation == f"{first.file_path}#{first.section}"
    assert first.bm25_rank is not None or first.vec_rank is not None
    scores = [r.score for r in response.results]
    assert scores == sorted(scores, reverse=True)
    assert response.as_dict()["count"] == response.count


def test_modes_report_only_their_ranks(indexed: Vault) -> None:
    bm25 = indexed.search("postmortem incident", mode="bm25")
    assert all(r.vec_rank is None and r.bm25_rank is not None for r in bm25.results)
    vector = indexed.search("postmortem incident", mode="vector")
    assert all(r.bm25_rank is None and r.vec_rank is not None for r in vector.results)


def test_notes_mode_one_result_per_note(indexed: Vault) -> None:
    response = indexed.search("notes", limit=10, notes=True)
    paths = [r.file_path for r in response.results]
    assert len(paths) == len(set(paths))


def test_token_budget_holds(indexed: Vault) -> None:
    response = indexed.search("project", limit=10, max_tokens=120)
    assert sum(estimate_tokens(r.text) for r in response.results) <= 120
    assert response.results, "the best result is truncated, never dropped"


def test_secrets_scrubbed_on_output(indexed: Vault) -> None:
    response = indexed.search("AKIAZ7VRSQ5TJN2UEXAM aws access key", limit=10)
    assert all("AKIAZ7VRSQ5TJN2UEXAM" not in r.text for r in response.results)


def test_weird_queries_never_fail(indexed: Vault) -> None:
    for query in ['"', "-", "*", "NOT AND OR", "(", "_rrf_fuse", "--incremental", "a:b", "🙂"]:
        indexed.search(query)


def test_context_block_has_sources_and_fits(indexed: Vault) -> None:
    block = indexed.context("database tuning", max_tokens=300)
    assert block.sources and all(s in block.markdown for s in block.sources)
    assert estimate_tokens(block.markdown) <= 300


def test_no_database_names_the_command(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    vault = Vault(tmp_path / "v", db=tmp_path / "missing.db")
    with pytest.raises(IndexMissingError) as raised:
        vault.search("x")
    assert raised.value.suggestion == f"run `{vault.index_command()}`", "this vault's command"


def test_without_sqlite_vec_bm25_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import EXAMPLE_VAULT

    def refuse(conn: apsw.Connection) -> None:
        return None  # as if the sqlite-vec wheel were missing on this platform

    monkeypatch.setattr(db_module, "_load_vec", refuse)
    vault = Vault(EXAMPLE_VAULT, db=tmp_path / "novec.db")
    report = vault.index(fast=True)
    assert report.chunks_written > 0 and report.chunks_embedded == 0
    response = vault.search("incident postmortem")
    assert response.results and all(r.vec_rank is None for r in response.results)
    assert any("keyword search only" in n for n in response.notices)


def test_without_fts_vectors_only(indexed: Vault, tmp_path: Path) -> None:
    copy = tmp_path / "nofts.db"
    shutil.copy(indexed.db_path, copy)
    conn = apsw.Connection(str(copy))
    conn.execute("DROP TABLE chunks_fts")
    conn.close()
    vault = Vault(indexed.path, db=copy)
    response = vault.search("incident postmortem")
    assert response.results and all(r.bm25_rank is None for r in response.results)
    assert any("vector search only" in n for n in response.notices)


def test_korean_query_is_carried_by_bm25(indexed: Vault) -> None:
    response = indexed.search("회의록", limit=5)
    # English-only vectors get no weight for a Korean query: every result comes from BM25.
    assert all(r.bm25_rank is not None for r in response.results)


def _plant_secret(db_path: Path, secret: str) -> None:
    """A chunk text the current scrubber never saw, as an index from an older vaultctx holds."""
    conn = apsw.Connection(str(db_path))
    chunk_id = conn.execute("SELECT min(id) FROM chunks").fetchone()[0]
    conn.execute(
        "UPDATE chunks SET body = ? WHERE id = ?",
        (pack_text(f"Old note: token {secret} here."), chunk_id),
    )
    conn.execute(
        "INSERT INTO chunks_fts(rowid, chunk_text) VALUES (?, 'plantedmarker')", (chunk_id,)
    )
    conn.close()


def test_output_is_scrubbed_again_unless_this_scrubber_wrote_every_chunk(
    indexed: Vault, tmp_path: Path
) -> None:
    copy = tmp_path / "planted.db"
    shutil.copy(indexed.db_path, copy)
    secret = "ghp_" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3kL5"
    _plant_secret(copy, secret)
    conn = apsw.Connection(str(copy))
    assert (
        conn.execute("SELECT value FROM model_meta WHERE key = ?", (SCRUBBER_META,)).fetchone()[0]
        == scrubber_fingerprint()
    ), "a fresh index records the scrubber that wrote it"
    conn.execute("UPDATE model_meta SET value = 'mixed' WHERE key = ?", (SCRUBBER_META,))
    conn.close()
    texts = [
        r.text for r in Vault(indexed.path, db=copy).search("plantedmarker", mode="bm25").results
    ]
    assert texts and all(secret not in t for t in texts)
    assert any("[REDACTED:" in t for t in texts)


def test_scrubber_change_withdraws_the_claim_until_a_full_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    vault = Vault(copy_example_vault(tmp_path / "vault"), db=tmp_path / "i.db")
    vault.index(fast=True)

    def meta() -> str:
        conn = apsw.Connection(str(tmp_path / "i.db"))
        try:
            row = conn.execute("SELECT value FROM model_meta WHERE key = ?", (SCRUBBER_META,))
            return str(row.fetchone()[0])
        finally:
            conn.close()

    assert meta() == scrubber_fingerprint()
    monkeypatch.setattr(indexer_module, "scrubber_fingerprint", lambda: "newer-scrubber")
    vault.index(fast=True)
    assert meta() == "mixed"
    vault.index(fast=True, full=True)
    assert meta() == "newer-scrubber"
