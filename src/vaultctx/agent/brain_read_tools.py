"""The Second Brain's read-only tools: challenge, connect, emerge, reconcile_topic
(docs/second-brain.md). Each asks the model one question over the user's notes; none writes."""

from __future__ import annotations

from vaultctx.agent.tool_contract import ToolSpec

BRAIN_READ_TOOLS: tuple[ToolSpec, ...] = ()
