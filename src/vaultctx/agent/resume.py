"""A saved conversation as the model's history, so a chat can go on where it stopped.

The store keeps each turn's question and answer as the user saw them (docs/conversations.md);
the passages sent with a question and the tool calls' results are not kept, so the model gets
the earlier questions and answers as plain turns, and the next question brings fresh passages.
A long conversation is cut to its last ``MAX_RESUMED_MESSAGES`` messages (starting with a
question) and each message to ``MAX_MESSAGE_CHARS``: the history rides along with every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from vaultctx.conversations import Message

MAX_RESUMED_MESSAGES = 40
MAX_MESSAGE_CHARS = 20_000


def saved_history(messages: Sequence[Message]) -> list[ModelMessage]:
    """The questions (``user``) and answers (``assistant``) as pydantic-ai messages; other
    roles and empty answers (a turn that failed before a word arrived) are left out."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    kept = [m for m in messages if m.role in ("user", "assistant") and m.text.strip()]
    # A regenerated answer follows the one it replaced: the model sees only the newer one.
    kept = [
        m
        for m, after in zip(kept, [*kept[1:], None][: len(kept)], strict=True)
        if not _replaced(m, after)
    ]
    kept = kept[-MAX_RESUMED_MESSAGES:]
    while kept and kept[0].role != "user":
        kept = kept[1:]
    history: list[ModelMessage] = []
    for message in kept:
        text = message.text[:MAX_MESSAGE_CHARS]
        if message.role == "user":
            history.append(ModelRequest(parts=[UserPromptPart(content=text)]))
        else:
            history.append(ModelResponse(parts=[TextPart(content=text)]))
    return history


def _replaced(message: Message, after: Message | None) -> bool:
    return message.role == "assistant" and after is not None and after.role == "assistant"


__all__ = ["MAX_MESSAGE_CHARS", "MAX_RESUMED_MESSAGES", "saved_history"]
