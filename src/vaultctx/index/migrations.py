"""Append-only, numbered schema migrations (the idea is simonw/llm's).

Each migration is a tiny function; a database records which ones ran in ``_migrations``. A
database that knows a migration this code does not (written by a newer vaultctx) cannot be
trusted and is rebuilt from the vault, which is always possible because the index is derived.
Vector tables are not here: their dimension depends on the embedding engine (see ``db.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Migration = Callable[[Any], None]


def m001_create_tables(conn: Any) -> None:
    conn.execute(
        """
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            title TEXT NOT NULL,
            type TEXT,
            status TEXT,
            front_matter TEXT NOT NULL DEFAULT '{}',
            tags TEXT NOT NULL DEFAULT '[]',
            aliases TEXT NOT NULL DEFAULT '[]',
            problems TEXT NOT NULL DEFAULT '[]',
            indexed_at REAL NOT NULL
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            file_path TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            section TEXT NOT NULL,
            heading_path TEXT NOT NULL DEFAULT '',
            chunk_text TEXT NOT NULL,
            heading_context TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            embedded_at REAL
        );
        CREATE INDEX chunks_file ON chunks(file_id, ordinal);
        CREATE TABLE file_tags (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            tag TEXT NOT NULL COLLATE NOCASE
        );
        CREATE INDEX file_tags_tag ON file_tags(tag);
        CREATE INDEX file_tags_file ON file_tags(file_id);
        CREATE TABLE links (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            heading TEXT,
            block TEXT,
            alias TEXT,
            kind TEXT NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE INDEX links_file ON links(file_id);
        CREATE INDEX links_target ON links(target COLLATE NOCASE);
        CREATE TABLE model_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """
    )


def m002_fts(conn: Any) -> None:
    """FTS5 over chunks as external content, kept in sync by triggers
    (docs/reference.md#storage)."""
    conn.execute(
        """
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            chunk_text, section, heading_context,
            content='chunks', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, chunk_text, section, heading_context)
            VALUES (new.id, new.chunk_text, new.section, new.heading_context);
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, chunk_text, section, heading_context)
            VALUES ('delete', old.id, old.chunk_text, old.section, old.heading_context);
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF chunk_text, section, heading_context ON chunks
        BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, chunk_text, section, heading_context)
            VALUES ('delete', old.id, old.chunk_text, old.section, old.heading_context);
            INSERT INTO chunks_fts(rowid, chunk_text, section, heading_context)
            VALUES (new.id, new.chunk_text, new.section, new.heading_context);
        END;
        """
    )


def m003_quality_pass(conn: Any) -> None:
    """Pass 2 stamps each chunk once its transformer vector is stored (see quality_pass.py)."""
    conn.execute(
        """
        ALTER TABLE chunks ADD COLUMN quality_embedded_at REAL;
        CREATE INDEX chunks_quality_todo ON chunks(id) WHERE quality_embedded_at IS NULL;
        """
    )


def m004_compact_chunks(conn: Any) -> None:
    """Compressed chunk text and a contentless FTS table that the indexer fills itself.

    The external-content FTS table needed the plain text in ``chunks``, which was over half the
    database; the indexer now writes each chunk's analysed text (``text.lexical.fts_document``,
    which adds Korean morphemes) straight into FTS. Every note is indexed again: the index is
    derived, so the vault rebuilds it.
    """
    conn.execute(
        """
        DROP TRIGGER IF EXISTS chunks_ai;
        DROP TRIGGER IF EXISTS chunks_ad;
        DROP TRIGGER IF EXISTS chunks_au;
        DROP TABLE IF EXISTS chunks_fts;
        DROP TABLE IF EXISTS chunk_vecs;
        DROP TABLE IF EXISTS chunk_vecs_quality;
        DELETE FROM model_meta WHERE key LIKE 'chunk_vecs%' OR key = 'run_started';
        DELETE FROM file_tags;
        DELETE FROM links;
        DROP TABLE chunks;
        DELETE FROM files;
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            section TEXT NOT NULL,
            heading_path TEXT NOT NULL DEFAULT '',
            body BLOB NOT NULL,
            heading_context TEXT NOT NULL,
            text_hash BLOB NOT NULL,
            mtime_ns INTEGER NOT NULL,
            embedded_at REAL,
            quality_embedded_at REAL
        );
        CREATE INDEX chunks_file ON chunks(file_id, ordinal);
        CREATE INDEX chunks_quality_todo ON chunks(id) WHERE quality_embedded_at IS NULL;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            chunk_text, section, heading_context,
            content='', contentless_delete=1,
            tokenize='porter unicode61 remove_diacritics 2'
        );
        """
    )


def m005_rescrub_metadata(conn: Any) -> None:
    """Tags, aliases, type, status, problems and link fields are scrubbed before storage now; an
    older index holds them raw. Every file is read again on the next run (its vectors are reused
    by text hash, so nothing is re-embedded whose text did not change)."""
    conn.execute("UPDATE files SET mtime_ns = 0, content_hash = ''")


def m006_record_fts_tokenizer(conn: Any) -> None:
    """The FTS tokenizer as metadata, which status reads instead of parsing the table's DDL."""
    conn.execute(
        "INSERT OR REPLACE INTO model_meta(key, value) VALUES ('fts_tokenizer', ?)",
        ("porter unicode61 remove_diacritics 2",),
    )


def m007_chunk_language(conn: Any) -> None:
    """Each chunk's language (text/language.py), so search can route a question to the rankers
    that read both it and the notes, and the stamp of the multilingual vector pass. Chunks of an
    older index get their language here, from their stored text: nothing is re-read or
    re-embedded."""
    from vaultctx.index.text_codec import unpack_text
    from vaultctx.text.language import text_language

    conn.execute(
        """
        ALTER TABLE chunks ADD COLUMN lang TEXT NOT NULL DEFAULT 'en';
        ALTER TABLE chunks ADD COLUMN multi_embedded_at REAL;
        CREATE INDEX chunks_lang ON chunks(lang);
        """
    )
    found = [
        (
            int(cid),
            text_language(f"{context}\n{unpack_text(body)}" if context else unpack_text(body)),
        )
        for cid, context, body in conn.execute("SELECT id, heading_context, body FROM chunks")
    ]
    conn.executemany(
        "UPDATE chunks SET lang = ? WHERE id = ?",
        [(lang, cid) for cid, lang in found if lang != "en"],
    )
    languages: dict[str, int] = {}
    for _, lang in found:
        languages[lang] = languages.get(lang, 0) + 1
    conn.execute(
        "INSERT OR REPLACE INTO model_meta(key, value) VALUES ('chunk_languages', ?)",
        (json.dumps(languages, sort_keys=True),),
    )


MIGRATIONS: tuple[Migration, ...] = (
    m001_create_tables,
    m002_fts,
    m003_quality_pass,
    m004_compact_chunks,
    m005_rescrub_metadata,
    m006_record_fts_tokenizer,
    m007_chunk_language,
)
