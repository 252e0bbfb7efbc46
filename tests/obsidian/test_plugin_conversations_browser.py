"""The plugin's chat beyond one question, in Chromium against a real ``vaultctx ui`` and the
OpenAI wire fake: a note dragged from Obsidian and a file dropped from disk go with a question,
Regenerate answers it again, the saved conversation is found in the Conversations view and
resumed with its history, and an API key typed in the settings tab lands in the keyring (a real
keyring backend) without ever reaching the plugin's data.json or coming back to the page."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.agent.cli_support import KEY
from tests.agent.fakes import Answer, OpenAIFake
from tests.obsidian.harness_server import harness_server
from tests.obsidian.plugin_page import NOTE, WAIT_MS, open_harness, plugin_setup, shot
from tests.ui.browser import browser

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPO = Path(__file__).resolve().parents[2]
EXPLORER_DRAG = "obsidian://open?vault=vault&file=30-resources%2Fdatabases%2FSQLite%20tuning"
DISK_TEXT = "Field notes from disk: checkpoint every 1000 pages."
QUESTION = "what do these say about checkpoints?"
IMAGE = "img/diagram.png"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
OBSIDIAN_DRAG = """path => {
    const app = window.harness.app;
    app.dragManager = { draggable: { type: "file", file: app.vault.getAbstractFileByPath(path) } };
}"""
CLEAR_NOTICES = "document.getElementById('notices').replaceChildren()"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("obsidian-conversations")
    keyring = root / "keyring.json"
    with plugin_setup(
        root,
        PYTHONPATH=f"{REPO / 'src'}:{REPO}",
        PYTHON_KEYRING_BACKEND="tests.agent.file_keyring.FileKeyring",
        VAULTCTX_TEST_KEYRING=str(keyring),
    ) as prepared:
        (prepared["vault"] / "img").mkdir()
        (prepared["vault"] / IMAGE).write_bytes(PNG)
        yield {**prepared, "keyring": keyring}


def drop(page: Page, text: str = "", file: tuple[str, str] | None = None) -> None:
    """A drop on the chat view as Chromium delivers one: Obsidian's file explorer puts the
    file's obsidian:// address in text/plain; the desktop puts the file itself."""
    page.evaluate(
        """([text, file]) => {
            const data = new DataTransfer();
            if (text) data.setData("text/plain", text);
            if (file) data.items.add(new File([file[1]], file[0], { type: "text/plain" }));
            const target = document.querySelector(".vaultctx-chat");
            const event = { dataTransfer: data, bubbles: true, cancelable: true };
            target.dispatchEvent(new DragEvent("drop", event));
        }""",
        [text, list(file) if file else None],
    )


def wait_done(page: Page, count: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll(\".vaultctx-turn[data-state='done']\").length >= {count}",
        timeout=WAIT_MS,
    )


def sent(fake: OpenAIFake) -> str:
    return json.dumps(fake.last("/chat/completions").json, ensure_ascii=False)


def test_attach_regenerate_and_resume(setup: dict[str, Any], tmp_path: Path) -> None:
    vault, fake = setup["vault"], setup["fake"]
    note_text = (vault / NOTE).read_text(encoding="utf-8")
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, vault)
        page.evaluate("window.harness.runCommand('vaultctx:open-assistant')")
        page.locator(".vaultctx-chat").wait_for(timeout=WAIT_MS)
        drop(page, EXPLORER_DRAG)
        drop(page, file=("field notes.txt", DISK_TEXT))
        drop(page, "[[No such note]]")
        page.evaluate(OBSIDIAN_DRAG, IMAGE)  # an image dragged by Obsidian itself: its drag manager
        drop(page)
        page.evaluate("() => { window.harness.app.dragManager.draggable = null; }")
        chips = page.locator(".vaultctx-pending .vaultctx-chip")
        chips.nth(2).wait_for(timeout=WAIT_MS)
        assert [t.split("\n")[0].rstrip("×").strip() for t in chips.all_inner_texts()] == [
            NOTE,
            "field notes.txt",
            IMAGE,
        ]
        page.locator(".notice", has_text="No such note").wait_for(timeout=WAIT_MS)
        page.fill(".vaultctx-ask textarea", QUESTION)
        page.evaluate(CLEAR_NOTICES)
        shot(page, "attachments", only="vaultctx-chat")
        fake.queue(Answer(["Checkpoints come every 1000 pages."]))
        page.keyboard.press("Enter")
        wait_done(page, 1)
        asked = sent(fake)
        assert note_text.splitlines()[-1].strip()[:40] in asked  # the note, read by the server
        assert DISK_TEXT in asked  # the file's bytes
        assert base64.b64encode(PNG).decode()[:40] in asked  # the vault's image, read by the server
        assert chips.count() == 0  # sent with that question only
        assert "📎" in page.locator(".vaultctx-turn").first.inner_text()

        fake.queue(Answer(["Again: every 1000 pages, or at commit."]))
        before = len(fake.requests)
        page.get_by_role("button", name="Regenerate", exact=True).click()
        wait_done(page, 2)
        regenerated = page.locator(".vaultctx-turn[data-regenerated='yes']")
        assert "Again: every 1000 pages" in regenerated.inner_text()
        assert QUESTION in regenerated.inner_text()
        assert len(fake.requests) > before and QUESTION in sent(fake)
        # Answered again from the history before the first answer, not asked a second time.
        assert "Checkpoints come every 1000 pages." not in sent(fake)
        assert DISK_TEXT in sent(fake)  # with the attachments the question had

        page.evaluate("window.harness.runCommand('vaultctx:show-conversations')")
        rows = page.locator(".vaultctx-conversations .vaultctx-conversation")
        rows.first.wait_for(timeout=WAIT_MS)
        assert rows.count() == 1 and QUESTION[:20] in rows.first.inner_text()
        page.locator(".vaultctx-conversations input").fill("checkpoints")
        page.locator(".vaultctx-conversations .vaultctx-conversation mark").first.wait_for(
            timeout=WAIT_MS
        )
        page.evaluate(CLEAR_NOTICES)
        shot(page, "conversations", only="vaultctx-conversations")
        rows.first.click()
        page.wait_for_selector(".vaultctx-chat-title:has-text('Continuing')", timeout=WAIT_MS)
        saved = page.locator(".vaultctx-chat .vaultctx-turn[data-state='saved']")
        assert saved.count() >= 1 and QUESTION in saved.first.inner_text()
        assert "Again: every 1000 pages" in page.locator(".vaultctx-messages").inner_text()
        fake.queue(Answer(["Follow-up answered."]))
        page.fill(".vaultctx-ask textarea", "and after a crash?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".vaultctx-turn[data-state='done']", timeout=WAIT_MS)
        assert "Again: every 1000 pages" in sent(fake)  # the resumed history went to the model
        page.evaluate("window.harness.runCommand('vaultctx:show-conversations')")
        page.locator(".vaultctx-conversations input").fill("")
        deadline = time.monotonic() + 60
        while rows.count() != 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert rows.count() == 1  # continued, not a second conversation


def test_a_key_from_the_settings_tab_goes_to_the_keyring_only(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    keyring: Path = setup["keyring"]
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, setup["vault"])
        page.evaluate("window.harness.showSettings()")
        row = page.locator(".vertical-tab-content .setting-item", has_text="API key")
        row.wait_for(timeout=WAIT_MS)
        assert not keyring.exists()  # the key so far comes from the environment
        row.locator("input[type='password']").fill(KEY)
        row.get_by_role("button", name="Save key").click()
        page.locator(".notice", has_text="is in your keyring").wait_for(timeout=WAIT_MS)
        row = page.locator(".vertical-tab-content .setting-item", has_text="API key")
        row.filter(has_text="A key is set.").wait_for(timeout=WAIT_MS)
        assert KEY in json.loads(keyring.read_text()).values()
        assert KEY not in page.content()  # the field was emptied; nothing sent it back
        saved = page.evaluate("JSON.stringify(window.harness.plugin._data)")
        assert KEY not in saved
        shot(page, "settings")
