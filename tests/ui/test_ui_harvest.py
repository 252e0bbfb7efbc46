"""The harvest button of a saved conversation's page, over HTTP against a real ``vaultctx ui``
and the OpenAI wire fake: the note is written once, the Changes page undoes it, and without a
model the page says why."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import platformdirs
import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from tests.ui.ui_process import UiServer, running_ui
from vaultctx.conversations import ConversationStore, Message

EXTRACTION = "### Decisions\n- Keep WAL mode on."


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-harvest")
    env = {
        "OPENAI_TEST": KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "XDG_STATE_HOME": str(root / "state"),
    }
    notes = {"vaultctx.toml": "[second_brain]\nenabled = true\n"}
    with running_ui(root, notes=notes, env=env) as server:
        yield server


def saved_chat(ui: UiServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A conversation in the store the server reads (its data dir)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(ui.data_home))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(ui.data_home / name))
    with ConversationStore.open(ui.vault) as store:
        chat = store.new("WAL or not", "openai", "gpt-5.2")
        store.append(chat.id, [Message("user", "WAL?"), Message("assistant", "Keep it on.")])
        return chat.id


def harvest(ui: UiServer, chat: str) -> tuple[int, str]:
    body = urlencode({"id": chat})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": ui.base}
    status, _, page = ui.request(
        "/conversations/harvest", method="POST", body=body, headers=headers
    )
    return status, page


def test_the_button_harvests_once_and_changes_undoes_it(
    ui: UiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = saved_chat(ui, monkeypatch)
    status, _, page = ui.request(f"/conversations/view?id={chat}")
    assert status == 200 and 'action="/conversations/harvest"' in page
    settings = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)

    settings.write_text("[agent]\n", encoding="utf-8")
    status, page = harvest(ui, chat)
    assert status == 409 and "none is configured" in page

    with OpenAIFake() as fake:
        settings.write_text("[agent]\n" + openai_toml(fake), encoding="utf-8")
        fake.queue(Answer(EXTRACTION))
        status, page = harvest(ui, chat)
        again, second = harvest(ui, chat)
        asked = [r for r in fake.requests if r.method == "POST"]
    settings.unlink()
    assert status == 200, page
    found = re.search(r'id="harvested">Harvested into ([^;]+);', page)
    assert found, page
    note = ui.vault / found.group(1)
    assert note.read_text(encoding="utf-8").endswith(f"# WAL or not\n\n{EXTRACTION}\n")
    assert len(asked) == 1 and again == 409 and "exists already" in second

    status, _, changes = ui.request("/changes")
    record = re.search(r'name="record" value="([^"]+)"', changes)
    assert record and f"conversations harvest {chat}" in changes
    body = urlencode({"record": record.group(1)})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": ui.base}
    status, _, _ = ui.request("/changes/undo", method="POST", body=body, headers=headers)
    assert status == 200
    assert not note.exists()


def test_a_made_up_id_is_a_plain_404(ui: UiServer) -> None:
    status, page = harvest(ui, "nosuchchat")
    assert status == 404 and "Traceback" not in page
    assert not Path(ui.vault, "Second Brain", "Conversations").exists()
