"""Large index runs prepare files in worker processes while the indexer's process writes.

Reading, parsing, scrubbing and embedding are pure CPU work per file (~90 % of a first index),
and Python runs it on one core: spreading it over one process per core, while SQLite writes in
the indexer's own process, keeps every guarantee of the serial path — one writer, whole files per
transaction, results consumed in scan order — and only changes where the work happens. A bounded
number of files is in flight, so memory stays flat however large the vault.

Workers ignore SIGINT: Ctrl-C reaches the whole process group, and the indexer alone decides to
stop and commit what it has. The workers are then told to stop at their next file boundary rather
than awaited for whole groups (which kept Ctrl-C waiting for seconds): they only read and compute,
the files still in flight are dropped unwritten and the next run prepares them again.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Protocol

from vaultctx.config import Settings, usable_cores
from vaultctx.embed.base import Embedder
from vaultctx.index.phase_time import timed
from vaultctx.index.prepare import (
    PreparedFile,
    embed_rows,
    parse_and_chunk,
    read_file,
    without_text,
)
from vaultctx.index.vector_memo import VectorMemo
from vaultctx.vault.scanner import VaultFile

# Below this many files to (re)index, starting processes and loading a model in each costs more
# than it saves (~1 s per worker).
MIN_FILES_FOR_WORKERS = 400
# Workers take consecutive files in groups: the static engine embeds a group's chunks in full
# batches (one note is ~9 chunks, and per-call costs doubled embedding time when each file was
# embedded alone), and a group is one round trip instead of one per file.
GROUP_MAX_FILES = 32
GROUP_MAX_BYTES = 64 * 1024
IN_FLIGHT_PER_WORKER = 4  # groups
# How often a wait for the workers looks at the stop request: Ctrl-C is answered within a second.
STOP_POLL_SECONDS = 0.05
# How long stopping workers may take to hand back their groups before they are terminated.
STOP_GRACE_SECONDS = 2.0


class EventLike(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker needs, sent once when it starts.

    ``full`` means every file is prepared; otherwise a file whose hash equals its stored hash or a
    vanished file's hash (an unchanged or renamed note) comes back unparsed for the indexer to
    touch or rename.
    """

    settings: Settings
    embedder: Embedder | None
    full: bool
    gone_hashes: frozenset[str]


def worker_count(settings: Settings, files: int) -> int:
    if settings.index_workers > 0:
        return settings.index_workers
    if files < MIN_FILES_FOR_WORKERS:
        return 1
    return usable_cores()


_setup: WorkerSetup | None = None
_stopping: EventLike | None = None
_memo: VectorMemo | None = None  # this worker's vectors of texts it embedded (vector_memo.py)


def _start_worker(setup: WorkerSetup, stopping: EventLike) -> None:
    global _setup, _stopping, _memo
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _stopping = stopping
    _memo = VectorMemo()
    # One thread per worker: the tokenizer's own thread pool would otherwise oversubscribe the
    # cores the workers already fill (measured: embedding CPU time doubled).
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    _setup = setup
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: BaseProcess) -> None:
    """An indexer killed with SIGKILL cannot stop its workers, and they would wait for work
    forever holding a model in memory: each worker leaves as soon as its parent is gone."""
    multiprocessing.connection.wait([parent.sentinel])
    os._exit(1)


Task = tuple[VaultFile, str | None]


def _prepare_group(group: list[Task]) -> list[PreparedFile]:
    assert _setup is not None, "worker not initialised"
    prepared = []
    for task in group:
        if _stopping is not None and _stopping.is_set():
            break  # the indexer is stopping: hand back what is done, at a file boundary
        prepared.append(_prepare(task, _setup))
    rows = [row for item in prepared for row in item.chunks]
    if _setup.embedder is not None and rows:
        with timed(prepared[0].phase_seconds, "embed"):
            embed_rows(rows, _setup.embedder, _setup.settings.embed_batch_size, _memo)
    return [without_text(item) for item in prepared]


def _prepare(task: Task, setup: WorkerSetup) -> PreparedFile:
    vault_file, stored_hash = task
    prepared, text = read_file(vault_file)
    if text is None:
        return prepared
    known = prepared.content_hash == stored_hash or prepared.content_hash in setup.gone_hashes
    if known and not setup.full:
        return prepared
    parse_and_chunk(prepared, text, setup.settings)
    return prepared


def _groups(tasks: Sequence[Task]) -> Iterator[list[Task]]:
    group: list[Task] = []
    size = 0
    for task in tasks:
        group.append(task)
        size += task[0].size
        if len(group) >= GROUP_MAX_FILES or size >= GROUP_MAX_BYTES:
            yield group
            group, size = [], 0
    if group:
        yield group


def prepare_in_workers(
    tasks: Sequence[Task],
    setup: WorkerSetup,
    workers: int,
    stop: threading.Event,
) -> Iterator[PreparedFile]:
    """Prepared files in the order of ``tasks``, until ``stop`` is set (noticed within
    ``STOP_POLL_SECONDS``, also while waiting for a group)."""
    context = multiprocessing.get_context("spawn")  # the same on Linux, macOS and Windows
    stopping = context.Event()
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(setup, stopping)
    )
    pending: deque[Future[list[PreparedFile]]] = deque()
    upcoming = _groups(tasks)
    finished = False
    try:
        for group in upcoming:
            pending.append(pool.submit(_prepare_group, group))
            if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                break
        while pending:
            prepared = _result_unless_stopped(pending.popleft(), stop)
            if prepared is None:
                return
            following = next(upcoming, None)
            if following is not None:
                pending.append(pool.submit(_prepare_group, following))
            for item in prepared:
                yield item
                if stop.is_set():
                    return
        finished = True
    finally:
        if finished:
            pool.shutdown()
        else:
            stopping.set()
            _stop_workers(pool)


def _result_unless_stopped(
    future: Future[list[PreparedFile]], stop: threading.Event
) -> list[PreparedFile] | None:
    while not stop.is_set():
        if wait([future], timeout=STOP_POLL_SECONDS).done:
            return future.result()
    return None


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop the workers without waiting for their groups (see the module's docstring).

    They are asked first (``stopping``: each returns at its next file boundary), and only a worker
    still busy after ``STOP_GRACE_SECONDS`` (one still starting up, say) is terminated. Killing a
    worker while it writes its result to the pool's pipe would leave the pool's manager thread
    reading half a message forever, and the interpreter waits for that thread at exit: this hung
    Ctrl-C on a loaded machine.
    """
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.terminate()
