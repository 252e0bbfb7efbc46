from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import apsw
import pytest
from filelock import FileLock

from tests.index.stopping import StopAfter
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index import indexer as indexer_module
from vaultctx.index import prepare as prepare_module
from vaultctx.index.db import IndexOutdatedError, open_index
from vaultctx.index.indexer import Indexer, IndexerBusyError
from vaultctx.index.text_codec import unpack_text


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def _config(vault: Path, tmp_path: Path, **settings: object) -> Config:
    return Config(vault=vault, db=tmp_path / "index.db", settings=replace(Settings(), **settings))


def _run(config: Config, embedder: StaticEmbedder, full: bool = False):  # type: ignore[no-untyped-def]
    return Indexer(config, embedder).run(full=full)


def _rows(db_path: Path, sql: str) -> list[tuple[object, ...]]:
    db = open_index(db_path, readonly=True)
    try:
        return [tuple(r) for r in db.execute(sql)]
    finally:
        db.close()


def _chunks(db_path: Path) -> list[tuple[object, ...]]:
    """(path, ordinal, section, text, heading context) with the stored text decompressed."""
    return [
        (path, ordinal, section, unpack_text(body), context)
        for path, ordinal, section, body, context in _rows(
            db_path,
            "SELECT f.path, c.ordinal, c.section, c.body, c.heading_context "
            "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal",
        )
    ]


def _fts_paths(db_path: Path, word: str) -> set[str]:
    return {
        str(r[0])
        for r in _rows(
            db_path,
            f"SELECT f.path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
            f"JOIN files f ON f.id = c.file_id "
            f"WHERE chunks_fts MATCH '\"{word}\"'",
        )
    }


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(
        root,
        "alpha.md",
        "---\ntags: [db]\n---\n# Alpha\n\nSQLite WAL mode keeps readers "
        "going while the writer commits.\n\n## Tuning\n\nSet busy_timeout "
        "to 5000 so writers wait instead of failing.\n",
    )
    write(
        root,
        "notes/beta.md",
        "# Beta\n\nPostgres vacuum notes, with a link to [[alpha]].\n\n"
        "## Config\n\naws_key = AKIAZ7VRSQ5TJN2UEXAM in the old file.\n",
    )
    write(
        root,
        "gamma.md",
        "Plain note without headings about kubernetes pod scheduling and node affinity rules.\n",
    )
    return root


def test_full_then_idempotent(vault: Path, tmp_path: Path, embedder: StaticEmbedder) -> None:
    config = _config(vault, tmp_path)
    first = _run(config, embedder)
    assert (first.added, first.changed, first.removed) == (3, 0, 0)
    chunks = _chunks(config.db)
    assert chunks and first.chunks_written == len(chunks)
    vectors = _rows(config.db, "SELECT count(*) FROM chunk_vecs")[0][0]
    assert vectors == len(chunks)
    second = _run(config, embedder)
    assert (second.added, second.changed, second.removed, second.chunks_embedded) == (0, 0, 0, 0)
    assert second.unchanged == 3
    assert _chunks(config.db) == chunks


def test_secrets_never_stored(vault: Path, tmp_path: Path, embedder: StaticEmbedder) -> None:
    config = _config(vault, tmp_path)
    report = _run(config, embedder)
    assert sum(report.secrets_redacted.values()) >= 1
    raw = config.db.read_bytes() + (
        Path(f"{config.db}-wal").read_bytes() if Path(f"{config.db}-wal").exists() else b""
    )
    assert b"AKIAZ7VRSQ5TJN2UEXAM" not in raw
    chunks = _chunks(config.db)
    # The stored text is compressed, so the raw bytes alone prove nothing about it.
    assert not any("AKIAZ7VRSQ5TJN2UEXAM" in str(c[3]) for c in chunks)
    assert any("[REDACTED:" in str(c[3]) for c in chunks)


def test_secrets_in_headings_and_chunk_overlaps_are_redacted_once(
    tmp_path: Path, embedder: StaticEmbedder
) -> None:
    """The body is scrubbed before chunking: a heading's secret never reaches ``section`` or
    the context line, and a secret in the overlap two chunks share is counted once."""
    secret = "AKIAZ7VRSQ5TJN2UEXAM"
    filler = "Rotating keys is a chore that every team postpones until it hurts. "
    body = f"## Key {secret}\n\n" + filler * 25 + f"The old key {secret} lived here. " + filler * 4
    root = tmp_path / "vault"
    write(root, "keys.md", body)
    config = _config(root, tmp_path, chunk_max_chars=1000, chunk_overlap=200)
    report = _run(config, embedder)
    chunks = _chunks(config.db)
    assert len(chunks) >= 2
    overlapping = [c for c in chunks if "[REDACTED:" in str(c[3]) and "old key" in str(c[3])]
    assert len(overlapping) == 2  # the second secret sits in both chunks' shared text
    assert report.secrets_redacted == {"aws-access-token": 2}
    for _path, _ordinal, section, text, context in chunks:
        assert secret not in f"{section}{text}{context}"
        assert str(section).startswith("Key [REDACTED:")


def test_edit_reuses_vectors_of_unchanged_sections(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    path = vault / "alpha.md"
    path.write_text(path.read_text() + "\n## New section\n\nCheckpoint starvation explained.\n")
    report = _run(config, embedder)
    assert report.changed == 1
    assert report.vectors_reused >= 1
    assert report.chunks_embedded >= 1
    assert "alpha.md" in _fts_paths(config.db, "starvation")


def test_delete_removes_chunks_fts_and_vectors(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    assert _fts_paths(config.db, "kubernetes") == {"gamma.md"}
    (vault / "gamma.md").unlink()
    report = _run(config, embedder)
    assert report.removed == 1
    assert _fts_paths(config.db, "kubernetes") == set()
    chunks = _rows(config.db, "SELECT count(*) FROM chunks")[0][0]
    assert _rows(config.db, "SELECT count(*) FROM chunk_vecs")[0][0] == chunks
    # The join above hides an orphaned FTS row; the contentless table still counts it.
    assert _rows(config.db, "SELECT count(*) FROM chunks_fts")[0][0] == chunks


def test_rename_moves_rows_without_embedding(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    (vault / "gamma.md").rename(vault / "archive-gamma.md")
    report = _run(config, embedder)
    assert (report.renamed, report.removed, report.added, report.chunks_embedded) == (1, 0, 0, 0)
    assert _fts_paths(config.db, "kubernetes") == {"archive-gamma.md"}


def test_model_change_forces_full_reindex(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)

    class Renamed(StaticEmbedder):
        @property
        def name(self) -> str:
            return "another-model"

        @property
        def model_hash(self) -> str:
            return "0123456789abcdef"

    report = Indexer(config, Renamed()).run()
    assert report.full
    assert any("embedding model changed" in w for w in report.warnings)
    assert report.chunks_embedded == report.chunks_written > 0
    assert _rows(config.db, "SELECT value FROM model_meta WHERE key = 'model_hash'") == [
        ("0123456789abcdef",)
    ]


def test_analysis_change_reanalyses_every_chunk(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    assert _fts_paths(config.db, "zzmarker") == set()
    monkeypatch.setattr(indexer_module, "analyzer_id", lambda: "test-analysis-v2")
    monkeypatch.setattr(prepare_module, "fts_document", lambda text: f"{text} zzmarker")
    report = _run(config, embedder)
    assert any("text analysis changed" in w for w in report.warnings)
    assert report.chunks_written == 0  # only the FTS rows were redone, nothing re-embedded
    assert _fts_paths(config.db, "zzmarker") == {"alpha.md", "notes/beta.md", "gamma.md"}


def test_index_from_older_version_is_refused_to_readers_and_upgraded(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    conn = apsw.Connection(str(config.db))
    # An index an older vaultctx wrote: m004 and every migration after it never ran.
    conn.execute("DELETE FROM _migrations WHERE name >= 'm004'")
    conn.close()
    with pytest.raises(IndexOutdatedError, match="older vaultctx") as raised:
        open_index(config.db, readonly=True)
    assert "`vaultctx index" in raised.value.suggestion and "upgrade" in raised.value.suggestion
    report = _run(config, embedder)
    assert report.added == 3
    assert _fts_paths(config.db, "kubernetes") == {"gamma.md"}


def test_second_indexer_is_refused(vault: Path, tmp_path: Path, embedder: StaticEmbedder) -> None:
    config = _config(vault, tmp_path)
    with FileLock(f"{config.db}.lock"), pytest.raises(IndexerBusyError, match="already"):
        _run(config, embedder)


def test_bad_files_are_skipped_with_reasons(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    (vault / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    write(vault, "huge.md", "word " * 2_200_000)
    write(vault, "empty.md", "")
    write(vault, "broken-yaml.md", "---\ntitle: [unclosed\n---\nBody text about lighthouses.\n")
    config = _config(vault, tmp_path)
    report = _run(config, embedder)
    reasons = {s["path"]: s["reason"] for s in report.skipped}
    assert "UTF-8" in reasons["latin1.md"]
    assert "binary" in reasons["binary.md"]
    assert "max_file_bytes" in reasons["huge.md"]
    assert "empty.md" not in reasons
    assert any(p["path"] == "broken-yaml.md" for p in report.problems)
    assert "broken-yaml.md" in _fts_paths(config.db, "lighthouses")


def test_file_vanishing_mid_run_is_skipped(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:

    real_read = prepare_module.read_vault_file

    def vanishing_read(vault_file):  # type: ignore[no-untyped-def]
        if vault_file.path == "gamma.md":
            os.unlink(vault_file.abs_path)
        return real_read(vault_file)

    monkeypatch.setattr(prepare_module, "read_vault_file", vanishing_read)
    report = _run(_config(vault, tmp_path), embedder)
    assert report.added == 2
    assert any(s["path"] == "gamma.md" for s in report.skipped)


def test_stop_request_commits_and_reports(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    for i in range(20):
        write(vault, f"bulk/n{i}.md", f"Bulk note {i} about topic {i} with enough words to chunk.")
    config = _config(vault, tmp_path)
    indexer = Indexer(config, embedder)

    indexer.progress = StopAfter(indexer, 5)
    report = indexer.run()
    assert report.interrupted
    assert report.added == 5
    assert len(_rows(config.db, "SELECT id FROM files")) == 5
    rest = _run(config, embedder)
    assert rest.added == 18 and not rest.interrupted


def test_excalidraw_and_kanban_excluded_by_default(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    write(vault, "board.md", "---\nkanban-plugin: basic\n---\n## Todo\n- [ ] thing one\n")
    write(vault, "Drawing.excalidraw.md", "---\nexcalidraw-plugin: parsed\n---\n# Text\nshape\n")
    report = _run(_config(vault, tmp_path), embedder)
    reasons = {s["path"]: s["reason"] for s in report.skipped}
    assert "index_kanban" in reasons["board.md"]
    (tmp_path / "k").mkdir()
    report = _run(_config(vault, tmp_path / "k", index_kanban=True), embedder)
    assert report.added == 4  # the three notes and the board; the drawing stays out


def test_a_board_left_out_does_not_make_every_later_run_read_the_files(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file left out on purpose (a kanban board) is not in the files table, so the table's
    digest never equals the scan's; the run remembers what it left out instead, and the next
    run over the same files is a no-op that still reports the board. A change of the setting,
    or of any file, looks at the files again."""
    write(vault, "board.md", "---\nkanban-plugin: basic\n---\n## Todo\n- [ ] thing one\n")
    config = _config(vault, tmp_path)
    first = _run(config, embedder)
    assert first.added == 3 and [s["path"] for s in first.skipped] == ["board.md"]

    def no_reads(*_: object) -> None:
        raise AssertionError("a no-op run read a file")

    with monkeypatch.context() as patched:
        patched.setattr(prepare_module, "read_file", no_reads)
        again = _run(config, embedder)
    assert again.as_dict()["files"] == first.as_dict()["files"] | {"added": 0, "unchanged": 3}
    assert again.skipped == first.skipped
    write(vault, "new.md", "# New\n\nfresh words\n")
    assert _run(config, embedder).added == 1
    assert _run(_config(vault, tmp_path, index_kanban=True), embedder).added == 1  # the board


def test_a_file_that_could_not_be_read_is_tried_again(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unreadable moment (a sync client holding the file, say) is not remembered as a
    deliberate skip: the next run reads the file again and indexes it."""
    config = _config(vault, tmp_path)
    real = prepare_module.read_file
    target = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))[0]

    def flaky(vault_file, *args, **kwargs):  # type: ignore[no-untyped-def]
        prepared, text = real(vault_file, *args, **kwargs)
        if vault_file.path == target:
            prepared.unreadable, prepared.content_hash = "busy", None
        return prepared, text

    with monkeypatch.context() as patched:
        patched.setattr(prepare_module, "read_file", flaky)
        first = _run(config, embedder)
    assert first.added == 2 and [s["path"] for s in first.skipped] == [target]
    second = _run(config, embedder)
    assert second.added == 1 and second.skipped == []


def test_vault_api_status(vault: Path, tmp_path: Path) -> None:
    handle = Vault(vault, db=tmp_path / "api.db")
    assert not handle.status().exists
    handle.index()
    info = handle.status()
    assert info.exists and info.files == 3 and info.chunks == info.vectors > 0
    assert info.vec_version and info.fts_tokenizer and info.model_hash
    assert handle.doctor().ok


def test_status_says_when_chunks_predate_the_scrubber(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    config = _config(vault, tmp_path)
    _run(config, embedder)
    handle = Vault(config=config)
    assert handle.status().scrubber_note is None
    db = open_index(config.db)
    with db.transaction():
        db.set_meta("scrubber", "mixed")  # what an upgrade leaves until a full run
    db.close()
    note = handle.status().scrubber_note
    assert note is not None and "vaultctx index --full" in note
    _run(config, embedder, full=True)
    assert handle.status().scrubber_note is None


def test_unchanged_vault_is_recognised_by_its_stat_digest(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A no-op run compares one digest of the scan, not every row of the files table."""
    config = _config(vault, tmp_path)
    _run(config, embedder)

    def must_not_run(*args: object) -> None:
        raise AssertionError("the files table was compared although nothing changed")

    with monkeypatch.context() as patched:
        patched.setattr(Indexer, "_update", must_not_run)
        report = _run(config, embedder)
    assert (report.unchanged, report.added, report.changed) == (3, 0, 0)

    os.utime(vault / "gamma.md", ns=(1, 1))  # same text, another mtime: compared again
    report = _run(config, embedder)
    assert report.unchanged == 3 and report.chunks_embedded == 0
    assert _rows(config.db, "SELECT mtime_ns FROM files WHERE path = 'gamma.md'") == [(1,)]


def test_stat_digest_never_hides_a_change_written_by_an_interrupted_run(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    """An interrupted run leaves no digest: restoring a file's old mtime afterwards must not
    make the next run skip the text that run wrote."""
    config = _config(vault, tmp_path)
    _run(config, embedder)
    notes = [vault / "alpha.md", vault / "gamma.md"]
    before = [(note.read_text(encoding="utf-8"), note.stat()) for note in notes]
    for note, (text, _) in zip(notes, before, strict=True):
        note.write_text(text.replace("e", "E"), encoding="utf-8")  # same sizes
    indexer = Indexer(config, embedder)
    indexer.progress = StopAfter(indexer, 1)
    interrupted = indexer.run()
    assert interrupted.interrupted and interrupted.changed == 1  # alpha.md written, not gamma
    for note, (text, stat) in zip(notes, before, strict=True):  # the vault as first indexed
        note.write_text(text, encoding="utf-8")
        os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    report = _run(config, embedder)
    assert report.changed == 1
    assert _chunks(config.db) == _chunks_of_fresh_index(vault, tmp_path, embedder)


def _chunks_of_fresh_index(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> list[tuple[object, ...]]:
    fresh = _config(vault, tmp_path / "fresh")
    fresh.db.parent.mkdir()
    _run(fresh, embedder)
    return _chunks(fresh.db)
