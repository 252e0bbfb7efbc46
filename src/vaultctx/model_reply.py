"""Reading a model's answer that should hold JSON. The answer is hostile input: it may wrap
the JSON in prose or a code fence, be cut off, or hold something else entirely. Nothing here
trusts a value; the flows validate every field they take. Beside ``text_model``: the features
that take a ``TextModel`` read its replies here."""

from __future__ import annotations

import json
from typing import Any

MAX_REPLY_CHARS = 200_000
MAX_ATTEMPTS = 50  # "[" positions tried: a reply of a million brackets costs no more than this


def json_array(reply: str) -> list[Any] | None:
    """The first JSON array in ``reply`` (a ```json fence or prose around it allowed), or None
    when there is none that parses."""
    text = reply[:MAX_REPLY_CHARS]
    decoder = json.JSONDecoder()
    start = text.find("[")
    for _ in range(MAX_ATTEMPTS):
        if start == -1:
            break
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("[", start + 1)
            continue
        if isinstance(value, list):
            return value
        start = text.find("[", start + 1)
    return None


def shown(reply: str, limit: int = 120) -> str:
    """The start of a reply on one line, for a message saying it could not be used."""
    flat = " ".join(reply.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["json_array", "shown"]
