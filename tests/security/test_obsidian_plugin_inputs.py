"""What the Obsidian plugin sends beyond a question is hostile input, checked on the server: a
conversation id names a saved conversation of this vault and nothing else (no path, no other
store), a vault path to attach must resolve, symbolic links followed, to a served file inside
the vault, and a key set from the settings tab goes to the keyring and never comes back in an
answer. Each is refused with a message and a fix, before anything is read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.ui_process import UiServer, running_ui
from vaultctx.conversations import ConversationStore, Message

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-Obs1d1anPlug1nKeyZq8ftY3kLm0PwX7vB2"
SECRET = "the contents of a file outside the vault"


def prepare(vault: Path) -> None:
    outside = vault.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET, encoding="utf-8")
    (vault / "linked.txt").symlink_to(outside / "secret.txt")
    (vault / "linked-folder").symlink_to(outside, target_is_directory=True)
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    with ConversationStore.open(vault) as store:
        chat = store.new("Checkpoint tuning", "openai", "gpt-test")
        store.append(
            chat.id,
            [
                Message("user", "how often does WAL checkpoint?"),
                Message("assistant", "Every 1000 pages."),
            ],
        )


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("plugin-inputs")
    env = {
        "PYTHONPATH": f"{REPO / 'src'}:{REPO}",
        "PYTHON_KEYRING_BACKEND": "tests.agent.file_keyring.FileKeyring",
        "VAULTCTX_TEST_KEYRING": str(root / "keyring.json"),
        "XDG_STATE_HOME": str(root / "state"),
    }
    with running_ui(root, prepare=prepare, env=env) as server:
        yield server


def call(ui: UiServer, action: str, body: object) -> tuple[int, dict[str, Any], str]:
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {ui.token}",
        "Origin": "app://obsidian.md",
    }
    status, _, text = ui.request(
        f"/vaultctx/obsidian/{action}",
        method="POST",
        headers=headers,
        body=json.dumps(body),
        cookie=False,
    )
    return status, json.loads(text) if text.startswith("{") else {}, text


def test_saved_conversations_are_listed_searched_and_read(ui: UiServer) -> None:
    status, data, _ = call(ui, "conversations", {})
    assert status == 200, data
    [listed] = data["conversations"]
    assert listed["title"] == "Checkpoint tuning" and listed["messages"] == 2
    status, data, _ = call(ui, "conversations", {"query": "checkpoint"})
    assert status == 200 and [hit["id"] for hit in data["conversations"]] == [listed["id"]]
    status, data, _ = call(ui, "conversation", {"id": listed["id"]})
    assert status == 200, data
    assert data["turns"] == [
        {"role": "user", "text": "how often does WAL checkpoint?"},
        {"role": "assistant", "text": "Every 1000 pages."},
    ]


@pytest.mark.parametrize(
    "wanted",
    ["../../etc/passwd", "/etc/passwd", "abc/def", "abc def", "", "x" * 64, 5, "zzzzzzzz"],
)
def test_a_conversation_id_is_only_ever_an_id(ui: UiServer, wanted: object) -> None:
    status, data, _ = call(ui, "conversation", {"id": wanted})
    assert status == 400 and data["suggestion"], data


@pytest.mark.parametrize(
    "path",
    [
        "../outside/secret.txt",
        "/etc/passwd",
        "linked.txt",  # a link in the vault to a file outside it
        "linked-folder/secret.txt",
        "..%2Foutside%2Fsecret.txt",
        ".obsidian/app.json",  # inside, but never served
        "30-resources/../../outside/secret.txt",
    ],
)
def test_an_attachment_path_stays_inside_the_vault(ui: UiServer, path: str) -> None:
    body = {"chat": "k" * 24, "question": "what is in it?", "vault_files": [path]}
    status, data, text = call(ui, "chat", body)
    assert status == 400 and data["suggestion"], data
    assert "turn" not in data and SECRET not in text


@pytest.mark.parametrize(
    "body",
    [
        {"vault_files": "README.md"},
        {"vault_files": [3]},
        {"files": [{"name": "a.txt", "data": "not base64!"}]},
        {"files": [{"name": "a.txt"}]},
        {"files": ["a.txt"]},
        {"files": [{"name": f"{n}.txt", "data": "aGk="} for n in range(11)]},
    ],
)
def test_malformed_attachments_are_refused(ui: UiServer, body: dict[str, object]) -> None:
    status, data, _ = call(ui, "chat", {"chat": "k" * 24, "question": "q", **body})
    assert status == 400 and data["suggestion"], data


def test_a_key_goes_to_the_keyring_and_never_comes_back(ui: UiServer) -> None:
    keyring = ui.data_home.parent / "keyring.json"
    user_file = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
    vault_files = {p: p.read_bytes() for p in ui.vault.rglob("*") if p.is_file()}
    assert call(ui, "set_setting", {"name": "backend", "value": "openai"})[0] == 200
    status, before, _ = call(ui, "settings", {})
    assert status == 200 and before["key_set"] is False and before["key_name"] == "openai"
    status, data, text = call(ui, "set_key", {"key": f"  {KEY}\n"})
    assert status == 200, data
    assert KEY not in text and data["key_set"] is True and data["key_name"] == "openai"
    assert json.loads(keyring.read_text()) == {"vaultctx/openai": KEY}
    assert 'api_key_secret = "openai"' in user_file.read_text()
    assert KEY not in user_file.read_text()
    assert {p: p.read_bytes() for p in ui.vault.rglob("*") if p.is_file()} == vault_files
    status, data, text = call(ui, "settings", {})
    assert status == 200 and data["key_set"] is True and KEY not in text


@pytest.mark.parametrize("key", ["", "   ", 42, "two\nlines", "k" * 5000])
def test_a_key_that_is_no_key_is_refused(ui: UiServer, key: object) -> None:
    status, data, _ = call(ui, "set_key", {"key": key})
    assert status == 400 and data["suggestion"], data
