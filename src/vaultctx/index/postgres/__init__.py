"""The PostgreSQL + pgvector store: one schema per vault in a shared database.

``store.py`` opens a vault's schema (ownership, migrations), ``dialect.py`` translates the
portable statements of ``index/``, ``fts.py`` keeps the analysed tokens and ranks them exactly as
SQLite's FTS5 ``bm25()`` does, ``vectors.py`` keeps the vectors in pgvector. Only ``index/``
imports this package, and nothing outside ``index/`` imports psycopg (docs/postgres.md).
"""
