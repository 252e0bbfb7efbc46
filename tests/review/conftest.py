"""The review flows' fixtures (tests/review/support.py) for every test in this folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakes import OpenAIFake
from tests.review.support import fake_server, isolate


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ledger, settings, saved lists and the review queue's history in tmp."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return isolate(tmp_path, monkeypatch)


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    yield from fake_server()
