"""What ``vaultctx status`` shows about an index: counts, models, the last run, notes to act on.

Read-only, and cheap enough for every ``status`` call: the Korean share comes from a sample of
chunks, not the whole index.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vaultctx.db_location import IndexLocation
from vaultctx.index.db import (
    POSTGRES,
    IndexDatabase,
    IndexMissingError,
    index_is_writable,
    open_index,
)
from vaultctx.index.inspect import counts, fts_tokenizer, sample_chunk_texts
from vaultctx.index.language_coverage import language_coverage
from vaultctx.index.schema import (
    META_LAST_RUN,
    META_MODEL_HASH,
    META_MODEL_NAME,
    META_QUALITY_MODEL_NAME,
)
from vaultctx.scrub.fingerprint import SCRUBBER_META, scrubber_fingerprint
from vaultctx.text.cjk import hangul_word_share
from vaultctx.text.lexical import FTS_ANALYZER_META


@dataclass(frozen=True)
class IndexStatus:
    """What ``vaultctx status`` shows; ``as_dict`` is its ``--json`` form."""

    vault: str
    db: str
    exists: bool
    files: int = 0
    chunks: int = 0
    vectors: int = 0
    model_name: str | None = None
    model_hash: str | None = None
    quality_vectors: int = 0
    quality_chunks: int = 0  # chunks pass 2 embeds; the rest read by the multilingual vectors
    quality_model_name: str | None = None
    last_run: dict[str, Any] | None = None
    db_bytes: int = 0
    sqlite_version: str | None = None
    vec_version: str | None = None
    fts_tokenizer: str | None = None
    problems: int = 0
    fts_analyzer: str | None = None  # text.lexical.analyzer_id() the keyword index was built with
    korean_share: float = 0.0  # share of Korean words, from a sample of chunks
    language_note: str | None = None  # set when some language has keyword search only
    # The chunks' languages (code → share) and which engines read them (language_coverage.py).
    languages: dict[str, float] = field(default_factory=dict)
    meaning_search: str | None = None
    scrubber_note: str | None = None  # set when chunks predate this version's scrubber
    writable: bool = True  # False: searchable, but `vaultctx index` cannot update it there
    # Which store holds the index; for PostgreSQL the server's facts (IndexDatabase.server_facts).
    store: str = "sqlite"
    server_version: str | None = None
    pgvector_version: str | None = None
    tls: bool | None = None
    tls_version: str | None = None
    schema: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def index_status(vault: Path, db_path: IndexLocation) -> IndexStatus:
    """The status of the index at ``db_path``; ``exists`` is False when there is none yet."""
    base: dict[str, Any] = {"vault": str(vault), "db": str(db_path)}
    try:
        db = open_index(db_path, readonly=True)
    except IndexMissingError:
        return IndexStatus(**base, exists=False)
    try:
        numbers = counts(db)
        share = korean_share(db)
        english = [
            name
            for name, stored in (
                (db.meta(META_MODEL_NAME), numbers.vectors),
                (db.meta(META_QUALITY_MODEL_NAME), numbers.quality_vectors),
            )
            if name and stored
        ]
        coverage = language_coverage(db, english)
        return IndexStatus(
            **base,
            exists=True,
            quality_vectors=numbers.quality_vectors,
            quality_chunks=numbers.quality_chunks,
            quality_model_name=db.meta(META_QUALITY_MODEL_NAME),
            files=numbers.files,
            chunks=numbers.chunks,
            vectors=numbers.vectors,
            model_name=db.meta(META_MODEL_NAME),
            model_hash=db.meta(META_MODEL_HASH),
            last_run=db.meta_json(META_LAST_RUN),
            db_bytes=stored_bytes(db),
            sqlite_version=db.capabilities.sqlite_version,
            vec_version=db.capabilities.vec_version,
            fts_tokenizer=fts_tokenizer(db),
            fts_analyzer=db.meta(FTS_ANALYZER_META),
            korean_share=round(share, 3),
            language_note=coverage.sentence if coverage and coverage.uncovered else None,
            languages={k: round(v, 3) for k, v in coverage.shares.items()} if coverage else {},
            meaning_search=coverage.sentence if coverage else None,
            scrubber_note=_scrubber_note(db),
            problems=numbers.notes_with_problems,
            writable=index_is_writable(db_path),
            **server_fields(db),
        )
    finally:
        db.close()


def server_fields(db: IndexDatabase) -> dict[str, Any]:
    """``store`` and, on a database server, its facts: the keys ``status --json`` adds."""
    facts = db.server_facts()
    if facts is None:
        return {"store": "sqlite"}
    return {"store": "postgresql", **facts}


def indexed_korean_share(db_path: IndexLocation) -> float:
    """``korean_share`` of the index at ``db_path``; 0.0 when there is none yet."""
    try:
        db = open_index(db_path, readonly=True)
    except IndexMissingError:
        return 0.0
    try:
        return korean_share(db)
    finally:
        db.close()


def korean_share(db: IndexDatabase, samples: int = 200) -> float:
    """Share of Korean words in chunks spread evenly over the index: a sample keeps status fast."""
    return hangul_word_share(sample_chunk_texts(db, samples))


def stored_bytes(db: IndexDatabase) -> int:
    """What the index takes on disk: its file and WAL, or its schema's tables and indexes."""
    if db.dialect == POSTGRES:
        return int(
            db.scalar(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            )
        )
    assert isinstance(db.path, Path)
    return database_bytes(db.path)


def database_bytes(db: Path) -> int:
    """The index file and its write-ahead log, as the disk holds them."""
    total = 0
    for suffix in ("", "-wal"):
        candidate = Path(f"{db}{suffix}")
        if candidate.exists():
            total += candidate.stat().st_size
    return total


def _scrubber_note(db: IndexDatabase) -> str | None:
    """Chunks scrubbed by an older scrubber are still safe (every output is scrubbed again), but
    each query pays for that second pass until a full reindex records this scrubber."""
    stored = db.meta(SCRUBBER_META)
    if stored is None or stored == scrubber_fingerprint():
        return None
    return (
        "some chunks were scrubbed by an older credential scrubber, so search output is "
        "scrubbed again (slower queries); `vaultctx index --full` rescrubs them"
    )
