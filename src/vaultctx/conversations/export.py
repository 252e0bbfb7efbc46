"""A conversation as a markdown note: YAML front matter, then one section per message.

The front matter (id, title, created, updated, backend, model, vault, messages) is written by
``yaml.safe_dump``, so any title survives a round trip through ``yaml.safe_load``. Messages are
``## You`` / ``## Assistant`` sections (``## System``, ``## Tool`` for the others); an answer
that was cut off says so, and the tools an answer called and the notes it cited are listed
under it. The document is scrubbed once more as a whole: the scrubber may have learnt a rule
since the conversation was saved.
"""

from __future__ import annotations

import json

import yaml

from vaultctx.conversations.model import Conversation, Message
from vaultctx.scrub import scrub_secrets

HEADINGS = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool"}
PARTIAL_NOTE = "*(partial: the answer was cut off here)*"
UNTITLED = "Untitled conversation"


def conversation_markdown(conversation: Conversation) -> str:
    """The whole conversation as a markdown document with front matter."""
    front = {
        "id": conversation.id,
        "title": conversation.title or UNTITLED,
        "created": conversation.created.isoformat(),
        "updated": conversation.updated.isoformat(),
        "backend": conversation.backend,
        "model": conversation.model,
        "vault": conversation.vault,
        "messages": len(conversation.messages),
    }
    header = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1_000_000)
    parts = [f"---\n{header}---\n", f"# {conversation.title or UNTITLED}\n"]
    parts += [message_markdown(message) for message in conversation.messages]
    return scrub_secrets("\n".join(parts)).text


def message_markdown(message: Message) -> str:
    lines = [f"## {HEADINGS[message.role]}", ""]
    if message.text.strip():
        lines += [message.text.rstrip(), ""]
    if message.partial:
        lines += [PARTIAL_NOTE, ""]
    if message.attachments:
        lines += ["Attached: " + ", ".join(f"`{name}`" for name in message.attachments), ""]
    if message.tool_calls:
        lines.append("Tool calls:")
        for call in message.tool_calls:
            args = json.dumps(dict(call.args), ensure_ascii=False, sort_keys=True)
            summary = f" → {call.result_summary}" if call.result_summary else ""
            lines.append(f"- `{call.name}` `{args}`{summary}")
        lines.append("")
    if message.citations:
        lines.append("Sources:")
        lines += [f"- {citation}" for citation in message.citations]
        lines.append("")
    return "\n".join(lines)
