"""No credential reaches the index or leaves through any API: not in the body, nor in tags,
aliases, titles, headings, link targets, file paths or names vaultctx makes up
(docs/security.md, "Secrets")."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import apsw
import pytest
from mcp_types import TextContent

from mcp import Client
from tests.conftest import make_vault
from tests.ledger.conftest import isolate_data_dir
from tests.postgres.conftest import location_for
from tests.security.stored_index import STORES, rows, stored_text, tamper
from vaultctx.api import Vault
from vaultctx.config import Config
from vaultctx.conversations import ConversationStore, Message, ToolCall, conversations_path
from vaultctx.conversations.scrubbing import scrub_serialised
from vaultctx.db_location import IndexLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.indexer import Indexer
from vaultctx.index.text_codec import pack_text
from vaultctx.mcp.server import build_server
from vaultctx.scrub import scrub_secrets
from vaultctx.scrub.fingerprint import SCRUBBER_META

# A GitHub token shape the scrubber knows; random-looking, so no placeholder rule spares it.
TOKEN = "ghp_" + "x9K2mQ7vL4pR8sT1wY6zB3nD5fH0jC2aE7gU"
SLACK = "xoxb-" + "2048137561-4096283745-Xq7RmT2vLp9KwZ4sNb8YdC3F"


def _stored_anywhere(location: IndexLocation, *secrets: str) -> list[str]:
    """Which of ``secrets`` (or their tails) the store holds anywhere."""
    text = stored_text(location)
    return [secret for secret in secrets if secret.lower() in text]


def _metadata_note(vault: Path) -> None:
    (vault / "deploy.md").write_text(
        "---\n"
        f"title: Deploy with {TOKEN}\n"
        f"tags: [ops, {TOKEN}]\n"
        f"aliases: [{SLACK}]\n"
        f"status: {TOKEN}\n"
        f"type: {SLACK}\n"
        "---\n"
        "# Deploy\n\n"
        f"See [the runbook](https://ci.example.com/run?token={TOKEN}) and [[Runbook#{SLACK}]].\n"
    )


@pytest.mark.parametrize("kind", STORES)
def test_front_matter_and_links_are_scrubbed_before_storage(
    tmp_path: Path, embedder: StaticEmbedder, kind: str, request: pytest.FixtureRequest
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    _metadata_note(vault)
    db = location_for(kind, vault, tmp_path, request)
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    assert "runbook" in stored_text(db)  # the dump reads what it should
    assert _stored_anywhere(db, TOKEN, TOKEN[4:], SLACK, SLACK[5:15]) == []
    tags = [str(r[0]) for r in rows(db, "SELECT tag FROM file_tags")]
    headings = [str(r[0]) for r in rows(db, "SELECT heading FROM links")]
    assert "ops" in tags and any("REDACTED" in tag for tag in tags)
    assert headings == ["[REDACTED:slack-bot-token]"]


def test_an_index_with_raw_metadata_is_rescrubbed_by_the_migration(
    tmp_path: Path, embedder: StaticEmbedder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "deploy.md").write_text("# Deploy\n\nplain note\n")
    db = tmp_path / "index.db"
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    conn = apsw.Connection(str(db))  # as an index written before metadata was scrubbed
    conn.execute("UPDATE files SET tags = ?", (json.dumps([TOKEN]),))
    conn.execute("INSERT INTO file_tags(file_id, tag) SELECT id, ? FROM files", (TOKEN,))
    conn.execute("DELETE FROM _migrations WHERE name = 'm005_rescrub_metadata'")
    conn.execute("PRAGMA user_version = 4")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    conn = apsw.Connection(str(db))
    assert [str(r[0]) for r in conn.execute("SELECT tags FROM files")] == ["[]"]
    assert list(conn.execute("SELECT tag FROM file_tags")) == []
    conn.close()


@pytest.mark.parametrize("kind", STORES)
def test_a_file_named_with_a_token_is_not_indexed_and_not_echoed(
    tmp_path: Path, embedder: StaticEmbedder, kind: str, request: pytest.FixtureRequest
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / f"deploy {TOKEN}.md").write_text("# Deploy\n\nthe lighthouse release\n")
    (vault / "other.md").write_text("# Other\n\nthe lighthouse keeper\n")
    db = location_for(kind, vault, tmp_path, request)
    report = Indexer(Config(vault=vault, db=db), embedder).run(fast=True).as_dict()
    assert TOKEN not in json.dumps(report)
    assert any("credential" in s["reason"] for s in report["skipped"])
    assert "keeper" in stored_text(db)
    assert _stored_anywhere(db, TOKEN, TOKEN[4:]) == []


def test_the_index_and_its_side_files_are_private(tmp_path: Path, embedder: StaticEmbedder) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\ntext\n")
    db = tmp_path / "index.db"
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    reader = apsw.Connection(str(db))
    reader.execute("SELECT count(*) FROM files").fetchall()  # a WAL reader opens -shm
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{db}{suffix}")
        if side.exists():
            assert stat.S_IMODE(side.stat().st_mode) == 0o600, suffix
    reader.close()


@pytest.mark.parametrize("kind", STORES)
def test_capture_never_names_a_file_after_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, request: pytest.FixtureRequest
) -> None:
    isolate_data_dir(tmp_path / "data", monkeypatch)  # captures are recorded in the ledger
    vault = tmp_path / "vault"
    vault.mkdir()
    with Vault(vault, db=location_for(kind, vault, tmp_path, request)) as handle:
        result = handle.capture(f"{TOKEN} is the new deploy key\n\nrotate it monthly")
        assert TOKEN not in result.path and TOKEN not in result.title
        assert TOKEN[4:] not in str(result.file)
        assert result.indexed
        assert "rotate" in stored_text(handle.db_path)
        assert _stored_anywhere(handle.db_path, TOKEN, TOKEN[4:]) == []
        [note] = list((vault / "00-inbox").iterdir())
        assert TOKEN not in note.name
        assert TOKEN in note.read_text()  # the user's own text in the vault is theirs, unchanged


@pytest.mark.parametrize("kind", STORES)
def test_search_rescrubs_every_field_an_older_scrubber_left(
    tmp_path: Path, embedder: StaticEmbedder, kind: str, request: pytest.FixtureRequest
) -> None:
    """An index whose scrubber fingerprint is not this scrubber's may hold a token anywhere a
    result reads from: ``Vault.search`` scrubs path, title, section, citation and text again,
    whatever the caller does next (the MCP layer's own scrub is a second, separate net)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "deploy.md").write_text("# Deploy\n\nthe lighthouse release checklist\n")
    db = location_for(kind, vault, tmp_path, request)
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    tamper(  # as an older vaultctx, with an older scrubber, wrote it
        db,
        ("UPDATE files SET path = ?, title = ?", (f"deploy {TOKEN}.md", f"Deploy {TOKEN}")),
        (
            "UPDATE chunks SET section = ?, body = ?",
            (f"Deploy {SLACK}", pack_text(f"the lighthouse release checklist {TOKEN}")),
        ),
        ("UPDATE model_meta SET value = 'an older scrubber' WHERE key = ?", (SCRUBBER_META,)),
    )
    with Vault(vault, db=db) as handle:
        response = handle.search("lighthouse release", mode="bm25")
    [result] = response.results
    for field in ("file_path", "title", "section", "citation", "text"):
        value = getattr(result, field)
        assert "REDACTED" in value, field
        assert TOKEN not in value and TOKEN[4:] not in value and SLACK not in value, field
    assert result.file_path.startswith("deploy ") and "lighthouse" in result.text


def test_json_a_redaction_would_break_is_scrubbed_string_by_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private key split between a JSON key and a value (a model's tool call, say) is one
    finding in the serialised text, and redacting it would leave broken JSON; the store then
    scrubs each string on its own. Every secret in every string, key or list is still gone."""
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7" + "q9Zk3Lm8Np2Rx5Tv" * 12
    arguments = {
        "pem": pem,
        "-----END RSA PRIVATE KEY-----": [f"deploy with {TOKEN}", 7],
        f"key {SLACK}": {"nested": [f"again {TOKEN}"]},
    }
    isolate_data_dir(tmp_path / "data", monkeypatch)
    vault_dir = make_vault(tmp_path / "vault", {"a.md": "# A\n"})
    raw = json.dumps(arguments)
    assert "REDACTED" in scrub_secrets(raw).text, "precondition: one finding across strings"
    with pytest.raises(ValueError):
        json.loads(scrub_secrets(raw).text)  # precondition: that redaction breaks the JSON
    with ConversationStore.open(vault_dir) as store:
        chat = store.new("deploy", "openai", "gpt-4o-mini")
        store.append(
            chat.id,
            [
                Message(
                    "assistant",
                    "done",
                    tool_calls=[ToolCall("search_notes", arguments, "ok")],
                    model_messages_json=raw,
                )
            ],
        )
        [message] = store.get(chat.id).messages
    stored = json.dumps(message.as_dict()) + (message.model_messages_json or "")
    assert TOKEN not in stored and TOKEN[4:] not in stored and SLACK not in stored
    assert "q9Zk3Lm8Np2Rx5Tv" not in stored
    history = json.loads(message.model_messages_json or "")
    assert history["-----END RSA PRIVATE KEY-----"] == ["deploy with [REDACTED:github-pat]", 7]
    assert list(history["key [REDACTED:slack-bot-token]"]) == ["nested"]
    folder = conversations_path(vault_dir).parent
    on_disk = b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())
    assert TOKEN.encode() not in on_disk and SLACK.encode() not in on_disk


def test_a_secret_split_between_strings_is_not_kept_by_the_fallback() -> None:
    """A private key's lines spread over a list, a key and a value: no string alone shows a
    secret, so scrubbing each on its own would keep the key's body. The strings the redaction of
    the whole text swallowed are replaced instead, and the JSON stays valid."""
    body = "MIIEowIBAAKCAQEA7" + "q9Zk3Lm8Np2Rx5Tv" * 12
    raw = json.dumps(
        {
            "pem": ["-----BEGIN RSA PRIVATE KEY-----", {body: "-----END RSA PRIVATE KEY-----"}],
            "notes": ["café", 7, {"kept": "as written"}],
        },
        ensure_ascii=False,
    )
    stored = scrub_serialised(raw)
    assert body not in stored and "q9Zk3Lm8Np2Rx5Tv" not in stored
    # What no redaction touched is kept, non-ASCII text included.
    assert json.loads(stored)["notes"] == ["café", 7, {"kept": "as written"}]
    assert '"café"' in stored


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("kind", STORES)
async def test_the_mcp_layer_scrubs_what_an_older_index_holds(
    tmp_path: Path, embedder: StaticEmbedder, kind: str, request: pytest.FixtureRequest
) -> None:
    """An index written by an older vaultctx may hold a token in a path; the server's own last
    scrub keeps it from the client even when the search layer believes the index is clean."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "deploy.md").write_text("# Deploy\n\nthe lighthouse release checklist\n")
    db = location_for(kind, vault, tmp_path, request)
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    tamper(db, ("UPDATE files SET path = ?, title = ?", (f"deploy {TOKEN}.md", TOKEN)))
    async with Client(build_server(Vault(vault, db=db)), mode="legacy") as client:
        for tool, arguments in (
            ("obsidian_search", {"query": "lighthouse release"}),
            ("obsidian_list_notes", {}),
            ("obsidian_get_context", {"topic": "lighthouse release"}),
        ):
            result = await client.call_tool(tool, arguments)
            shown = "".join(b.text for b in result.content if isinstance(b, TextContent))
            everything = shown + json.dumps(result.structured_content)
            assert "lighthouse" in everything or tool == "obsidian_list_notes"
            assert "deploy" in everything
            assert TOKEN not in everything and TOKEN[4:] not in everything, tool
