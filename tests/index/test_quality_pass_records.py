"""What pass 2 leaves in the index: one quality vector per chunk, exactly the engine's vector of the
chunk's context and text; committed in batches of 64; an honest run record. After a model change
no vector of the old model survives, even when the new pass is interrupted.

The quality engine here is the bundled static model under its own name (a real engine, fast).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vaultctx.config import Config
from vaultctx.embed.base import Vectors, embedding_input, quantize_int8
from vaultctx.embed.static import StaticEmbedder
from vaultctx.errors import VaultctxError
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.quality_pass import STOP_CHECK_CHUNKS, run_quality_pass
from vaultctx.index.schema import QUALITY_TABLE
from vaultctx.index.text_codec import unpack_text

NOTES = 70  # one chunk each: a full batch of 64 and a partial one


@pytest.fixture
def db(tmp_path: Path) -> Iterator[IndexDatabase]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(NOTES):
        (vault / f"note {n:02}.md").write_text(f"# Note {n}\n\nLighthouse log entry {n}.\n")
    Indexer(Config(vault=vault, db=tmp_path / "index.db"), StaticEmbedder()).run(fast=True)
    index = open_index(tmp_path / "index.db")
    yield index
    index.close()


def quality_rows(db: IndexDatabase) -> int:
    return int(db.scalar(f"SELECT count(*) FROM {QUALITY_TABLE}"))


def test_each_chunk_gets_the_engines_vector_of_its_context_and_text(db: IndexDatabase) -> None:
    engine = StaticEmbedder(name="quality-test")
    run_quality_pass(db, engine)
    chunks = list(db.execute("SELECT id, heading_context, body FROM chunks ORDER BY id"))
    assert len(chunks) == NOTES and quality_rows(db) == NOTES
    for cid, context, body in chunks:
        assert context  # the title, so leaving it out would change the vector
        expected = quantize_int8(engine.embed([embedding_input(context, unpack_text(body))])[0])
        stored = db.scalar(f"SELECT embedding FROM {QUALITY_TABLE} WHERE rowid = ?", (cid,))
        assert stored == expected, cid


def test_batches_of_64_and_a_run_record(db: IndexDatabase) -> None:
    batches: list[int] = []
    before, clock = time.time(), time.perf_counter()
    report = run_quality_pass(db, StaticEmbedder(name="quality-test"), on_batch=batches.append)
    elapsed, after = time.perf_counter() - clock, time.time()
    assert batches == [64, NOTES - 64]
    assert (report.chunks_embedded, report.remaining, report.interrupted) == (NOTES, 0, False)
    assert 0 <= report.seconds <= elapsed
    record = json.loads(db.meta("quality_last_run") or "{}")
    assert set(record) == {"finished_at", "embedded", "remaining"}
    assert (record["embedded"], record["remaining"]) == (NOTES, 0)
    assert before <= record["finished_at"] <= after


def test_an_interrupted_pass_after_a_model_change_keeps_no_old_vector(db: IndexDatabase) -> None:
    run_quality_pass(db, StaticEmbedder(name="quality-a"))
    assert quality_rows(db) == NOTES
    stop = threading.Event()
    report = run_quality_pass(
        db, StaticEmbedder(name="quality-b"), batch_size=8, stop=stop, on_batch=lambda _: stop.set()
    )
    assert report.interrupted and report.reset_reason is not None
    stamped = int(db.scalar("SELECT count(*) FROM chunks WHERE quality_embedded_at IS NOT NULL"))
    assert stamped == 8 and quality_rows(db) == 8
    assert report.remaining == NOTES - 8


class FailingOnCall(StaticEmbedder):
    """An engine whose ``fail_on``-th call fails as a remote one does (a revoked key)."""

    def __init__(self, fail_on: int) -> None:
        super().__init__(name="quality-failing")
        self.calls = 0
        self.fail_on = fail_on

    def embed(self, texts: list[str]) -> Vectors:
        self.calls += 1
        if self.calls == self.fail_on:
            raise VaultctxError("the engine refused the key", "store the right key")
        return super().embed(texts)


def test_an_engine_failure_keeps_the_vectors_made_before_it(db: IndexDatabase) -> None:
    engine = FailingOnCall(fail_on=3)  # the first two slices of 8 succeed
    with pytest.raises(VaultctxError, match="refused the key"):
        run_quality_pass(db, engine)
    stamped = int(db.scalar("SELECT count(*) FROM chunks WHERE quality_embedded_at IS NOT NULL"))
    assert stamped == 16 and quality_rows(db) == 16
    report = run_quality_pass(db, StaticEmbedder(name="quality-failing"))
    assert (report.chunks_embedded, report.remaining) == (NOTES - 16, 0)


class Recording(StaticEmbedder):
    """The quality engine, recording the texts of every model call; ``after_call`` runs after each
    call (to press Ctrl-C mid-batch), and ``drop`` leaves vectors off the end of each answer."""

    def __init__(self, after_call: Callable[[], None] = lambda: None, drop: int = 0) -> None:
        super().__init__(name="quality-test")
        self.calls: list[list[str]] = []
        self.after_call = after_call
        self.drop = drop

    def embed(self, texts: list[str]) -> Vectors:
        self.calls.append(list(texts))
        vectors = super().embed(texts)
        self.after_call()
        return vectors[: len(texts) - self.drop]


def stamped(db: IndexDatabase) -> int:
    return int(db.scalar("SELECT count(*) FROM chunks WHERE quality_embedded_at IS NOT NULL"))


def test_each_chunk_is_embedded_once_shortest_first_in_small_calls(tmp_path: Path) -> None:
    """Calls of a few chunks let Ctrl-C be answered between them; taken in order of length they
    need little padding; no chunk is embedded twice."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(20):  # lengths in no relation to the names (and so to the chunk ids)
        (vault / f"note {n:02}.md").write_text(
            f"# Note {n}\n\nLighthouse{' log' * ((n * 7) % 20)}.\n"
        )
    Indexer(Config(vault=vault, db=tmp_path / "index.db"), StaticEmbedder()).run(fast=True)
    index = open_index(tmp_path / "index.db")
    try:
        engine = Recording()
        run_quality_pass(index, engine)
        expected = sorted(
            embedding_input(context, unpack_text(body))
            for context, body in index.execute("SELECT heading_context, body FROM chunks")
        )
    finally:
        index.close()
    sent = [text for call in engine.calls for text in call]
    assert len(expected) == 20 and sorted(sent) == expected
    assert all(0 < len(call) <= STOP_CHECK_CHUNKS for call in engine.calls)
    assert [len(text) for text in sent] == sorted(len(text) for text in sent)


def test_ctrl_c_mid_batch_keeps_the_chunks_already_embedded(db: IndexDatabase) -> None:
    stop = threading.Event()
    engine = Recording(after_call=stop.set)
    report = run_quality_pass(db, engine, stop=stop)
    assert len(engine.calls) == 1 and report.interrupted
    assert report.chunks_embedded == stamped(db) == quality_rows(db) == STOP_CHECK_CHUNKS
    assert report.remaining == NOTES - STOP_CHECK_CHUNKS


def test_an_engine_answering_with_too_few_vectors_stores_nothing(db: IndexDatabase) -> None:
    with pytest.raises(ValueError):
        run_quality_pass(db, Recording(drop=1))
    assert stamped(db) == quality_rows(db) == 0


class StopAfterFirstLook(threading.Event):
    """Ctrl-C pressed between the pass's look before reading a batch and its look before the
    first model call."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > 1


def test_ctrl_c_before_the_first_model_call_of_a_batch_still_reports(db: IndexDatabase) -> None:
    report = run_quality_pass(db, Recording(), stop=StopAfterFirstLook())
    assert (report.chunks_embedded, report.remaining, report.interrupted) == (0, NOTES, True)
    assert stamped(db) == 0
    record = json.loads(db.meta("quality_last_run") or "{}")
    assert (record["embedded"], record["remaining"]) == (0, NOTES)
