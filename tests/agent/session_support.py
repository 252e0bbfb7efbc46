"""A ``ChatSession`` over a scripted model (tests/agent/scripted_model.py), without retrieval,
so a test drives the tool loop round by round against a private vault."""

from __future__ import annotations

import pytest

from tests.agent.scripted_model import ScriptedModel
from vaultctx.agent.backends import Backend
from vaultctx.agent.confirm import Confirm
from vaultctx.agent.retrieval import Retrieved
from vaultctx.agent.session import ChatSession
from vaultctx.agent.settings import AgentSettings
from vaultctx.api import Vault


def no_retrieval(monkeypatch: pytest.MonkeyPatch) -> None:
    """Questions go to the model without passages, and answers are not checked for citations:
    the vault need not be indexed."""

    async def nothing(self: ChatSession, question: str) -> Retrieved:
        return Retrieved([], [question], 0.0)

    monkeypatch.setattr(ChatSession, "_retrieve", nothing)
    monkeypatch.setattr(ChatSession, "_check_citations", lambda self, turn: None)


def scripted_session(
    vault: Vault,
    script: ScriptedModel,
    *,
    confirm_changes: bool = False,
    confirm: Confirm | None = None,
) -> ChatSession:
    settings = AgentSettings(model="scripted", translate=False, confirm_changes=confirm_changes)
    backend = Backend("openai", "scripted", "", script.model())
    return ChatSession(vault, settings, backend, confirm=confirm)
