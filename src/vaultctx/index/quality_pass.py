"""Pass 2: upgrade chunks to transformer vectors in the background of a usable index.

Pass 1 (BM25 + static vectors) makes a vault searchable in seconds; the transformer is ~50× slower,
so its vectors are filled afterwards, batch by batch. Each batch is one transaction that writes the
vectors *and* stamps ``chunks.quality_embedded_at``, so the pass is resumable after Ctrl-C or a
kill: it always continues with the chunks that have no stamp. New or edited chunks are created
unstamped, so later incremental runs keep the pass current. Search stays correct while the pass is
partial because it queries the static vectors for as long as any chunk lacks a quality vector
(``retriever`` documents the rule).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from vaultctx.embed.base import Embedder, Vectors, embedding_input, quantize_int8
from vaultctx.errors import VaultctxError
from vaultctx.index.db import IndexDatabase, ensure_vector_table, vector_storage
from vaultctx.index.schema import (
    META_MULTI_MODEL_HASH,
    META_MULTI_MODEL_NAME,
    META_QUALITY_MODEL_HASH,
    META_QUALITY_MODEL_NAME,
    MULTI_TABLE,
    QUALITY_TABLE,
)
from vaultctx.index.text_codec import unpack_text

# Chunks per embed() call between two looks at the stop request: about 12 windows (the ONNX
# engine runs them one per model call), a fraction of a second, so Ctrl-C is answered within a
# second even on a busy machine. Taken in order of length, slices of 8 embed as fast as whole
# batches of 64 (measured), and a remote engine's request holds texts of similar length.
STOP_CHECK_CHUNKS = 8


@dataclass(frozen=True)
class VectorPass:
    """A background pass's table, the ``chunks`` column that stamps its chunks, its model's meta
    keys, and which chunks it embeds (an SQL condition on ``chunks``; "TRUE": all).

    Pass 2 (the quality transformer) and the multilingual pass (multilingual_pass.py) are the
    same loop over different tables; ``scope`` is fixed SQL from this package, never user text.
    """

    table: str
    stamp: str
    hash_key: str
    name_key: str
    last_run_key: str
    scope: str = "TRUE"


QUALITY_PASS = VectorPass(
    QUALITY_TABLE,
    "quality_embedded_at",
    META_QUALITY_MODEL_HASH,
    META_QUALITY_MODEL_NAME,
    "quality_last_run",
)
# Pass 2's scope on a vault where no search reads the English vectors of chunks the multilingual
# pass covers (multilingual_pass.py, ``choose_quality_pass``): the English chunks, and any chunk
# still without a multilingual vector. Stored by name in ``model_meta``, never as SQL.
QUALITY_SCOPE_META = "quality_scope"
ENGLISH_OR_UNCOVERED = "english_or_uncovered"
_SCOPES = {ENGLISH_OR_UNCOVERED: "(lang = 'en' OR multi_embedded_at IS NULL)"}


def quality_pass_for(scope: str | None) -> VectorPass:
    """Pass 2 over the chunks of the named scope; every chunk for any other name."""
    if scope in _SCOPES:
        return replace(QUALITY_PASS, scope=_SCOPES[scope])
    return QUALITY_PASS


def stored_quality_pass(db: IndexDatabase) -> VectorPass:
    """Pass 2 as the last index run scoped it: what status and search count as complete."""
    return quality_pass_for(db.meta(QUALITY_SCOPE_META))


def multilingual_pass(scope: str) -> VectorPass:
    return VectorPass(
        MULTI_TABLE,
        "multi_embedded_at",
        META_MULTI_MODEL_HASH,
        META_MULTI_MODEL_NAME,
        "multi_last_run",
        scope,
    )


@dataclass
class QualityPassReport:
    chunks_embedded: int = 0
    remaining: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    reset_reason: str | None = None


def quality_coverage(db: IndexDatabase, target: VectorPass = QUALITY_PASS) -> tuple[int, int]:
    """(chunks with a vector of ``target``'s, chunks in its scope)."""
    total = int(db.scalar(f"SELECT count(*) FROM chunks WHERE {target.scope}"))
    missing = int(
        db.scalar(f"SELECT count(*) FROM chunks WHERE {target.stamp} IS NULL AND {target.scope}")
    )
    return total - missing, total


def _every_chunk_embedded(db: IndexDatabase, target: VectorPass) -> bool:
    return not db.scalar(
        f"SELECT EXISTS (SELECT 1 FROM chunks WHERE {target.stamp} IS NULL AND {target.scope})"
    )


def _reset_if_model_changed(
    db: IndexDatabase, embedder: Embedder, target: VectorPass
) -> str | None:
    previous = db.meta(target.hash_key)
    layout = db.meta(f"{target.table}.layout")
    storage = vector_storage(db)
    if previous == embedder.model_hash and layout is not None:
        if layout.startswith(f"{storage}[") and _every_chunk_embedded(db, target):
            # Nothing to embed: the dimension (the transformer's, known only once its ~0.3 s
            # session is loaded) is checked by the next run that has work for the model. A
            # no-op `vaultctx index` loads no engine.
            return None
        if layout == f"{storage}[{embedder.dimension}]":
            return None
    with db.transaction():
        if db.has_table(target.table):
            db.execute(f"DROP TABLE {target.table}")
        db.execute(f"UPDATE chunks SET {target.stamp} = NULL")
        ensure_vector_table(db, target.table, embedder.dimension)
        db.set_meta(target.hash_key, embedder.model_hash)
        db.set_meta(target.name_key, embedder.name)
    kind = "quality" if target.table == QUALITY_TABLE else "multilingual"
    return None if previous is None else f"{kind} model changed: all {kind} vectors redone"


def _embed_until_stopped(
    embedder: Embedder, rows: list[tuple[int, str, str]], stop: threading.Event | None
) -> tuple[dict[int, Vectors], VaultctxError | None]:
    """Vectors by chunk id for ``rows`` (id, context, text), or for those embedded before
    ``stop`` was set or the engine failed: the rest are left for the next run. An engine's failure
    (a remote one's refused key, say) is returned, to be raised once the vectors it had already
    made, and been paid for, are stored."""
    order = sorted(rows, key=lambda row: len(row[2]))  # little padding in any batched call
    embedded: dict[int, Vectors] = {}
    for start in range(0, len(order), STOP_CHECK_CHUNKS):
        if stop is not None and stop.is_set():
            break
        part = order[start : start + STOP_CHECK_CHUNKS]
        try:
            vectors = embedder.embed([embedding_input(context, text) for _, context, text in part])
        except VaultctxError as failure:
            return embedded, failure
        embedded.update(zip([cid for cid, _, _ in part], vectors, strict=True))
    return embedded, None


def _store(db: IndexDatabase, embedded: dict[int, Vectors], target: VectorPass) -> None:
    """Write the vectors and stamp their chunks, in one transaction."""
    now = time.time()
    with db.transaction():
        ids = list(embedded)
        vectors = list(embedded.values())
        marks = ",".join("?" * len(ids))
        # A chunk deleted meanwhile by an incremental run simply has no row to stamp.
        alive = {int(r[0]) for r in db.execute(f"SELECT id FROM chunks WHERE id IN ({marks})", ids)}
        db.execute(f"DELETE FROM {target.table} WHERE rowid IN ({marks})", ids)
        db.executemany(
            f"INSERT INTO {target.table}(rowid, embedding) VALUES (?, vec_int8(?))",
            [(cid, quantize_int8(v)) for cid, v in zip(ids, vectors, strict=True) if cid in alive],
        )
        db.execute(f"UPDATE chunks SET {target.stamp} = ? WHERE id IN ({marks})", [now, *ids])


def run_quality_pass(
    db: IndexDatabase,
    embedder: Embedder,
    *,
    batch_size: int = 64,
    stop: threading.Event | None = None,
    on_batch: Callable[[int], None] | None = None,
    target: VectorPass = QUALITY_PASS,
) -> QualityPassReport:
    """Embed every chunk in ``target``'s scope that lacks its vector, one committed batch at a
    time."""
    report = QualityPassReport()
    if not db.capabilities.vectors:
        return report
    report.reset_reason = _reset_if_model_changed(db, embedder, target)
    started = time.perf_counter()
    last_id = 0
    while not (stop is not None and stop.is_set()):
        rows: list[tuple[int, str, str]] = [
            (int(cid), str(context), unpack_text(body))
            for cid, context, body in db.execute(
                f"SELECT id, heading_context, body FROM chunks WHERE {target.stamp} IS NULL "
                f"AND {target.scope} AND id > ? ORDER BY id LIMIT ?",
                (last_id, batch_size),
            )
        ]
        if not rows:
            break
        last_id = rows[-1][0]
        embedded, failure = _embed_until_stopped(embedder, rows, stop)
        if embedded:
            _store(db, embedded, target)
            report.chunks_embedded += len(embedded)
            if on_batch is not None:
                on_batch(len(embedded))
        if failure is not None:
            raise failure
        if not embedded:
            break
    report.interrupted = stop is not None and stop.is_set()
    report.seconds = time.perf_counter() - started
    done, total = quality_coverage(db, target)
    report.remaining = total - done
    with db.transaction():
        db.set_meta(
            target.last_run_key,
            json.dumps(
                {
                    "finished_at": time.time(),
                    "embedded": report.chunks_embedded,
                    "remaining": report.remaining,
                }
            ),
        )
    return report
