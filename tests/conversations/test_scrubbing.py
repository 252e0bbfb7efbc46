"""A key pasted into a chat, or echoed by a model, never reaches the conversation file."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from vaultctx.conversations import ConversationStore, Message, ToolCall, conversations_path
from vaultctx.conversations.scrubbing import scrub_serialised
from vaultctx.errors import VaultctxError

# Realistic shapes, made up: an AWS key pair as in ~/.aws/credentials, a GitHub token.
AWS_KEY_ID = "AKIAZ7QK4MWJ3XRP5NDT"
AWS_SECRET = "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"
GITHUB_TOKEN = "ghp_4Fq8Zr2LmN7pXc9Vb3Ks6Td1Wy5Ha0Je8Gu2"
PASTE = f"""Why does this fail?

[default]
aws_access_key_id = {AWS_KEY_ID}
aws_secret_access_key = {AWS_SECRET}
"""
SECRETS = (AWS_KEY_ID, AWS_SECRET, GITHUB_TOKEN)


def _raw_bytes(vault: Path) -> bytes:
    """Every byte vaultctx keeps for the vault's conversations (WAL and SHM included)."""
    folder = conversations_path(vault).parent
    return b"".join(path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file())


def test_secrets_are_scrubbed_at_rest(vault: Path) -> None:
    history = json.dumps([{"kind": "request", "parts": [{"content": PASTE}]}])
    with ConversationStore.open(vault) as store:
        chat = store.new(f"debug {GITHUB_TOKEN}", "openai", "gpt-4o-mini")
        store.append(
            chat.id,
            [
                Message("user", PASTE, model_messages_json=history),
                Message(
                    "assistant",
                    f"Your token {GITHUB_TOKEN} is fine; rotate the AWS key.",
                    tool_calls=[
                        ToolCall("search_notes", {"api_key": AWS_SECRET}, f"saw {GITHUB_TOKEN}")
                    ],
                    citations=[f"[[tokens#{GITHUB_TOKEN}]]"],
                    attachments=[f"{GITHUB_TOKEN}.txt"],
                    usage={"note": f"aws_secret_access_key={AWS_SECRET}"},
                ),
            ],
        )
        # While the connection is open the rows may sit in the WAL: read that too.
        during = _raw_bytes(vault)
        saved = store.get(chat.id)
    after = _raw_bytes(vault)
    for raw in (during, after):
        for secret in SECRETS:
            assert secret.encode() not in raw
    assert b"REDACTED" in after
    text = json.dumps(saved.as_dict()) + (saved.messages[0].model_messages_json or "")
    assert all(secret not in text for secret in SECRETS)
    json.loads(saved.messages[0].model_messages_json or "")  # still valid JSON
    assert "[REDACTED:github-pat]" in saved.messages[1].text


def test_search_never_finds_a_secret(store: ConversationStore) -> None:
    chat = store.new("t", "b", "m")
    store.append(chat.id, [Message("user", f"token {GITHUB_TOKEN}")])
    assert store.search(GITHUB_TOKEN) == []
    assert store.search("token")[0].snippet == "**token** [REDACTED:github-pat]"


@pytest.mark.parametrize(
    "value",
    [
        {"api_key": AWS_SECRET},
        [{"content": f"see {GITHUB_TOKEN}"}],
        {"nested": {"deep": [f"aws_secret_access_key = {AWS_SECRET}"]}},
    ],
)
def test_json_stays_valid_json(value: object) -> None:
    raw = json.dumps(value)
    scrubbed = scrub_serialised(raw)
    json.loads(scrubbed)
    assert all(secret not in scrubbed for secret in SECRETS)


def test_text_without_secrets_is_stored_as_given() -> None:
    raw = '{"a": "ordinary text", "n": 1}'
    assert scrub_serialised(raw) == raw


def test_what_is_stored_is_utf_8_text_as_written(vault: Path) -> None:
    """Non-ASCII text is stored as itself, not as JSON escapes, so the file reads as written;
    a lone surrogate (a terminal in another encoding) becomes ``?`` instead of failing the
    save; a value JSON cannot hold is stored as its text."""
    moment = datetime(2026, 12, 5, 21, 0, tzinfo=timezone.utc)
    with ConversationStore.open(vault) as store:
        chat = store.new("café notes", "openai", "gpt-4o-mini")
        store.append(
            chat.id,
            [
                Message(
                    "user",
                    "résumé \ud800 done",
                    attachments=["café.md"],
                    tool_calls=[ToolCall("read_note", {"path": "café.md"}, "lu")],
                    usage={"when": moment},  # type: ignore[dict-item]
                    model_messages_json=json.dumps({"q": "naïve"}, ensure_ascii=False),
                )
            ],
        )
        [message] = store.get(chat.id).messages
    assert message.text == "résumé ? done"
    assert message.attachments == ("café.md",)
    assert message.usage == {"when": str(moment)}
    assert message.model_messages_json == '{"q": "naïve"}'
    raw = _raw_bytes(vault)
    for written in ("café.md", "résumé", "naïve"):
        assert written.encode() in raw, written


@pytest.mark.parametrize(
    "name",
    ["a\nb.md", "a\x00b.md", "x" * 1025, "\n", "\x00"],
    ids=["newline", "nul", "long", "nl", "0"],
)
def test_an_attachment_that_is_not_a_file_name_is_refused(
    store: ConversationStore, name: str
) -> None:
    chat = store.new("t", "b", "m")
    with pytest.raises(VaultctxError) as refused:
        store.append(chat.id, [Message("user", "hi", attachments=[name])])
    assert refused.value.message == f"attachment name {name[:40]!r}… is not a file name"
    assert refused.value.suggestion == (
        "pass attachments as file names; their contents are never stored"
    )
    assert store.get(chat.id).messages == ()


def test_a_long_file_name_is_still_a_file_name(store: ConversationStore) -> None:
    chat = store.new("t", "b", "m")
    store.append(chat.id, [Message("user", "hi", attachments=["x" * 1024])])
    assert store.get(chat.id).messages[0].attachments == ("x" * 1024,)
