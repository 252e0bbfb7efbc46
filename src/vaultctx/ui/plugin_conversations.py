"""Saved conversations for the Obsidian plugin: the list, a search, and one conversation's turns
to show above the next question when the plugin resumes it.

The same store the CLI and the Conversations page read (``vaultctx conversations``); nothing here
creates it. A conversation id comes from the plugin and is hostile input: ``earlier_turns``
takes letters and digits only and the store answers for this vault's conversations alone.
Everything returned is text; the plugin renders answers with Obsidian's renderer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vaultctx.conversations import ConversationStore
from vaultctx.conversations.export import UNTITLED
from vaultctx.ui.chat import earlier_turns

LISTED = 50


def listed_conversations(vault: Path, query: str) -> dict[str, Any]:
    """The newest conversations, or (with ``query``) those whose words match, best first; a
    search hit's snippet marks each match between ``**``."""
    with ConversationStore.open(vault, create=False) as store:
        if query:
            return {
                "query": query,
                "conversations": [
                    {
                        "id": hit.conversation_id,
                        "title": hit.title or UNTITLED,
                        "snippet": hit.snippet,
                    }
                    for hit in store.search(query, limit=LISTED)
                ],
            }
        return {
            "query": "",
            "conversations": [
                {
                    "id": chat.id,
                    "title": chat.title or UNTITLED,
                    "updated": chat.updated.isoformat(),
                    "messages": chat.message_count,
                }
                for chat in store.list(limit=LISTED)
            ],
        }


def saved_turns(vault: Path, conversation_id: str) -> dict[str, Any]:
    """One conversation's questions and answers, as text, for the chat view to show."""
    chat, turns = earlier_turns(vault, conversation_id)
    return {
        "id": chat.id,
        "title": chat.title or UNTITLED,
        "turns": [{"role": turn["role"], "text": turn["text"]} for turn in turns],
    }
