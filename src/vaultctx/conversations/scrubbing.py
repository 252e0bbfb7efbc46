"""Every value a conversation stores, passed through the scrubber first.

People paste keys into a chat ("why does this fail: AWS_SECRET_ACCESS_KEY=…") and models echo
them back; the store must never hold one in the clear. Text goes through ``scrub_secrets``, the
indexer's scrubber. JSON (tool arguments, usage, the agent's model history) is scrubbed as the
serialised text, so a key next to its name (``{"api_key": "sk-…"}``) is seen as an assignment;
when a replacement would leave invalid JSON, each string in it is scrubbed on its own instead,
and a string that held part of a secret spread over several strings is replaced whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vaultctx.conversations.model import Message
from vaultctx.errors import VaultctxError
from vaultctx.scrub import scrub_secrets

_MAX_NAME = 1024
# In place of a string that held part of a secret spread over several strings.
_SPLIT_SECRET = "[REDACTED:split-secret]"


@dataclass(frozen=True)
class ScrubbedMessage:
    """A message as stored: its text scrubbed and its structured parts as scrubbed JSON."""

    text: str
    attachments_json: str
    tool_calls_json: str
    citations_json: str
    usage_json: str
    model_messages_json: str | None


def scrub_text(text: str) -> str:
    return scrub_secrets(storable(text)).text


def storable(text: str) -> str:
    """``text`` as SQLite can store it: lone surrogates (a terminal in another encoding)
    become U+FFFD."""
    return text.encode(errors="replace").decode()


def scrub_message(message: Message) -> ScrubbedMessage:
    for name in message.attachments:
        if len(name) > _MAX_NAME or "\n" in name or "\x00" in name:
            raise VaultctxError(
                f"attachment name {name[:40]!r}… is not a file name",
                "pass attachments as file names; their contents are never stored",
            )
    raw = message.model_messages_json
    return ScrubbedMessage(
        text=scrub_text(message.text),
        attachments_json=scrub_json(list(message.attachments)),
        tool_calls_json=scrub_json([call.as_dict() for call in message.tool_calls]),
        citations_json=scrub_json(list(message.citations)),
        usage_json=scrub_json(dict(message.usage)),
        model_messages_json=None if raw is None else scrub_serialised(raw),
    )


def scrub_json(value: Any) -> str:
    """``value`` as JSON text with every secret in it redacted; values JSON cannot represent
    are stored as their ``str``."""
    return scrub_serialised(json.dumps(value, ensure_ascii=False, default=str))


def scrub_serialised(raw: str) -> str:
    """JSON text (or any text) with its secrets redacted, still valid JSON when it was."""
    raw = storable(raw)
    scrubbed = scrub_secrets(raw).text
    if scrubbed == raw:
        return raw
    try:
        parsed = json.loads(raw)
    except ValueError:
        return scrubbed  # not JSON: nothing to keep valid
    try:
        json.loads(scrubbed)
    except ValueError:
        return _scrubbed_string_by_string(parsed)
    return scrubbed


def _scrubbed_string_by_string(parsed: Any) -> str:
    """``parsed`` as JSON with each string scrubbed on its own. A secret spread over several
    strings (a private key's lines split between a key and a value) shows in none of them alone:
    every string the redaction of the whole text then swallows is replaced by a marker."""
    value = _scrub_strings(parsed)
    text = json.dumps(value, ensure_ascii=False)
    rescrubbed = scrub_secrets(text).text
    if rescrubbed == text:
        return text
    kept = _strings_left_whole(value, rescrubbed)
    return json.dumps(kept, ensure_ascii=False)


def _strings_left_whole(value: Any, rescrubbed: str) -> Any:
    if isinstance(value, str):
        return value if json.dumps(value, ensure_ascii=False) in rescrubbed else _SPLIT_SECRET
    if isinstance(value, list):
        return [_strings_left_whole(item, rescrubbed) for item in value]
    if isinstance(value, Mapping):
        return {
            _strings_left_whole(k, rescrubbed): _strings_left_whole(v, rescrubbed)
            for k, v in value.items()
        }
    return value


def _scrub_strings(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_secrets(value).text
    if isinstance(value, list):
        return [_scrub_strings(item) for item in value]
    if isinstance(value, Mapping):
        return {scrub_secrets(str(k)).text: _scrub_strings(v) for k, v in value.items()}
    return value
