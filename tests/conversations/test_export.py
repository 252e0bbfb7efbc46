"""Export: markdown with front matter that parses, a section per message."""

from __future__ import annotations

from datetime import datetime, timezone

import yaml

from vaultctx.conversations import (
    ConversationStore,
    Message,
    ToolCall,
    conversation_markdown,
)
from vaultctx.conversations.export import PARTIAL_NOTE

WHEN = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)


def _front_matter(document: str) -> dict[str, object]:
    assert document.startswith("---\n")
    header, _, _ = document[4:].partition("\n---\n")
    parsed = yaml.safe_load(header)
    assert isinstance(parsed, dict)
    return parsed


def test_front_matter_parses_and_names_everything(store: ConversationStore) -> None:
    title = 'WAL: "why" --- #locks [draft] {x}: y'
    chat = store.new(title, "bedrock", "anthropic.claude-3-haiku")
    store.append(chat.id, [Message("user", "q", created=WHEN), Message("assistant", "a")])
    document = conversation_markdown(store.get(chat.id))
    front = _front_matter(document)
    assert front["id"] == chat.id and front["title"] == title
    assert front["backend"] == "bedrock" and front["model"] == "anthropic.claude-3-haiku"
    assert front["vault"] == str(store.vault) and front["messages"] == 2
    for key in ("created", "updated"):
        assert datetime.fromisoformat(str(front[key])).tzinfo is not None


def test_messages_tools_and_citations(store: ConversationStore) -> None:
    chat = store.new("", "ollama", "qwen3")
    store.append(
        chat.id,
        [
            Message("user", "볼트를 어떻게 설정하나요?", attachments=["diagram.png"]),
            Message(
                "assistant",
                "Tighten it in two passes.",
                partial=True,
                tool_calls=[ToolCall("search_notes", {"query": "볼트"}, "2 notes")],
                citations=["[[hardware/bolts#Torque]]"],
            ),
        ],
    )
    document = conversation_markdown(store.get(chat.id))
    body = document.split("\n---\n", 1)[1]
    assert _front_matter(document)["title"] == "Untitled conversation"
    assert body.index("## You") < body.index("볼트를") < body.index("## Assistant")
    assert "Attached: `diagram.png`" in body
    assert PARTIAL_NOTE in body
    assert '- `search_notes` `{"query": "볼트"}` → 2 notes' in body
    assert "Sources:\n- [[hardware/bolts#Torque]]" in body
