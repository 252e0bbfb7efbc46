"""The Second Brain's writing tools as the model calls them: offered only while enabled, each
refusing while off, worded for the model, recorded under the tool's name."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.brain.conftest import ScriptedText, brain_vault
from vaultctx.agent.brain_tools import BRAIN_TOOLS, session_tools
from vaultctx.agent.brain_write_tools import BRAIN_OFF, BRAIN_WRITE_TOOLS
from vaultctx.agent.confirm import needs_confirmation
from vaultctx.agent.tool_contract import ToolContext, run_tool
from vaultctx.api import Vault

BY_NAME = {spec.name: spec for spec in BRAIN_TOOLS}


def call(vault: Vault, tool: str, args: dict[str, Any], **context: Any) -> str:
    return asyncio.run(run_tool(BY_NAME[tool], args, ToolContext(vault, **context)))


def test_the_writing_tools_are_offered_only_when_enabled(tmp_path: Path) -> None:
    names = {spec.name for spec in BRAIN_WRITE_TOOLS}
    assert names >= {"create_wiki_note", "update_index", "synthesize_topic"}
    assert all(spec.writes and needs_confirmation(spec.name) for spec in BRAIN_WRITE_TOOLS)
    on = brain_vault(tmp_path / "on", indexed=False)
    off = brain_vault(tmp_path / "off", enabled=False, indexed=False)
    assert names <= {spec.name for spec in session_tools(on)}
    assert names.isdisjoint(spec.name for spec in session_tools(off))


def test_each_tool_refuses_while_off(tmp_path: Path) -> None:
    vault = brain_vault(tmp_path, enabled=False, indexed=False)
    for tool, args in (
        ("create_wiki_note", {"title": "T", "body": "b"}),
        ("update_index", {}),
        ("synthesize_topic", {"topic": "compost"}),
    ):
        result = call(vault, tool, args, text_model=ScriptedText("x"))
        assert result == f"Tool execution error: {BRAIN_OFF}"
    assert not (vault.path / "Second Brain").exists()


def test_create_wiki_note_and_update_index(vault: Vault) -> None:
    made = call(
        vault,
        "create_wiki_note",
        {"title": "Soil", "body": "b", "category": "entities", "meta": {"learnedAt": "2026-01-05"}},
    )
    assert made == "Wiki note created: Second Brain/entities/Soil.md"
    text = (vault.path / "Second Brain/entities/Soil.md").read_text(encoding="utf-8")
    assert "learned_at: 2026-01-05\n" in text
    assert vault.ledger()[0].label == "create_wiki_note Soil"
    again = call(vault, "create_wiki_note", {"title": "Soil", "body": "c", "category": "entities"})
    assert again.startswith(
        "Tool execution error: create_wiki_note: A note already exists and was not overwritten"
    )
    bad_meta = call(vault, "create_wiki_note", {"title": "X", "body": "c", "meta": "high"})
    assert bad_meta.startswith("Tool execution error: create_wiki_note: `meta` must be an object")
    assert call(vault, "update_index", {}) == (
        "Index catalog updated: 1 note(s) (Second Brain/index.md)"
    )


def test_synthesize_topic_uses_the_sessions_model(vault: Vault) -> None:
    model = ScriptedText("Compost feeds beds.")
    result = call(vault, "synthesize_topic", {"topic": "compost"}, text_model=model)
    assert result.startswith("Synthesis note created: Second Brain/compost.md")
    assert len(model.prompts) == 1
    assert call(vault, "synthesize_topic", {"topic": "compost"}) == (
        "Tool execution error: No AI client is available, so synthesize_topic cannot run."
    )
    escape = call(vault, "synthesize_topic", {"topic": "../../etc/x"}, text_model=model)
    assert escape.startswith("Tool execution error: synthesize_topic: the topic")
    assert "outside the wiki folder" in escape
