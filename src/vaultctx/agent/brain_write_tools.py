"""The Second Brain's writing tools: create_wiki_note, update_index, synthesize_topic, architect
(docs/second-brain.md). They write only inside the wiki folder, through the change ledger."""

from __future__ import annotations

from vaultctx.agent.tool_contract import ToolSpec

BRAIN_WRITE_TOOLS: tuple[ToolSpec, ...] = ()
