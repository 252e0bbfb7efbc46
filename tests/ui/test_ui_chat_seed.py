"""The Chat page's Regenerate button and web search switch, in a real chromium against the
OpenAI wire fake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from tests.ui.browser import browser
from tests.ui.ui_process import UiServer, running_ui


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-chat-seed")
    env = {
        "OPENAI_TEST": KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "XDG_STATE_HOME": str(root / "state"),
    }
    with running_ui(root, env=env) as server:
        yield server


@pytest.fixture
def fake(ui: UiServer) -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        settings = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text("[agent]\n" + openai_toml(server) + "translate = false\n", "utf-8")
        yield server


def test_regenerate_answers_the_last_question_again(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("First try."), Answer("Second try."))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.get_by_role("link", name="Chat").click()
        assert page.get_by_role("button", name="Regenerate").is_disabled()
        page.get_by_label("Your question").fill("what is WAL?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        page.get_by_role("button", name="Regenerate").click()
        page.wait_for_selector(".turn:nth-of-type(2)[data-state='done']", timeout=120_000)
        answers = page.locator(".turn .answer").all_inner_texts()
    assert [a.strip() for a in answers] == ["First try.", "Second try."]
    chats = [r.json for r in fake.requests if r.path.endswith("/completions")]
    assert len(chats) == 2 and "First try." not in str(chats[1])
    assert "what is WAL?" in str(chats[1])


def test_the_web_switch_is_refused_with_why_where_nothing_searches(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.get_by_role("link", name="Chat").click()
        page.get_by_label("Web search").check()
        page.get_by_label("Your question").fill("latest sqlite release?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        problem = page.locator(".turn .problem").inner_text()
    assert "web search is not available with the openai backend" in problem
    assert "fetch, exa or brave" in problem
    assert not [r for r in fake.requests if r.path.endswith("/completions")]
