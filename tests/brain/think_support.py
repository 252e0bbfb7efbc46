"""The Second Brain's thinking tools in-process: a vault with Second Brain on, and the real
OpenAI client (pydantic-ai) talking to the OpenAI wire fake, whose replies a test scripts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from tests.agent.fakes import OpenAIFake
from vaultctx.agent.backends import Backend
from vaultctx.agent.complete import BackendTextModel
from vaultctx.agent.settings import AgentSettings
from vaultctx.api import Vault

T = TypeVar("T")
ON = "[second_brain]\nenabled = true\n"


def turn_on(vault: Path, wiki_folder: str | None = None) -> None:
    text = ON + (f'wiki_folder = "{wiki_folder}"\n' if wiki_folder else "")
    (vault / "vaultctx.toml").write_text(text, encoding="utf-8")


def fake_model(fake: OpenAIFake) -> BackendTextModel:
    """A ``TextModel`` whose requests go over HTTP to ``fake``."""
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    url = f"{fake.base_url}/v1"
    model = OpenAIChatModel("gpt-fake", provider=OpenAIProvider(base_url=url, api_key="test"))
    settings = AgentSettings(backend="openai", model="gpt-fake", base_url=url)
    return BackendTextModel(settings, Backend("openai", "gpt-fake", url, model))


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def chat_bodies(fake: OpenAIFake) -> list[dict[str, Any]]:
    """The JSON bodies of the chat requests the fake received, in order."""
    return [r.json for r in fake.requests_to("/chat/completions") if isinstance(r.json, dict)]


def prompt_of(body: dict[str, Any]) -> str:
    """The user message of a chat request body."""
    return "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")


def system_of(body: dict[str, Any]) -> str:
    return "\n".join(
        str(m.get("content")) for m in body["messages"] if m.get("role") in ("system", "developer")
    )


def max_tokens_of(body: dict[str, Any]) -> int:
    return int(body.get("max_completion_tokens") or body["max_tokens"])


def indexed_vault(root: Path, notes: dict[str, str], db: Path) -> Vault:
    """A vault of ``notes`` (path: text), Second Brain on, indexed (fast pass)."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in notes.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    turn_on(root)
    vault = Vault(root, db=db)
    vault.index(fast=True)
    return vault


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
