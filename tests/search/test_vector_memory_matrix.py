"""How the in-memory ranker (search/vector_memory.py) builds and reads its matrix: block by block,
with vectors whose chunk is gone left out, rows added or removed while it loads, and every
ranking still sqlite-vec's. Each test reads a real index with a real sqlite-vec table."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.db_location import IndexLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.vector_queries import vector_count, vector_dimension
from vaultctx.search import vector_memory
from vaultctx.search.vector import vector_search
from vaultctx.search.vector_memory import InMemoryVectors

NOTES = {
    f"note{i}.md": f"# Note {i}\n\n{text}\n"
    for i, text in enumerate(
        (
            "Restore the nightly database backup before the migration.",
            "The lighthouse keeper lights the lamp at dusk.",
            "Tomatoes need sun and water every morning.",
            "Kubernetes rolled the deploy back after the health check failed.",
            "The database locked up while the backup ran.",
            "Sourdough bread rises overnight in a cool kitchen.",
            "Meeting notes: the team agreed on a quarterly roadmap.",
        )
    )
}
QUERIES = ("database backup", "lighthouse at dusk", "bread", "deploy rollback")


@pytest.fixture()
def vault(tmp_path: Path) -> Vault:
    vault = Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")
    vault.index(fast=True)
    return vault


@pytest.fixture()
def db(vault: Vault) -> Iterator[IndexDatabase]:
    """A read-only connection, as a server's query connection."""
    reader = open_index(vault.db_path, readonly=True)
    yield reader
    reader.close()


def _vector(text: str) -> npt.NDArray[np.float32]:
    vector: npt.NDArray[np.float32] = StaticEmbedder().embed([text])[0]
    return vector


def _loaded(db: IndexDatabase) -> InMemoryVectors:
    memory = InMemoryVectors(db)
    memory.load([VECTOR_TABLE], wait=True)
    return memory


def _agrees_with_sqlite_vec(db: IndexDatabase, memory: InMemoryVectors, k: int = 10) -> None:
    for query in QUERIES:
        vector = _vector(query)
        in_memory = memory.search(VECTOR_TABLE, vector, k)
        on_disk = vector_search(db, VECTOR_TABLE, vector, k)
        assert in_memory is not None and on_disk
        assert [cid for cid, _ in in_memory] == [cid for cid, _ in on_disk]
        for (_, a), (_, b) in zip(in_memory, on_disk, strict=True):
            assert a == pytest.approx(b, abs=1e-6)


@pytest.mark.parametrize("rows_per_block", [1, 2, 3])
def test_small_blocks_rank_as_one_block(
    db: IndexDatabase, monkeypatch: pytest.MonkeyPatch, rows_per_block: int
) -> None:
    """Scores and norms are computed in blocks of ``BLOCK_VALUES``; with blocks of one to three
    rows (the last one short) every row is still scored, against its own norm."""
    dimension = vector_dimension(db, VECTOR_TABLE)
    assert dimension is not None and vector_count(db, VECTOR_TABLE) >= 7
    monkeypatch.setattr(vector_memory, "BLOCK_VALUES", dimension * rows_per_block)
    _agrees_with_sqlite_vec(db, _loaded(db))


def test_blocks_smaller_than_a_row_score_one_row_at_a_time(
    db: IndexDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_memory, "BLOCK_VALUES", 1)
    _agrees_with_sqlite_vec(db, _loaded(db))


def test_the_matrix_keeps_one_byte_per_dimension(db: IndexDatabase) -> None:
    """The memory promise: int8 as stored (33 MB at 130k x 256), never a float copy."""
    memory = _loaded(db)
    matrix = memory._matrices[VECTOR_TABLE]
    count, dimension = vector_count(db, VECTOR_TABLE), vector_dimension(db, VECTOR_TABLE)
    assert matrix.rows.dtype == np.int8
    assert matrix.rows.shape == (count, dimension)
    assert matrix.rows.nbytes == count * (dimension or 0)


def test_every_result_is_asked_for_and_no_more(db: IndexDatabase) -> None:
    memory = _loaded(db)
    count = vector_count(db, VECTOR_TABLE)
    vector = _vector("database backup")
    assert memory.search(VECTOR_TABLE, vector, 0) == []
    one = memory.search(VECTOR_TABLE, vector, 1)
    assert one is not None and len(one) == 1
    everything = memory.search(VECTOR_TABLE, vector, count + 5)
    assert everything is not None and len(everything) == count
    scores = [score for _, score in everything]
    assert scores == sorted(scores, reverse=True)
    assert one[0] == everything[0]
    _agrees_with_sqlite_vec(db, memory, k=count)


def test_a_zero_query_vector_finds_nothing(db: IndexDatabase) -> None:
    memory = _loaded(db)
    dimension = vector_dimension(db, VECTOR_TABLE) or 0
    assert memory.search(VECTOR_TABLE, np.zeros(dimension, dtype=np.float32), 5) == []


def test_file_ids_keep_only_those_notes(db: IndexDatabase) -> None:
    memory = _loaded(db)
    ids = {str(p): int(i) for i, p in db.execute("SELECT id, path FROM files")}
    chosen = [ids["note2.md"], ids["note5.md"]]
    vector = _vector("database backup")
    hits = memory.search(VECTOR_TABLE, vector, 10, file_ids=chosen)
    on_disk = vector_search(db, VECTOR_TABLE, vector, 10, file_ids=chosen)
    assert hits is not None and [c for c, _ in hits] == [c for c, _ in on_disk]
    notes = {
        int(f)
        for c, _ in hits
        for (f,) in db.execute("SELECT file_id FROM chunks WHERE id = ?", (c,))
    }
    assert notes == set(chosen)
    assert memory.search(VECTOR_TABLE, vector, 10, file_ids=[]) == []
    assert memory.search(VECTOR_TABLE, vector, 10, file_ids=[max(ids.values()) + 99]) == []


def _writable(vault: Vault) -> IndexDatabase:
    return open_index(vault.db_path)


def test_a_vector_whose_chunk_is_gone_is_never_a_result(vault: Vault) -> None:
    """The vector table is sqlite-vec's: nothing cascades into it. A vector left behind by a
    deleted chunk (the lowest id, one in the middle, the highest) must not be ranked."""
    writer = _writable(vault)
    chunk_ids = sorted(int(c) for (c,) in writer.execute("SELECT id FROM chunks"))
    gone = {chunk_ids[0], chunk_ids[len(chunk_ids) // 2], chunk_ids[-1]}
    for chunk_id in gone:
        writer.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
    writer.close()
    db = open_index(vault.db_path, readonly=True)
    try:
        assert vector_count(db, VECTOR_TABLE) == len(chunk_ids)
        memory = _loaded(db)
        matrix = memory._matrices[VECTOR_TABLE]
        assert sorted(matrix.chunk_ids.tolist()) == sorted(set(chunk_ids) - gone)
        assert len(matrix.rows) == len(matrix.file_ids) == len(matrix.inverse_norms)
        hits = memory.search(VECTOR_TABLE, _vector("database backup"), len(chunk_ids))
        assert hits is not None and len(hits) == len(chunk_ids) - len(gone)
        assert not gone & {c for c, _ in hits}
        # Each kept vector still carries its own note and its own norm.
        notes = dict(db.execute("SELECT id, file_id FROM chunks").fetchall())
        assert [notes[c] for c in matrix.chunk_ids.tolist()] == matrix.file_ids.tolist()
        # sqlite-vec still ranks the orphans (the retriever drops them when it reads the chunks).
        vector = _vector("lighthouse at dusk")
        on_disk = vector_search(db, VECTOR_TABLE, vector, len(chunk_ids))
        kept = [(c, s) for c, s in on_disk if c not in gone]
        in_memory = memory.search(VECTOR_TABLE, vector, len(kept))
        assert in_memory is not None and [c for c, _ in in_memory] == [c for c, _ in kept]
        for (_, a), (_, b) in zip(in_memory, kept, strict=True):
            assert a == pytest.approx(b, abs=1e-6)
    finally:
        db.close()


def test_vectors_with_no_chunk_left_are_not_held(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing to hold, and nothing wrong either: no "could not load" in the log."""
    writer = _writable(vault)
    writer.execute("DELETE FROM chunks")
    writer.close()
    db = open_index(vault.db_path, readonly=True)
    try:
        assert vector_count(db, VECTOR_TABLE) > 0
        with caplog.at_level(logging.INFO, logger="vaultctx.search.vector_memory"):
            memory = _loaded(db)
        assert caplog.records == []
        assert VECTOR_TABLE not in memory._matrices
        assert memory.search(VECTOR_TABLE, _vector("database backup"), 3) is None
    finally:
        db.close()


def test_an_all_zero_vector_scores_zero(vault: Vault) -> None:
    """A chunk whose vector quantised to zeros has no direction: cosine 0, never a division by
    zero, and the other rows keep their scores."""
    writer = _writable(vault)
    dimension = vector_dimension(writer, VECTOR_TABLE) or 0
    chunk = int(writer.scalar("SELECT max(id) FROM chunks"))
    writer.execute(f"DELETE FROM {VECTOR_TABLE} WHERE rowid = ?", (chunk,))
    writer.insert_vectors(VECTOR_TABLE, [(chunk, bytes(dimension))])
    writer.close()
    db = open_index(vault.db_path, readonly=True)
    try:
        memory = _loaded(db)
        hits = memory.search(VECTOR_TABLE, _vector("database backup"), 50)
        assert hits is not None
        scores = dict(hits)
        assert scores[chunk] == 0.0
        assert all(np.isfinite(score) for score in scores.values())
        assert max(scores.values()) > 0.3
    finally:
        db.close()


# --- loading: while the index changes, from a shared view, and when it fails ---------------------


def _loaded_while(
    db: IndexDatabase, monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]
) -> vector_memory._Matrix:
    """The matrix loaded with ``change`` committed between counting the vectors and reading
    them (a commit by the indexer or the watcher at that moment)."""

    def count_then_change(counting: IndexDatabase, table: str) -> int:
        counted = vector_count(counting, table)
        change()
        return counted

    monkeypatch.setattr(vector_memory, "vector_count", count_then_change)
    matrix = vector_memory._load_matrix(db, VECTOR_TABLE, 7)
    monkeypatch.setattr(vector_memory, "vector_count", vector_count)
    assert matrix is not None and matrix.data_version == 7
    return matrix


def _stored_ids(db: IndexDatabase) -> list[int]:
    return sorted(int(c) for (c,) in db.execute(f"SELECT rowid FROM {VECTOR_TABLE}"))


def test_rows_added_while_loading_are_held(
    vault: Vault, db: IndexDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit between counting the vectors and reading them adds rows: the matrix grows to
    hold them all (and the next query sees the data version moved, and reloads)."""

    def add_notes() -> None:
        for i, animal in enumerate(("zebra", "gnu", "heron", "otter", "falcon")):
            (vault.path / f"added{i}.md").write_text(
                f"# {animal}\n\nThe {animal} crosses the river at {i + 4} o'clock.\n", "utf-8"
            )
        vault.index(fast=True)

    matrix = _loaded_while(db, monkeypatch, add_notes)
    total = vector_count(db, VECTOR_TABLE)
    assert total >= len(NOTES) + 5
    assert sorted(matrix.chunk_ids.tolist()) == _stored_ids(db)
    assert matrix.rows.shape == (total, vector_dimension(db, VECTOR_TABLE))
    # Every row is the stored vector, not the growth's filler.
    memory = InMemoryVectors(db)
    memory._matrices[VECTOR_TABLE] = vector_memory._Matrix(
        matrix.chunk_ids, matrix.file_ids, matrix.rows, matrix.inverse_norms, db.data_version()
    )
    _agrees_with_sqlite_vec(db, memory, k=total)


def test_rows_removed_while_loading_are_not_held(
    vault: Vault, db: IndexDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    def remove_notes() -> None:
        for name in ("note1.md", "note3.md", "note5.md"):
            (vault.path / name).unlink()
        vault.index(fast=True)

    matrix = _loaded_while(db, monkeypatch, remove_notes)
    stored = _stored_ids(db)
    assert len(stored) == len(NOTES) - 3
    assert sorted(matrix.chunk_ids.tolist()) == stored
    assert len(matrix.rows) == len(matrix.file_ids) == len(matrix.inverse_norms) == len(stored)


class _CountingOpener:
    """Opens the index as the default opener does, counting each load's connection."""

    def __init__(self, path: IndexLocation) -> None:
        self.path, self.calls = path, 0

    def __call__(self) -> IndexDatabase:
        self.calls += 1
        return open_index(self.path, readonly=True, memory_map=False)


def test_a_current_matrix_is_not_loaded_again(vault: Vault) -> None:
    db = open_index(vault.db_path, readonly=True)
    opener = _CountingOpener(vault.db_path)
    try:
        memory = InMemoryVectors(db, opener)
        memory.load([VECTOR_TABLE], wait=True)
        assert opener.calls == 1
        memory.load([VECTOR_TABLE], wait=True)
        assert memory.search(VECTOR_TABLE, _vector("bread"), 3) is not None
        assert opener.calls == 1, "a current matrix must not be read again"
        assert memory._loading == {}
    finally:
        db.close()


def test_one_load_per_table_at_a_time(vault: Vault) -> None:
    """Queries arriving while a table loads join the running load instead of starting more."""
    import threading

    db = open_index(vault.db_path, readonly=True)
    release = threading.Event()
    opener = _CountingOpener(vault.db_path)

    def slow_opener() -> IndexDatabase:
        assert release.wait(60)
        return opener()

    try:
        memory = InMemoryVectors(db, slow_opener)
        memory.load([VECTOR_TABLE])
        running = memory._loading[VECTOR_TABLE]
        assert running.name == f"load-{VECTOR_TABLE}" and running.daemon
        assert memory.search(VECTOR_TABLE, _vector("bread"), 3) is None
        assert memory._start_load(VECTOR_TABLE, db.data_version()) is running
        release.set()
        memory.load([VECTOR_TABLE], wait=True)
        running.join(60)
        assert opener.calls == 1
        assert memory._loading == {}
        assert memory.search(VECTOR_TABLE, _vector("bread"), 3) is not None
    finally:
        release.set()
        db.close()


def test_a_view_for_another_connection_shares_the_matrices(vault: Vault) -> None:
    """A server's parallel readers: a load started through either is seen by both, each checks
    its own connection's data version, and the view loads through the same opener."""
    first = open_index(vault.db_path, readonly=True)
    second = open_index(vault.db_path, readonly=True)
    opener = _CountingOpener(vault.db_path)
    try:
        held = InMemoryVectors(first, opener)
        view = held.sharing(second)
        assert view._db is second
        view.load([VECTOR_TABLE], wait=True)
        assert opener.calls == 1
        vector = _vector("lighthouse at dusk")
        from_view = view.search(VECTOR_TABLE, vector, 5)
        from_held = held.search(VECTOR_TABLE, vector, 5)
        assert from_view is not None and from_view == from_held
        assert view._matrices is held._matrices and view._lock is held._lock
        assert view._loading is held._loading
        (vault.path / "late.md").write_text("# Late\n\nA lighthouse at dusk, again.\n", "utf-8")
        vault.index(fast=True)
        assert view.search(VECTOR_TABLE, vector, 5) is None
        held.load([VECTOR_TABLE], wait=True)
        assert view.search(VECTOR_TABLE, vector, 5) is not None
        assert opener.calls == 2
    finally:
        first.close()
        second.close()


def test_a_load_that_fails_is_logged_and_tried_again(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    db = open_index(vault.db_path, readonly=True)
    fail = [True]
    opener = _CountingOpener(vault.db_path)

    def flaky() -> IndexDatabase:
        if fail[0]:
            raise OSError("the index is locked")
        return opener()

    try:
        memory = InMemoryVectors(db, flaky)
        with caplog.at_level(logging.INFO, logger="vaultctx.search.vector_memory"):
            memory.load([VECTOR_TABLE], wait=True)
        assert [r.getMessage() for r in caplog.records] == [
            f"could not load {VECTOR_TABLE} into memory (the index is locked)"
        ]
        assert memory._loading == {}
        assert memory.search(VECTOR_TABLE, _vector("bread"), 3) is None
        fail[0] = False
        memory.load([VECTOR_TABLE], wait=True)
        assert memory.search(VECTOR_TABLE, _vector("bread"), 3) is not None
    finally:
        db.close()


def test_a_table_over_the_limit_says_so(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    db = open_index(vault.db_path, readonly=True)
    try:
        count = vector_count(db, VECTOR_TABLE)
        monkeypatch.setattr(vector_memory, "MAX_MATRIX_BYTES", 10)
        with caplog.at_level(logging.INFO, logger="vaultctx.search.vector_memory"):
            assert vector_memory._load_matrix(db, VECTOR_TABLE, 1) is None
        assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
            (
                logging.INFO,
                f"{VECTOR_TABLE}: {count} vectors exceed the in-memory limit; searching on disk",
            )
        ]
    finally:
        db.close()


def test_the_loader_reads_without_a_memory_map(vault: Vault) -> None:
    """The default opener's connection maps no memory: a scan through the map would make most
    of the index file resident (134 MB above the matrix at 130k chunks)."""
    db = open_index(vault.db_path, readonly=True)
    try:
        assert int(db.scalar("PRAGMA mmap_size")) > 0, "the query connection maps the file"
        loader = InMemoryVectors(db)._open()
        try:
            assert int(loader.scalar("PRAGMA mmap_size")) == 0
        finally:
            loader.close()
    finally:
        db.close()


def test_the_loader_never_creates_an_index(vault: Vault) -> None:
    """It opens the index read-only: an index removed under a running server is not recreated
    empty by a reload (a writer's open would create and migrate one)."""
    db = open_index(vault.db_path, readonly=True)
    try:
        memory = InMemoryVectors(db)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{vault.db_path}{suffix}").unlink(missing_ok=True)
        memory.load([VECTOR_TABLE], wait=True)
        assert not Path(str(vault.db_path)).exists()
        assert VECTOR_TABLE not in memory._matrices
    finally:
        db.close()


def test_a_large_table_grows_by_an_eighth_while_loading(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past 8,192 vectors the matrix grows by an eighth of its rows (a whole number of them)
    when a commit adds rows during the load. The extra vectors here belong to no chunk, so the
    matrix then keeps the vault's own."""
    writer = _writable(vault)
    dimension = vector_dimension(writer, VECTOR_TABLE) or 0
    first = int(writer.scalar("SELECT max(id) FROM chunks")) + 1
    generator = np.random.default_rng(7)
    orphans = generator.integers(-127, 128, size=(8_200, dimension), dtype=np.int8)
    with writer.transaction():
        writer.insert_vectors(
            VECTOR_TABLE, [(first + i, row.tobytes()) for i, row in enumerate(orphans)]
        )
    kept = sorted(int(c) for (c,) in writer.execute("SELECT id FROM chunks"))
    writer.close()

    def add_one() -> None:
        late = _writable(vault)
        late.insert_vectors(VECTOR_TABLE, [(first + len(orphans), orphans[0].tobytes())])
        late.close()

    reader = open_index(vault.db_path, readonly=True)
    try:
        assert sorted(_loaded_while(reader, monkeypatch, add_one).chunk_ids.tolist()) == kept
    finally:
        reader.close()


def test_chunks_renumbered_out_of_note_order_keep_their_notes(vault: Vault) -> None:
    """A note edited after the others gets new, higher chunk ids while its note id stays low:
    each vector must still be matched to its note by chunk id."""
    (vault.path / "note0.md").write_text(
        "# Note 0\n\nRestore the weekly database backup after the migration.\n", "utf-8"
    )
    (vault.path / "note1.md").write_text("# Note 1\n\nThe lamp is lit at dusk.\n", "utf-8")
    vault.index(fast=True)
    db = open_index(vault.db_path, readonly=True)
    try:
        pairs = db.execute("SELECT id, file_id FROM chunks ORDER BY id").fetchall()
        assert [f for _, f in pairs] != sorted(f for _, f in pairs), "ids out of note order"
        memory = _loaded(db)
        matrix = memory._matrices[VECTOR_TABLE]
        notes = dict(pairs)
        assert [notes[c] for c in matrix.chunk_ids.tolist()] == matrix.file_ids.tolist()
        _agrees_with_sqlite_vec(db, memory)
        vector = _vector("database backup")
        note0 = int(db.scalar("SELECT id FROM files WHERE path = 'note0.md'"))
        hits = memory.search(VECTOR_TABLE, vector, 10, file_ids=[note0])
        assert hits and {notes[c] for c, _ in hits} == {note0}
    finally:
        db.close()


def test_a_query_on_a_stale_matrix_starts_the_reload_itself(vault: Vault) -> None:
    """No caller has to call ``load`` again: the query that finds the matrix missing or stale
    starts the reload of that table at the current data version, and a later query ranks."""
    import time

    db = open_index(vault.db_path, readonly=True)
    try:
        memory = InMemoryVectors(db)
        vector = _vector("lighthouse at dusk")
        for _ in range(2):  # never loaded, then stale after a commit
            assert memory.search(VECTOR_TABLE, vector, 3) is None
            deadline = time.monotonic() + 60
            while (hits := memory.search(VECTOR_TABLE, vector, 3)) is None:
                assert time.monotonic() < deadline, "the query did not start a reload"
                time.sleep(0.05)
            assert hits
            (vault.path / "late.md").write_text("# Late\n\nThe lamp at dusk.\n", "utf-8")
            vault.index(fast=True)
    finally:
        db.close()
