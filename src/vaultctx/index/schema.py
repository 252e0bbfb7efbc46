"""Names the index's schema is made of, for every layer that reads it: one spelling each.

The tables themselves are created by the numbered migrations (``migrations.py``); vector tables
depend on the engine's dimension and are created by ``db.ensure_vector_table``.
"""

from __future__ import annotations

VECTOR_TABLE = "chunk_vecs"  # pass-1 vectors (the static engine)
QUALITY_TABLE = "chunk_vecs_quality"  # pass-2 vectors (the transformer)
# Multilingual vectors, for the chunks and questions the English models cannot read
# (index/multilingual_pass.py decides which chunks; search/language_routing.py which questions).
MULTI_TABLE = "chunk_vecs_multi"
VECTOR_TABLES = (VECTOR_TABLE, QUALITY_TABLE, MULTI_TABLE)
FTS_TABLE = "chunks_fts"
# FTS5's tokenizer for chunks_fts, recorded in model_meta so readers never parse the table's DDL.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

# model_meta keys
META_FTS_TOKENIZER = "fts_tokenizer"
META_MODEL_NAME = "model_name"
META_MODEL_HASH = "model_hash"
META_QUALITY_MODEL_NAME = "quality_model_name"
META_QUALITY_MODEL_HASH = "quality_model_hash"
META_MULTI_MODEL_NAME = "multi_model_name"
META_MULTI_MODEL_HASH = "multi_model_hash"
# JSON {language code: chunk count}, rewritten after every pass 1 (text/language.py's codes).
META_CHUNK_LANGUAGES = "chunk_languages"
META_LAST_RUN = "last_run"
META_RUN_STARTED = "run_started"
META_INDEX_SIGNATURE = "index_signature"
