"""A chat turn that fails in a way nobody planned for still ends on the page, as a failure that
says so, and the details go to the server's log; the page never waits for an answer forever."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from vaultctx.api import Vault
from vaultctx.ui.chat import ChatRooms

KEY = "k" * 20


class BrokenSession:
    settings = SimpleNamespace(effort=None)
    effort = None
    on_tool_call = None

    async def ask(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug nobody planned for")


def events(rooms: ChatRooms) -> list[tuple[str, Any]]:
    async def collect() -> list[tuple[str, Any]]:
        seen = []
        async for block in rooms.stream(KEY, "why does WAL mode help?"):
            kind, data = block.strip().split("\n")
            seen.append((kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
        return seen

    return asyncio.run(collect())


def test_an_unexpected_error_ends_the_turn_as_a_failure_and_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "vault").mkdir()
    rooms = ChatRooms(Vault(tmp_path / "vault", db=tmp_path / "index.db"))
    monkeypatch.setattr(
        rooms, "_open", lambda key, conversation="": (BrokenSession(), asyncio.Lock())
    )
    seen = events(rooms)
    assert [kind for kind, _ in seen] == ["failure"]
    assert "unexpected error" in seen[0][1]["message"]
    assert "a bug nobody planned for" not in json.dumps(seen)  # the details are for the log
    assert "a bug nobody planned for" in caplog.text
