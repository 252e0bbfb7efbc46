"""A served vault answers several searches at once (mcp/readers.py), on both stores: a read never
waits for another read nor for a write holding the vault's lock, each concurrent read has a
connection of its own, and the readers rank vectors from the vault's one copy in memory."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from tests.postgres.conftest import location_for
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation
from vaultctx.mcp.readers import SQLITE_READERS, Readers, pool_size
from vaultctx.mcp.server import VaultService
from vaultctx.search.retriever import Retriever
from vaultctx.search.vector_sources import IndexRetriever

DEADLINE_S = 60.0  # generous: the machine is shared; a blocked read would wait for ever


@pytest.fixture(params=["sqlite", "postgres"])
def service(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[VaultService]:
    vault = copy_example_vault(tmp_path / "vault")
    location = location_for(request.param, vault, tmp_path, request)
    Vault(vault, db=location).index(fast=True)
    served = VaultService(Vault(vault, db=location))
    served.start_warmup()
    assert served._ready.wait(DEADLINE_S)
    yield served
    served.readers.close()
    served.vault.close()


def _search(vault: Vault) -> list[str]:
    return [result.citation for result in vault.search("compost", limit=3).results]


def _in_thread(action: object) -> tuple[threading.Thread, list[object]]:
    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(action()), daemon=True)  # type: ignore[operator]
    thread.start()
    return thread, found


def test_a_read_does_not_wait_for_a_write_holding_the_vault(service: VaultService) -> None:
    expected = service.call(_search)
    assert expected
    with service._lock:  # a write in progress (an index run, a note write)
        thread, found = _in_thread(lambda: service.read(_search))
        thread.join(DEADLINE_S)
        assert not thread.is_alive(), "the search waited for the write"
    assert found == [expected]


def test_pool_sizes_follow_the_store(
    service: VaultService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As measured for each store (mcp/readers.py): four on SQLite; on PostgreSQL one per core
    this process may use, at least two."""
    postgres = isinstance(service.vault.db_path, PostgresLocation)
    assert service.readers._size == pool_size(service.vault.db_path)
    for cores, expected in (({0}, 2), ({0, 1}, 2), ({0, 1, 2, 3, 4}, 5)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cores=cores: cores)
        assert pool_size(service.vault.db_path) == (expected if postgres else SQLITE_READERS)
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert pool_size(service.vault.db_path) == (6 if postgres else SQLITE_READERS)


def test_two_reads_run_at_once_each_on_its_own_connection(service: VaultService) -> None:
    service.readers = Readers(service.vault, service._lock, size=2)
    inside = threading.Event()
    release = threading.Event()
    connections: list[object] = []

    def held_read(vault: Vault) -> list[str]:
        connections.append(vault.retriever().db)
        inside.set()
        assert release.wait(DEADLINE_S)
        return _search(vault)

    first, first_found = _in_thread(lambda: service.read(held_read))
    assert inside.wait(DEADLINE_S)
    second, second_found = _in_thread(
        lambda: service.read(
            lambda vault: (connections.append(vault.retriever().db), _search(vault))[1]
        )
    )
    second.join(DEADLINE_S)
    assert not second.is_alive(), "the second search waited for the first"
    release.set()
    first.join(DEADLINE_S)
    assert first_found == second_found
    assert len({id(connection) for connection in connections}) == 2
    assert service.readers.opened == 2


def test_readers_rank_vectors_from_memory(service: VaultService) -> None:
    """PostgreSQL readers share the vault's matrices; a SQLite reader loads its own (SQLite's
    data version is per connection: shared matrices would look stale to every reader)."""
    held = service.vault.retriever().memory
    assert held is not None  # the warm-up loaded them
    for _ in range(4):  # more than VECTORS_IN_MEMORY_AFTER queries
        service.read(_search)
    with service.readers.handle() as reader:
        memory = reader.retriever().memory
    assert memory is not None
    if isinstance(service.vault.db_path, PostgresLocation):
        assert memory._matrices is held._matrices  # one copy, not one per reader
    else:
        assert memory._matrices is not held._matrices


def test_the_pool_never_opens_more_readers_than_its_size(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    readers = Readers(Vault(vault, db=tmp_path / "index.db"), threading.Lock(), size=2)
    taken: list[Vault] = []
    with readers.handle() as one, readers.handle() as two:
        taken += [one, two]
        third, found = _in_thread(lambda: readers.handle().__enter__())
        third.join(0.5)
        assert third.is_alive()  # waits for a free reader
    third.join(DEADLINE_S)
    assert found and found[0] in taken
    assert readers.opened == 2


def test_sharing_the_vectors_adds_no_vector_sources(
    service: VaultService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After each call the reader is offered the vault's matrices (``Readers.share_vectors``):
    that must not look up the vector sources once more, a statement per search once pass 2 is
    complete (``IndexRetriever`` checks every time whether the static vectors are needed)."""
    service.read(_search)
    looked_up: list[str] = []
    add = IndexRetriever._add_vector_sources

    def counting(self: IndexRetriever, retriever: Retriever) -> None:
        looked_up.append("sources")
        add(self, retriever)

    monkeypatch.setattr(IndexRetriever, "_add_vector_sources", counting)
    service.read(_search)
    searched = len(looked_up)
    looked_up.clear()
    with service.readers.handle() as reader:
        service.readers.share_vectors(reader)
    assert searched >= 1 and looked_up == []
