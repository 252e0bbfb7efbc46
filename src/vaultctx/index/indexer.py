"""Turn the vault into the index: incremental by default, crash-safe, memory-bounded
(docs/reference.md#indexing).

Consistency comes from one rule: a file's row and all its chunks, FTS rows, vectors, tags and links
are replaced in the same transaction, and the file's ``mtime_ns`` is only recorded there. A kill at
any moment therefore leaves whole files either fully old or fully new, and the next run redoes
whatever it did not record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import apsw

from vaultctx.config import Config, Settings, check_db_location
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.base import Embedder
from vaultctx.errors import VaultctxError
from vaultctx.index import hangul
from vaultctx.index.db import (
    DAMAGE_ERRORS,
    POSTGRES,
    SETTLED_SKIPS_META,
    STAT_DIGEST_META,
    VECTOR_STORAGE,
    WRITABLE_ADVICE,
    IndexDatabase,
    IndexNeedsRebuildError,
    IndexUnwritableError,
    check_index_file,
    ensure_index_folder,
    ensure_vector_table,
    open_index,
    reporting_damage,
)
from vaultctx.index.languages import record_chunk_languages
from vaultctx.index.phase_time import timed
from vaultctx.index.quality_pass import (
    QUALITY_PASS,
    VectorPass,
    quality_coverage,
    run_quality_pass,
)
from vaultctx.index.run_lock import LockHeldError, RunLock
from vaultctx.index.schema import (
    META_INDEX_SIGNATURE,
    META_LAST_RUN,
    META_MODEL_HASH,
    META_MODEL_NAME,
    META_RUN_STARTED,
    QUALITY_TABLE,
    VECTOR_TABLE,
    VECTOR_TABLES,
)
from vaultctx.index.set_aside import set_aside_damaged
from vaultctx.index.text_codec import unpack_text
from vaultctx.index.vector_memo import VectorMemo
from vaultctx.scrub import scrub_secrets
from vaultctx.scrub.fingerprint import SCRUBBER_META, scrubber_fingerprint
from vaultctx.text.lexical import FTS_ANALYZER_META, analyses_agree_without_hangul, analyzer_id
from vaultctx.vault.scanner import VaultFile, scan_vault

if TYPE_CHECKING:
    from vaultctx.index.postgres.lock import AdvisoryLock

    # Preparing files (parsing, chunking, worker processes: YAML, the chunker, multiprocessing)
    # is imported when a run has files to prepare: a no-op run decides from the scan alone.
    from vaultctx.index.prepare import ChunkRow, FileColumns, PreparedFile
    from vaultctx.vault.note import Note

log = logging.getLogger(__name__)


class IndexerBusyError(VaultctxError):
    """Another indexer holds this database's lock."""


class ProgressSink(Protocol):
    """Where the indexer reports progress; the CLI shows a bar or plain lines.

    Each pass calls ``start`` once (label and unit say what is counted), ``advance`` as work is
    done and ``finish`` at the end, also when interrupted.
    """

    def start(self, label: str, total: int, unit: str) -> None: ...

    def advance(self, amount: int = 1) -> None: ...

    def finish(self) -> None: ...


class _SilentProgress:
    def start(self, label: str, total: int, unit: str) -> None:
        pass

    def advance(self, amount: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass
class IndexReport:
    """What a run did; ``as_dict`` is the stable ``--json`` summary."""

    full: bool = False
    full_reason: str | None = None
    files_seen: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    renamed: int = 0
    unchanged: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)
    chunks_written: int = 0
    chunks_embedded: int = 0
    vectors_reused: int = 0
    secrets_redacted: Counter[str] = field(default_factory=Counter)
    # The same counts per file (path → kind → count): which notes to clean up. Kinds and counts
    # only, never a value; a path that itself looks like a secret is never indexed at all.
    secrets_by_file: dict[str, Counter[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    quality_embedded: int = 0
    quality_remaining: int | None = None
    multilingual_embedded: int = 0
    interrupted: bool = False
    # Where a damaged index was moved before this run rebuilt it (index/set_aside.py).
    damaged_kept_as: str | None = None
    # Files skipped because they could not be read (maybe only for now): not in ``as_dict``.
    unreadable: int = 0
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)

    def timed(self, phase: str) -> AbstractContextManager[None]:
        """Accumulate wall time per phase, so a slow run says where its time went."""
        return timed(self.phase_seconds, phase)

    def as_dict(self) -> dict[str, Any]:
        return {
            "full": self.full,
            "full_reason": self.full_reason,
            "files": {
                "seen": self.files_seen,
                "added": self.added,
                "changed": self.changed,
                "removed": self.removed,
                "renamed": self.renamed,
                "unchanged": self.unchanged,
                "skipped": len(self.skipped),
            },
            "skipped": self.skipped,
            "problems": self.problems,
            "chunks": {
                "written": self.chunks_written,
                "embedded": self.chunks_embedded,
                "vectors_reused": self.vectors_reused,
                "quality_embedded": self.quality_embedded,
                "quality_remaining": self.quality_remaining,
                "multilingual_embedded": self.multilingual_embedded,
            },
            "secrets_redacted": dict(sorted(self.secrets_redacted.items())),
            "secrets_by_file": [
                {"path": path, "secrets": dict(sorted(counts.items()))}
                for path, counts in sorted(self.secrets_by_file.items())
            ],
            "warnings": self.warnings,
            "interrupted": self.interrupted,
            "damaged_kept_as": self.damaged_kept_as,
            "seconds": round(self.seconds, 3),
            "phase_seconds": {k: round(v, 3) for k, v in sorted(self.phase_seconds.items())},
        }


@dataclass
class _FileWork:
    file: VaultFile
    note: Note
    columns: FileColumns
    content_hash: str
    chunks: list[ChunkRow]
    is_new: bool


@dataclass
class _Stored:
    id: int
    mtime_ns: int
    size: int
    content_hash: str


class Indexer:
    """Brings one vault's index up to date; use ``run()`` once per invocation."""

    def __init__(
        self,
        config: Config,
        embedder: Embedder | None,
        *,
        quality_embedder: Embedder | None = None,
        multilingual_embedder: Callable[[], Embedder | None] | None = None,
        progress: ProgressSink | None = None,
    ) -> None:
        self.config = config
        self.embedder = embedder
        self.quality_embedder = quality_embedder
        # Loaded only when some chunk needs a multilingual vector (multilingual_pass.py).
        self.multilingual_embedder = multilingual_embedder
        self.progress = progress or _SilentProgress()
        self._stop = threading.Event()

    def request_stop(self) -> None:
        """Commit the files prepared so far and return, within a second (the CLI's SIGINT
        handler calls this); files still being prepared are left for the next run."""
        self._stop.set()

    def run(self, *, full: bool = False, fast: bool = False) -> IndexReport:
        """Pass 1 (text, BM25, static vectors), then pass 2 (quality vectors) unless ``fast``."""
        started = time.perf_counter()
        report = IndexReport(full=full, full_reason="--full" if full else None)
        lock = _run_lock(self.config)
        try:
            lock.acquire()
        except LockHeldError as exc:  # before OSError: it is one
            raise IndexerBusyError(
                f"another `vaultctx index` is already updating {self.config.db}",
                "wait for it to finish (or stop it) and run again",
            ) from exc
        except OSError as exc:
            raise IndexUnwritableError(
                f"cannot lock the index at {self.config.db} ({exc.strerror or exc})",
                WRITABLE_ADVICE,
            ) from exc
        try:
            with reporting_damage(self.config.db):  # damaged again while rebuilding: say so
                report = self._run_or_rebuild(report, fast=fast)
        finally:
            lock.release()
        report.seconds = time.perf_counter() - started
        return report

    def _run_or_rebuild(self, report: IndexReport, *, fast: bool) -> IndexReport:
        """The run; a damaged page met on the way (the open, the integrity check and the start
        marker only see part of the file) makes it start over, once, from a rebuilt index."""
        db = self._open_or_rebuild(report)
        try:
            self._passes(db, report, fast=fast)
            return report
        except DAMAGE_ERRORS as exc:
            reason = f"the index {self.config.db} is damaged ({exc})"
        except IndexNeedsRebuildError as exc:  # a read below found it so
            reason = exc.message
        except apsw.SQLError as exc:
            # sqlite-vec reports a damaged page it meets as an error of its own.
            problems = db.integrity_problems(quick=True)
            if not problems:
                raise
            reason = f"the index {self.config.db} is damaged ({exc}; {problems[0]})"
        finally:
            db.close()
        # Outside the except block, so the failed pass (its worker processes too) is gone first.
        rebuilt = IndexReport(warnings=report.warnings)
        db = self._rebuild(rebuilt, reason)
        try:
            self._passes(db, rebuilt, fast=fast)
        finally:
            db.close()
        return rebuilt

    def _passes(self, db: IndexDatabase, report: IndexReport, *, fast: bool) -> None:
        from vaultctx.index.multilingual_pass import choose_quality_pass

        self._run(db, report)
        index_vectors(db)
        quality = choose_quality_pass(
            db,
            self.config.settings.multilingual_chunks,
            self.multilingual_embedder,
        )
        # A pass 2 that leaves chunks to the multilingual vectors runs after them, so it knows
        # which chunks they cover (multilingual_pass.py).
        quality_first = quality == QUALITY_PASS
        for quality_now in (quality_first, not quality_first):
            if fast or report.interrupted:
                break
            if quality_now:
                self._quality_pass(db, report, quality)
            else:
                self._multilingual_pass(db, report)
        index_vectors(db)

    def _quality_pass(self, db: IndexDatabase, report: IndexReport, target: VectorPass) -> None:
        if self.quality_embedder is None:
            return
        done, total = quality_coverage(db, target)
        self.progress.start("embedding (pass 2)", total - done, "chunks")
        try:
            with report.timed("quality_embed"):
                result = run_quality_pass(
                    db,
                    self.quality_embedder,
                    target=target,
                    batch_size=self.config.settings.embed_batch_size,
                    stop=self._stop,
                    on_batch=self.progress.advance,
                )
        finally:
            self.progress.finish()
        report.quality_embedded = result.chunks_embedded
        report.quality_remaining = result.remaining
        report.interrupted = report.interrupted or result.interrupted
        if result.reset_reason:
            report.warnings.append(result.reset_reason)

    def _multilingual_pass(self, db: IndexDatabase, report: IndexReport) -> None:
        """Vectors for the questions and notes the English models cannot read
        (multilingual_pass.py); nothing at all, not even a model load, for an English vault."""
        from vaultctx.index.multilingual_pass import multilingual_target, run_multilingual_pass

        if self.multilingual_embedder is None:
            return
        target = multilingual_target(db, self.config.settings.multilingual_chunks)
        if target is None:
            return
        done, total = quality_coverage(db, target)
        self.progress.start("embedding (multilingual)", total - done, "chunks")
        try:
            with report.timed("multilingual_embed"):
                result = run_multilingual_pass(
                    db,
                    self.multilingual_embedder,
                    target,
                    batch_size=self.config.settings.embed_batch_size,
                    stop=self._stop,
                    on_batch=self.progress.advance,
                )
        finally:
            self.progress.finish()
        if result is None:
            return
        report.multilingual_embedded = result.chunks_embedded
        report.interrupted = report.interrupted or result.interrupted
        if result.reset_reason:
            report.warnings.append(result.reset_reason)

    def _open_or_rebuild(self, report: IndexReport) -> IndexDatabase:
        try:
            db = open_index(self.config.db)
        except IndexNeedsRebuildError as exc:
            return self._rebuild(report, exc.message)
        try:
            # quick_check reads the whole file (seconds at 50k notes), so it runs only when the
            # previous run did not finish (the only time our own writes can have left damage) or
            # before a full run, which reads and writes every note anyway (minutes at 50k).
            check = report.full or db.meta(META_RUN_STARTED) is not None
            problems = db.integrity_problems(quick=True) if check else []
            if not problems:
                if report.full and db.dialect == POSTGRES:
                    _reanalyse_if_bookkeeping_wrong(db, report)
                commit_without_flush_wait(db)
                with db.transaction():
                    db.set_meta(META_RUN_STARTED, str(time.time()))
                return db
            reason = f"the index {self.config.db} failed its integrity check ({problems[0]})"
        except DAMAGE_ERRORS as exc:
            reason = f"the index {self.config.db} is damaged ({exc})"
        db.close()
        return self._rebuild(report, reason)

    def _rebuild(self, report: IndexReport, reason: str) -> IndexDatabase:
        """Keep our damaged file aside (never delete it: a foreign file was refused long before
        here) and start a new index that the run fills from the vault."""
        assert isinstance(self.config.db, Path)  # only SQLite files are ever damaged
        aside = set_aside_damaged(self.config.db)
        message = f"{reason}: rebuilding it from the vault; the damaged file is kept as {aside}"
        report.warnings.append(message)
        log.warning("%s", message)
        report.full, report.full_reason = True, reason
        report.damaged_kept_as = str(aside)
        db = open_index(self.config.db)
        with db.transaction():
            db.set_meta(META_RUN_STARTED, str(time.time()))
        return db

    def _check_model(self, db: IndexDatabase, report: IndexReport) -> bool:
        """Vectors of two models never mix: a new engine or chunking means re-embedding all."""
        has_vectors = self.embedder is not None and ensure_vector_table(
            db, VECTOR_TABLE, self.embedder.dimension
        )
        settings = self.config.settings
        signature = json.dumps(
            {
                "model_hash": self.embedder.model_hash if has_vectors and self.embedder else None,
                "vectors": VECTOR_STORAGE,
                "chunker": _chunker_signature(settings),
            },
            sort_keys=True,
        )
        previous = db.meta(META_INDEX_SIGNATURE)
        if previous is not None and previous != signature and not report.full:
            old = json.loads(previous)
            new = json.loads(signature)
            what = "embedding model" if old["model_hash"] != new["model_hash"] else "index layout"
            message = f"{what} changed since the last index: full reindex"
            report.warnings.append(message)
            log.warning(message)
            report.full, report.full_reason = True, message
        with db.transaction():
            db.set_meta(META_INDEX_SIGNATURE, signature)
            if has_vectors and self.embedder is not None:
                db.set_meta(META_MODEL_NAME, self.embedder.name)
                db.set_meta(META_MODEL_HASH, self.embedder.model_hash)
        return has_vectors

    def _run(self, db: IndexDatabase, report: IndexReport) -> None:
        has_vectors = self._check_model(db, report)
        _rebuild_fts_if_analysis_changed(db, report)
        hangul.ensure_recorded(db)  # lets readers skip Kiwi for an index without Korean
        _record_scrubber(db)
        settings = self.config.settings
        with report.timed("scan"):
            scan = scan_vault(
                self.config.vault,
                max_file_bytes=settings.max_file_bytes,
                extra_ignores=settings.ignore,
            )
        report.files_seen = len(scan.files)
        report.skipped.extend({"path": s.path, "reason": s.reason} for s in scan.skipped)
        seen = _stat_digest(
            map(itemgetter(0), scan.files),
            map(itemgetter(2), scan.files),
            map(itemgetter(3), scan.files),
        )
        table = db.meta(STAT_DIGEST_META)
        settled = _settled_skips(db, table, seen, settings) if not report.full else None
        if not report.full and table == seen:
            report.unchanged = len(scan.files)  # the files table already holds exactly this
        elif settled is not None:
            report.unchanged = len(scan.files) - len(settled)
            report.skipped.extend(settled)
        else:
            before = len(report.skipped)
            defer_store_indexes(db)
            self._update(db, report, scan.files, has_vectors)
            if not report.interrupted:
                with db.transaction():
                    table = db.meta(STAT_DIGEST_META) or _table_digest(db)
                    db.set_meta(STAT_DIGEST_META, table)
                    record_chunk_languages(db)
                    _settle_skips(db, report, before, table, seen, settings)
        with db.transaction():
            db.execute("DELETE FROM model_meta WHERE key = ?", (META_RUN_STARTED,))
            db.set_meta(
                META_LAST_RUN,
                json.dumps(
                    {
                        "finished_at": time.time(),
                        "interrupted": report.interrupted,
                        "full": report.full,
                    }
                ),
            )

    def _update(
        self, db: IndexDatabase, report: IndexReport, files: list[VaultFile], has_vectors: bool
    ) -> None:
        """Index what changed since the files table was written, and remove what is gone."""
        settings = self.config.settings
        # Compare bare (mtime, size) tuples, and load whole rows only for the files that
        # changed or vanished.
        stat_of = {
            path: (mtime, size)
            for path, mtime, size in db.execute("SELECT path, mtime_ns, size FROM files")
        }
        todo = [f for f in files if report.full or stat_of.get(f.path) != (f.mtime_ns, f.size)]
        todo, named_secrets = _without_secret_names(todo, report)
        scanned = {f.path for f in files} - named_secrets
        gone_paths = [path for path in stat_of if path not in scanned]
        stored = _stored_rows(db, [f.path for f in todo] + gone_paths)
        gone = {path: stored[path] for path in gone_paths}
        gone_by_hash = {info.content_hash: path for path, info in gone.items()}
        report.unchanged = len(files) - len(todo)
        writer = _BatchWriter(
            db,
            self.embedder if has_vectors else None,
            settings.embed_batch_size,
            reuse_vectors=not report.full,
        )
        self.progress.start("indexing", len(todo), "files")
        accepted = 0
        try:
            for prepared, text in self._prepare_files(todo, stored, gone, report, writer.embedder):
                self._accept(
                    writer,
                    prepared,
                    text,
                    stored.get(prepared.file.path),
                    gone,
                    gone_by_hash,
                    report,
                )
                accepted += 1
                self.progress.advance()
                if self._stop.is_set():
                    break
            report.interrupted = accepted < len(todo)
            writer.flush(report)
            if not report.interrupted:
                self._remove(db, gone, report)
                if report.full:
                    if db.dialect != POSTGRES:  # PostgreSQL's keyword tables have no segments
                        db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
                    with db.transaction():  # every chunk has just been rewritten
                        db.set_meta(SCRUBBER_META, scrubber_fingerprint())
                if db.dialect == POSTGRES and report.chunks_written:
                    # Statistics for the planner, and the visibility map that lets ranking read
                    # the keyword index alone, now rather than when autovacuum gets round to it.
                    db.execute("VACUUM (ANALYZE) files, chunks, fts_terms, fts_docs, fts_blocks")
        finally:
            self.progress.finish()

    def _prepare_files(
        self,
        todo: list[VaultFile],
        stored: dict[str, _Stored],
        gone: dict[str, _Stored],
        report: IndexReport,
        embedder: Embedder | None,
    ) -> Iterator[tuple[PreparedFile, str | None]]:
        """Each file read and hashed, and in a large run already parsed, chunked and embedded
        by worker processes (parallel.py); small runs do it all here, where no start-up cost
        is paid. The text comes along only when this process still has to parse it."""
        from concurrent.futures.process import BrokenProcessPool

        from vaultctx.index.parallel import WorkerSetup, prepare_in_workers, worker_count
        from vaultctx.index.prepare import read_file

        workers = worker_count(self.config.settings, len(todo))
        done = 0
        if workers > 1:
            setup = WorkerSetup(
                self.config.settings,
                embedder,
                report.full,
                frozenset(info.content_hash for info in gone.values()),
            )
            tasks = [(f, stored[f.path].content_hash if f.path in stored else None) for f in todo]
            try:
                for prepared in prepare_in_workers(tasks, setup, workers, self._stop):
                    yield prepared, None
                    done += 1
                return
            except (BrokenProcessPool, OSError) as exc:
                # A worker killed (out of memory, say) or processes not allowed here: the
                # files not yet written are prepared in this process instead.
                log.warning("worker processes failed (%s); continuing in one process", exc)
                report.warnings.append(
                    f"worker processes failed ({exc}); the rest was indexed in one process "
                    "(set index_workers = 1 in vaultctx.toml to always do so)"
                )
        for vault_file in todo[done:]:
            if self._stop.is_set():
                return
            yield read_file(vault_file)

    def _accept(
        self,
        writer: _BatchWriter,
        prepared: PreparedFile,
        text: str | None,
        stored: _Stored | None,
        gone: dict[str, _Stored],
        gone_by_hash: dict[str, str],
        report: IndexReport,
    ) -> None:
        """Decide what a read file means for the index: unchanged, renamed, skipped or new."""
        from vaultctx.index.prepare import parse_and_chunk, read_file

        vault_file = prepared.file
        _merge_phases(report, prepared.phase_seconds)
        prepared.phase_seconds = {}
        if prepared.unreadable is not None or prepared.content_hash is None:
            # Keep what was indexed before: an unreadable moment must not erase a note.
            report.unreadable += 1
            report.skipped.append({"path": vault_file.path, "reason": str(prepared.unreadable)})
            return
        content_hash = prepared.content_hash
        if stored is not None and stored.content_hash == content_hash and not report.full:
            writer.touch(stored.id, vault_file)
            report.unchanged += 1
            return
        if stored is None and content_hash in gone_by_hash and not report.full:
            old_path = gone_by_hash.pop(content_hash)
            old = gone.pop(old_path)
            writer.rename(old.id, vault_file)
            report.renamed += 1
            return
        if prepared.note is None:
            if text is None:  # a worker returned it unparsed for a rename already taken
                prepared, text = read_file(vault_file)
                if text is None:
                    self._accept(writer, prepared, None, stored, gone, gone_by_hash, report)
                    return
            parse_and_chunk(prepared, text, self.config.settings)
            _merge_phases(report, prepared.phase_seconds)
            if prepared.unreadable is not None:
                report.unreadable += 1
                report.skipped.append({"path": vault_file.path, "reason": prepared.unreadable})
                return
        note = prepared.note
        assert note is not None
        if prepared.excluded is not None:
            report.skipped.append({"path": vault_file.path, "reason": prepared.excluded})
            if stored is not None:
                gone[vault_file.path] = stored
            return
        columns = prepared.columns
        assert columns is not None  # set with the chunks of every note not excluded
        report.problems.extend({"path": vault_file.path, "problem": p} for p in note.problems)
        report.secrets_redacted.update(prepared.secrets)
        if prepared.secrets:
            report.secrets_by_file[vault_file.path] = Counter(prepared.secrets)
        report.chunks_embedded += sum(row.vector is not None for row in prepared.chunks)
        writer.add(
            _FileWork(vault_file, note, columns, content_hash, prepared.chunks, stored is None),
            report,
        )
        if stored is None:
            report.added += 1
        else:
            report.changed += 1

    def _remove(self, db: IndexDatabase, gone: dict[str, _Stored], report: IndexReport) -> None:
        if not gone:
            return
        ids = [info.id for info in gone.values()]
        with db.transaction():
            _forget_table_digest(db)
            fts = _FtsChanges()
            for file_id in ids:
                fts.deleted.extend(_delete_file_rows(db, file_id, keep_file=False))
            fts.write(db)
        report.removed += len(ids)


def defer_store_indexes(db: IndexDatabase) -> None:
    """PostgreSQL: an empty keyword table is loaded without its indexes (postgres/fts.py)."""
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.fts import defer_term_indexes

        defer_term_indexes(db)


def commit_without_flush_wait(db: IndexDatabase) -> None:
    """PostgreSQL: the indexer's own commits do not wait for the server to flush its log to disk
    (``synchronous_commit = off``, this session only). Killing the indexer loses nothing it
    committed; a server crash can lose its last commits (each a whole batch of files with their
    ``mtime``), which the next run indexes again. Readers and every other writer keep the
    server's setting."""
    if db.dialect == POSTGRES:
        db.execute("SET synchronous_commit = off")


def index_vectors(db: IndexDatabase) -> None:
    """PostgreSQL: the HNSW index of vector tables filled since the last run (postgres/vectors),
    and the keyword table's indexes deferred during a load (postgres/fts.py), built at the same
    time (postgres/after_load.py)."""
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.after_load import build_after_load

        build_after_load(db, VECTOR_TABLES)


def _run_lock(config: Config) -> RunLock | AdvisoryLock:
    """The lock that keeps this run alone on the index: a file lock beside a SQLite index, an
    advisory lock in PostgreSQL (``postgres/lock.py``)."""
    if isinstance(config.db, PostgresLocation):
        from vaultctx.index.postgres.lock import AdvisoryLock

        return AdvisoryLock(config.db)
    check_db_location(config.vault, config.db)
    check_index_file(config.db)  # before the lock file appears beside someone's file
    ensure_index_folder(config.db)
    return RunLock(_create_lock_file(config.db))


def _create_lock_file(db: Path) -> Path:
    """The lock file beside the index, created here first: a lock file that cannot be created
    must not read as one that another process holds (the user would be told an indexer runs)."""
    path = Path(f"{db}.lock")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError as exc:
        raise IndexUnwritableError(
            f"cannot write the index at {db} (its lock file {path.name}: {exc.strerror})",
            WRITABLE_ADVICE,
        ) from exc
    return path


def _without_secret_names(
    todo: list[VaultFile], report: IndexReport
) -> tuple[list[VaultFile], set[str]]:
    """``todo`` minus the files whose path holds a credential (``deploy ghp_….md``), which are
    reported (scrubbed) and left out: the path is the note's identity in the index and in every
    result, so it cannot be redacted there. Only new and changed files are checked (~3 µs each)."""
    named = {f.path for f in todo if scrub_secrets(f.path).text != f.path}
    for path in sorted(named):
        report.skipped.append(
            {
                "path": scrub_secrets(path).text,
                "reason": "its file name holds what looks like a credential; rename the file "
                "to index it",
            }
        )
    return ([f for f in todo if f.path not in named] if named else todo), named


def _stored_rows(db: IndexDatabase, paths: list[str]) -> dict[str, _Stored]:
    if not paths:
        return {}
    return {
        str(path): _Stored(int(fid), int(mtime), int(size), str(chash))
        for fid, path, mtime, size, chash in db.execute(
            "SELECT id, path, mtime_ns, size, content_hash FROM files "
            "WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(paths),),
        )
    }


def _stat_digest(paths: Iterable[str], mtimes: Iterable[int], sizes: Iterable[int]) -> str:
    """One value for a whole listing of (path, mtime, size), in path order.

    A no-op run over 14k files must stay well under 200 ms, and fetching and comparing every
    row of the files table took ~50 ms of it; this digest of the scan takes ~13. The indexer
    stores the digest of the table after each complete run and deletes it before changing the
    table, so an equal digest means the table holds exactly the files on disk.
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update("\0".join(paths).encode("utf-8", "surrogatepass"))
    digest.update(array("q", mtimes).tobytes())
    digest.update(array("q", sizes).tobytes())
    return digest.hexdigest()


def _skip_key(table: str | None, seen: str, settings: Settings) -> str:
    """What the files left out on purpose depend on besides their own bytes: the settings that
    exclude boards and drawings, and the scrubber that refuses credential-like file names."""
    rules = [settings.index_kanban, settings.index_excalidraw, scrubber_fingerprint()]
    return json.dumps([table, seen, rules])


def _settle_skips(
    db: IndexDatabase,
    report: IndexReport,
    before: int,
    table: str,
    seen: str,
    settings: Settings,
) -> None:
    """After a complete run, remember the scan together with the files it left out on purpose
    (a kanban board, a credential in a file name), so the next run over the same files is a
    no-op instead of reading them again. Not when a file could not be read: that may pass, and
    the next run must try it again. Recorded in the transaction that stores the table's digest;
    any change of the files table deletes that digest, and with it this record's validity."""
    if report.unreadable:
        db.execute("DELETE FROM model_meta WHERE key = ?", (SETTLED_SKIPS_META,))
        return
    record = {"key": _skip_key(table, seen, settings), "skipped": report.skipped[before:]}
    db.set_meta(SETTLED_SKIPS_META, json.dumps(record))


def _settled_skips(
    db: IndexDatabase, table: str | None, seen: str, settings: Settings
) -> list[dict[str, str]] | None:
    """The files the last complete run left out on purpose, when nothing it depended on has
    changed since (see ``_settle_skips``); None when this run must look at the files."""
    if table is None:
        return None
    stored = db.meta(SETTLED_SKIPS_META)
    if stored is None:
        return None
    try:
        record = json.loads(stored)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("key") != _skip_key(table, seen, settings):
        return None
    skipped = record.get("skipped")
    return skipped if isinstance(skipped, list) else None


def _forget_table_digest(db: IndexDatabase) -> None:
    """Called in every transaction that changes the files table, before it does."""
    db.execute("DELETE FROM model_meta WHERE key = ?", (STAT_DIGEST_META,))


def _table_digest(db: IndexDatabase) -> str:
    rows = sorted(db.execute("SELECT path, mtime_ns, size FROM files"))
    return _stat_digest(
        map(itemgetter(0), rows), map(itemgetter(1), rows), map(itemgetter(2), rows)
    )


def _merge_phases(report: IndexReport, phases: dict[str, float]) -> None:
    for phase, seconds in phases.items():
        report.phase_seconds[phase] = report.phase_seconds.get(phase, 0.0) + seconds


def _chunk_values(
    cid: int, file_id: int, row: ChunkRow, mtime_ns: int, now: float
) -> tuple[object, ...]:
    """A ``chunks`` row, in the order ``_write_files`` inserts its columns."""
    return (
        cid,
        file_id,
        row.ordinal,
        row.section,
        row.heading_path,
        row.body,
        row.context,
        row.text_hash,
        mtime_ns,
        now if row.vector is not None else None,
        now if row.quality_vector is not None else None,
        row.lang,
    )


def _delete_file_rows(db: IndexDatabase, file_id: int, *, keep_file: bool) -> list[int]:
    """Delete a file's chunks, vectors, tags and links; returns the chunk ids, whose FTS rows
    the caller deletes with the rest of its batch (see ``_FtsChanges``)."""
    # Point deletes by rowid: a vec0 DELETE with "rowid IN (subquery)" scans the whole table.
    chunk_ids = [
        (int(r[0]),) for r in db.execute("SELECT id FROM chunks WHERE file_id = ?", (file_id,))
    ]
    if chunk_ids:
        for table in VECTOR_TABLES:
            if db.has_table(table):
                db.executemany(f"DELETE FROM {table} WHERE rowid = ?", chunk_ids)
        db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    db.execute("DELETE FROM file_tags WHERE file_id = ?", (file_id,))
    db.execute("DELETE FROM links WHERE file_id = ?", (file_id,))
    if not keep_file:
        db.execute("DELETE FROM files WHERE id = ?", (file_id,))
    return [cid for (cid,) in chunk_ids]


@dataclass
class _FtsChanges:
    """A batch's FTS5 deletes and inserts, written after all its other statements.

    FTS5 keeps inserted terms in memory until the transaction ends, but any later statement
    that opens a statement journal (the files upsert does) makes it flush them into a new
    segment first: one tiny segment per file, and merging them was most of the indexer's
    SQL time. Written last, a batch's terms flush once, at COMMIT.
    """

    deleted: list[int] = field(default_factory=list)
    added: list[tuple[int, tuple[str, str, str]]] = field(default_factory=list)

    def write(self, db: IndexDatabase) -> None:
        if self.deleted and db.dialect == POSTGRES:
            from vaultctx.index.postgres.fts import delete_rows

            delete_rows(db, self.deleted)
        elif self.deleted:
            db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(c,) for c in self.deleted])
        if self.added:
            write_fts_rows(db, self.added)


def _has_chunks(db: IndexDatabase) -> bool:
    return db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None


def _chunker_signature(settings: Settings) -> list[int | bool]:
    """The settings that decide the chunks. ``chunk_overlap_mid_sentence`` only when on, so
    indexes made before it existed (or with it off) keep their signature and are not rebuilt."""
    limits: list[int | bool] = [
        settings.chunk_max_chars,
        settings.chunk_min_chars,
        settings.chunk_overlap,
    ]
    return [*limits, True] if settings.chunk_overlap_mid_sentence else limits


def _record_scrubber(db: IndexDatabase) -> None:
    """Claim "every chunk was scrubbed by this scrubber" only while it is true: from an empty
    index on. After a scrubber change the older chunks stay until a full run completes, so the
    claim is withdrawn and readers scrub output again (see scrub/fingerprint.py)."""
    current = scrubber_fingerprint()
    if db.meta(SCRUBBER_META) == current:
        return
    with db.transaction():
        db.set_meta(SCRUBBER_META, "mixed" if _has_chunks(db) else current)


def write_fts_rows(db: IndexDatabase, rows: list[tuple[int, tuple[str, str, str]]]) -> None:
    """Index (chunk id, analysed columns) in the contentless FTS table (see prepare.fts_columns)."""
    hangul.note_fts_rows(db, rows)
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.fts import write_rows

        write_rows(db, rows)
        return
    db.executemany(
        "INSERT INTO chunks_fts(rowid, chunk_text, section, heading_context) VALUES (?, ?, ?, ?)",
        [(cid, *columns) for cid, columns in rows],
    )


def _reanalyse_if_bookkeeping_wrong(db: IndexDatabase, report: IndexReport) -> None:
    """A full run over PostgreSQL, where nothing is set aside (the server keeps its own pages):
    keyword statistics that do not add up (``doctor``'s "index integrity") are rebuilt from every
    chunk, as a new text analyzer would have them, instead of carried over by the run's deltas."""
    problems = db.integrity_problems()
    if not problems:
        return
    message = f"the index {db.path} failed its check ({problems[0]}): re-analysing every chunk"
    report.warnings.append(message)
    log.warning("%s", message)
    with db.transaction():
        db.execute("DELETE FROM model_meta WHERE key = ?", (FTS_ANALYZER_META,))


def _rebuild_fts_if_analysis_changed(db: IndexDatabase, report: IndexReport) -> None:
    """The FTS rows hold analysed text: a different analyzer (say, Kiwi newly installed for
    Korean) must re-analyse every chunk, or old and new tokens would never match."""
    current = analyzer_id()
    stored = db.meta(FTS_ANALYZER_META)
    if stored == current:
        return
    if (
        stored is not None
        and db.meta(hangul.HANGUL_META) == "0"
        and analyses_agree_without_hangul(stored, current)
    ):
        with db.transaction():  # no Korean to re-analyse: the rows are what they would be
            db.set_meta(FTS_ANALYZER_META, current)
        return
    if stored is not None and _has_chunks(db):
        message = f"text analysis changed ({stored} → {current}): re-analysing all chunks for BM25"
        report.warnings.append(message)
        log.warning(message)
    with report.timed("fts_rebuild"), db.transaction():
        if db.dialect == POSTGRES:
            from vaultctx.index.postgres.fts import delete_all

            delete_all(db)
        else:
            db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
        analyse_stored_chunks(db)


def analyse_stored_chunks(db: IndexDatabase) -> int:
    """Fill the (empty) keyword index from every chunk's stored text, analysed as this process
    analyses, and record that analysis; the number of chunks. Also how ``db copy`` builds the
    keyword index of a copy, which each store keeps in its own shape."""
    from vaultctx.index.prepare import fts_columns

    analysed = 0
    last_id = 0
    while True:
        batch = [
            (int(cid), fts_columns(unpack_text(body), str(section), str(context)))
            for cid, body, section, context in db.execute(
                "SELECT id, body, section, heading_context FROM chunks "
                "WHERE id > ? ORDER BY id LIMIT 1000",
                (last_id,),
            )
        ]
        if not batch:
            break
        write_fts_rows(db, batch)
        analysed += len(batch)
        last_id = batch[-1][0]
    db.set_meta(FTS_ANALYZER_META, analyzer_id())
    return analysed


# The columns ``_BatchWriter`` writes, in the order its rows hold them.
FILE_COLUMNS = (
    "id",
    "path",
    "mtime_ns",
    "size",
    "content_hash",
    "title",
    "type",
    "status",
    "front_matter",
    "tags",
    "aliases",
    "problems",
    "indexed_at",
)
CHUNK_COLUMNS = (
    "id",
    "file_id",
    "ordinal",
    "section",
    "heading_path",
    "body",
    "heading_context",
    "text_hash",
    "mtime_ns",
    "embedded_at",
    "quality_embedded_at",
    "lang",
)
LINK_COLUMNS = ("file_id", "target", "heading", "block", "alias", "kind", "line")

# Whole files are written in transactions of at least this many chunks. Each COMMIT makes FTS5
# flush its pending terms into a new segment (merged again later) and writes the WAL: committing
# every embedding batch (64 chunks) cost ~30 % of the write phase's CPU. Ctrl-C still commits
# what was prepared (at most one such batch) within a second.
WRITE_BATCH_CHUNKS = 1024


class _BatchWriter:
    """Collects whole files until a batch of chunks is full, then embeds and writes them at once.

    A batch's rows are gathered across its files and written with one ``executemany`` per table:
    one call per file and table was a fifth of the write phase.
    """

    def __init__(
        self,
        db: IndexDatabase,
        embedder: Embedder | None,
        batch_size: int,
        *,
        reuse_vectors: bool,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.batch_size = batch_size
        self.reuse_vectors = reuse_vectors
        self.memo = VectorMemo()  # texts this run embedded already (index/vector_memo.py)
        self.pending: list[_FileWork] = []
        self.pending_chunks = 0
        self.touches: list[tuple[int, int, int]] = []
        self.renames: list[tuple[str, int, int, int]] = []

    def add(self, work: _FileWork, report: IndexReport) -> None:
        self.pending.append(work)
        self.pending_chunks += len(work.chunks)
        if self.pending_chunks >= max(self.batch_size, WRITE_BATCH_CHUNKS):
            self.flush(report)

    def touch(self, file_id: int, vault_file: VaultFile) -> None:
        self.touches.append((vault_file.mtime_ns, vault_file.size, file_id))

    def rename(self, file_id: int, vault_file: VaultFile) -> None:
        self.renames.append((vault_file.path, vault_file.mtime_ns, vault_file.size, file_id))

    def flush(self, report: IndexReport) -> None:
        if not (self.pending or self.touches or self.renames):
            return
        if self.embedder is not None:
            with report.timed("embed"):
                self._embed(report)
        with report.timed("write"), self.db.transaction():
            _forget_table_digest(self.db)
            if self.touches:
                self.db.executemany(
                    "UPDATE files SET mtime_ns = ?, size = ? WHERE id = ?", self.touches
                )
            for path, mtime_ns, size, file_id in self.renames:
                self.db.execute(
                    "UPDATE files SET path = ?, mtime_ns = ?, size = ? WHERE id = ?",
                    (path, mtime_ns, size, file_id),
                )
            if self.pending:
                self._write_files()
                report.chunks_written += self.pending_chunks
        self.pending, self.pending_chunks, self.touches, self.renames = [], 0, [], []

    def _embed(self, report: IndexReport) -> None:
        assert self.embedder is not None
        if self.reuse_vectors:
            self._reuse_vectors(report)
        from vaultctx.index.prepare import embed_rows

        missing = [row for work in self.pending for row in work.chunks if row.vector is None]
        embed_rows(missing, self.embedder, self.batch_size, self.memo)
        report.chunks_embedded += len(missing)

    def _reuse_vectors(self, report: IndexReport) -> None:
        """Unchanged sections of an edited note keep their vectors; only new text is embedded."""
        for work in self.pending:
            if work.is_new:
                continue
            for table, attribute in ((VECTOR_TABLE, "vector"), (QUALITY_TABLE, "quality_vector")):
                if not self.db.has_table(table):
                    continue
                old = {
                    bytes(text_hash): bytes(blob)
                    for text_hash, blob in self.db.execute(
                        f"SELECT c.text_hash, v.embedding FROM chunks c "
                        f"JOIN {table} v ON v.rowid = c.id "
                        "JOIN files f ON f.id = c.file_id WHERE f.path = ?",
                        (work.file.path,),
                    )
                }
                for row in work.chunks:
                    blob = old.get(row.text_hash)
                    if blob is not None:
                        setattr(row, attribute, blob)
                        report.vectors_reused += attribute == "vector"

    def _write_files(self) -> None:
        """Write the pending files' rows, FTS rows last (see ``_FtsChanges``).

        Chunk ids, and new files' ids, are numbered here from the tables' largest id + 1, which
        is what SQLite would pick: that spares a query per file (and new files the upsert, whose
        RETURNING needs a statement of its own). Changed files keep their id through the upsert.
        """
        fts = _FtsChanges()
        next_chunk = int(self.db.scalar("SELECT coalesce(max(id), 0) + 1 FROM chunks"))
        next_file = int(self.db.scalar("SELECT coalesce(max(id), 0) + 1 FROM files"))
        now = time.time()
        new_files: list[tuple[object, ...]] = []
        chunks: list[tuple[object, ...]] = []
        vectors: list[tuple[int, bytes]] = []
        quality: list[tuple[int, bytes]] = []
        tags: list[tuple[int, str]] = []
        links: list[tuple[object, ...]] = []
        for work in self.pending:
            if work.is_new:
                file_id, next_file = next_file, next_file + 1
                new_files.append((file_id, *self._file_values(work, now)))
            else:
                file_id = self._upsert_file(work, now)
                fts.deleted.extend(_delete_file_rows(self.db, file_id, keep_file=True))
            mtime_ns = work.file.mtime_ns
            for cid, row in enumerate(work.chunks, next_chunk):
                chunks.append(_chunk_values(cid, file_id, row, mtime_ns, now))
                fts.added.append((cid, row.fts_columns))
                if row.vector:
                    vectors.append((cid, row.vector))
                if row.quality_vector:
                    quality.append((cid, row.quality_vector))
            next_chunk += len(work.chunks)
            tags.extend((file_id, tag) for tag in work.note.tags)
            links.extend(
                (file_id, link.target, link.heading, link.block, link.alias, link.kind, link.line)
                for link in work.note.links
            )
        self.db.insert_rows("files", FILE_COLUMNS, new_files)
        self.db.insert_rows("chunks", CHUNK_COLUMNS, chunks)
        if self.embedder is not None:
            self.db.insert_vectors(VECTOR_TABLE, vectors)
            self.db.insert_vectors(QUALITY_TABLE, quality)
        self.db.insert_rows("file_tags", ("file_id", "tag"), tags)
        self.db.insert_rows("links", LINK_COLUMNS, links)
        fts.write(self.db)

    @staticmethod
    def _file_values(work: _FileWork, now: float) -> tuple[object, ...]:
        vault_file = work.file
        return (
            vault_file.path,
            vault_file.mtime_ns,
            vault_file.size,
            work.content_hash,
            *work.columns,
            now,
        )

    def _upsert_file(self, work: _FileWork, now: float) -> int:
        file_id = self.db.scalar(
            "INSERT INTO files(path, mtime_ns, size, content_hash, title, type, status, "
            "front_matter, tags, aliases, problems, indexed_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET mtime_ns = excluded.mtime_ns, size = excluded.size, "
            "content_hash = excluded.content_hash, title = excluded.title, type = excluded.type, "
            "status = excluded.status, front_matter = excluded.front_matter, "
            "tags = excluded.tags, aliases = excluded.aliases, problems = excluded.problems, "
            "indexed_at = excluded.indexed_at RETURNING id",
            self._file_values(work, now),
        )
        return int(file_id)


__all__ = [
    "IndexReport",
    "Indexer",
    "IndexerBusyError",
    "ProgressSink",
]
