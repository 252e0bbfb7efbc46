"""A key pasted into a chat, or echoed by a model, never reaches the conversation file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultctx.conversations import ConversationStore, Message, ToolCall, conversations_path
from vaultctx.conversations.scrubbing import scrub_serialised

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
