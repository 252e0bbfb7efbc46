"""What a saved conversation is made of: plain frozen values, no storage.

The agent builds ``Message`` values and hands them to ``ConversationStore.append``; everything read
back from the store comes as these types too. Times are timezone-aware and in UTC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

Role = Literal["user", "assistant", "system", "tool"]
ROLES: tuple[Role, ...] = ("user", "assistant", "system", "tool")


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class ToolCall:
    """One tool the model called while answering: its name, its arguments and a short summary of
    what it returned (never the whole result: a search's hits are in the answer's citations)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    result_summary: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": dict(self.args), "result_summary": self.result_summary}


@dataclass(frozen=True)
class Message:
    """One turn. ``partial`` marks an answer that was cut off (an error, Ctrl-C, a dropped
    connection): ``text`` is then exactly what had arrived. ``attachments`` are file names only,
    never their contents. ``model_messages_json`` is the agent's own serialised model history
    (pydantic-ai's), stored as given so a chat can be resumed; the store does not read it."""

    role: Role
    text: str
    created: datetime = field(default_factory=utc_now)
    partial: bool = False
    attachments: Sequence[str] = ()
    tool_calls: Sequence[ToolCall] = ()
    citations: Sequence[str] = ()
    usage: Mapping[str, Any] = field(default_factory=dict)
    model_messages_json: str | None = None

    def __post_init__(self) -> None:
        # Lists given, tuples kept: a message compares equal to itself read back.
        object.__setattr__(self, "attachments", tuple(self.attachments))
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        object.__setattr__(self, "citations", tuple(self.citations))
        object.__setattr__(self, "usage", dict(self.usage))

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "text": self.text,
            "created": self.created.isoformat(),
            "partial": self.partial,
            "attachments": list(self.attachments),
            "tool_calls": [call.as_dict() for call in self.tool_calls],
            "citations": list(self.citations),
            "usage": dict(self.usage),
        }


@dataclass(frozen=True)
class _ConversationHead:
    """What a conversation's line in a list and the conversation itself both start with."""

    id: str
    title: str
    created: datetime
    updated: datetime

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created": self.created.isoformat(),
            "updated": self.updated.isoformat(),
        }


@dataclass(frozen=True)
class ConversationSummary(_ConversationHead):
    """A line of ``conversations list``."""

    message_count: int

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "messages": self.message_count}


@dataclass(frozen=True)
class Conversation(_ConversationHead):
    """A conversation with its messages in the order they were appended. ``vault`` is the
    resolved path of the vault it belongs to."""

    backend: str
    model: str
    vault: str
    messages: tuple[Message, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Everything but the agent's opaque model history."""
        return {
            **super().as_dict(),
            "backend": self.backend,
            "model": self.model,
            "vault": self.vault,
            "messages": [message.as_dict() for message in self.messages],
        }


@dataclass(frozen=True)
class ConversationHit:
    """A conversation that matched a search: its best-matching message (or its title) as a
    snippet with each match between ``**``, and FTS5's bm25 ``rank`` (lower is better; 0.0 for
    a match found by substring alone, see docs/conversations.md)."""

    conversation_id: str
    title: str
    snippet: str
    rank: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.conversation_id,
            "title": self.title,
            "snippet": self.snippet,
            "rank": self.rank,
        }
