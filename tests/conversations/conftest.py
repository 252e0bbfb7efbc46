"""A private user data dir per test, so stores (and indexes) land in tmp, never in the real one.

``platformdirs.user_data_dir`` is replaced (read at call time by config.py and location.py,
so this works on every platform) and ``XDG_DATA_HOME`` set too, for code that asks the
environment.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import make_vault
from vaultctx.conversations import ConversationStore


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(folder / name))
    monkeypatch.delenv("VAULT_PATH", raising=False)
    monkeypatch.delenv("DB_PATH", raising=False)
    return folder / "vaultctx"


@pytest.fixture
def vault(tmp_path: Path, data_dir: Path) -> Path:
    return make_vault(
        tmp_path / "notes",
        {"ops/wal.md": "# WAL\n\nCheckpoints keep the write-ahead log small.\n"},
    )


@pytest.fixture
def store(vault: Path) -> Iterator[ConversationStore]:
    with ConversationStore.open(vault) as opened:
        yield opened
