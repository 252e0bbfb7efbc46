"""The search before a question runs beside the event loop, not on it: a session's first search
loads the query models (seconds on a loaded machine), and the web UI serves every page, and
every other conversation, from that loop meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from tests.agent.scripted_model import FINAL, ScriptedModel
from tests.agent.session_support import scripted_session
from tests.agent.tool_support import vault_copy
from vaultctx.agent import session as session_module
from vaultctx.agent.retrieval import Retrieved


def test_the_loop_keeps_running_while_the_question_is_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched_on: list[threading.Thread] = []

    def slow_retrieve(vault: object, queries: list[str], **options: object) -> Retrieved:
        searched_on.append(threading.current_thread())
        time.sleep(0.5)  # as loading the models would
        return Retrieved([], list(queries), 500.0)

    monkeypatch.setattr(session_module, "retrieve", slow_retrieve)
    monkeypatch.setattr(session_module.ChatSession, "_check_citations", lambda self, turn: None)
    session = scripted_session(vault_copy(tmp_path), ScriptedModel([[FINAL]]))
    ticks = 0

    async def tick_until(done: asyncio.Task[object]) -> None:
        nonlocal ticks
        while not done.done():
            ticks += 1
            await asyncio.sleep(0.01)

    async def both() -> object:
        turn = asyncio.create_task(session.ask("where is the plan?", lambda text: None))
        await tick_until(turn)
        return await turn

    turn = asyncio.run(both())
    assert getattr(turn, "answer", None) == FINAL
    assert searched_on and searched_on[0] is not threading.main_thread()
    assert ticks >= 10, ticks  # ~50 while the search slept; 1 if it had held the loop
