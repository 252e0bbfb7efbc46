"""The Chat page in a real chromium against the OpenAI wire fake: a streamed answer with its
sources, a made-up citation flagged, Stop, and a hostile answer that stays text."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall, Usage
from tests.ui.browser import browser, screenshot_path
from tests.ui.ui_process import UiServer, running_ui

if TYPE_CHECKING:
    from playwright.sync_api import Route

REAL = "[[30-resources/databases/SQLite tuning#WAL mode]]"
MADE_UP = "[[30-resources/databases/Postgres tuning#Vacuum]]"
ANSWER = ["WAL mode lets readers ", f"work while one writer writes {REAL}. ", f"See {MADE_UP}."]


def model_requests(fake: OpenAIFake) -> list[object]:
    return [r for r in fake.requests if r.method == "POST" and r.path.endswith("/completions")]


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-chat")
    env = {
        "OPENAI_TEST": KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "XDG_STATE_HOME": str(root / "state"),
    }
    with running_ui(root, env=env) as server:
        yield server


@pytest.fixture
def fake(ui: UiServer) -> Iterator[OpenAIFake]:
    """A fresh fake per test (nothing left queued by another), named in the user settings the
    server reads when a page opens a conversation."""
    with OpenAIFake() as server:
        settings = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        # No confirm_changes here: the page asks before a change by default.
        agent = "[agent]\n" + openai_toml(server) + "translate = false\n"
        settings.write_text(agent, encoding="utf-8")
        yield server


def test_an_answer_streams_in_with_its_sources(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer(ANSWER, usage=Usage(900, 40)))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.get_by_role("link", name="Chat").click()
        page.get_by_label("Your question").fill("why does WAL mode help with locking?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        turn = page.locator(".turn").last
        assert "WAL mode lets readers work while one writer writes" in turn.inner_text()
        first_ms = float(turn.locator(".answer").get_attribute("data-first-ms") or "nan")
        assert first_ms > 0
        sources = turn.locator("a.source")
        assert sources.count() > 0
        hrefs = [sources.nth(i).get_attribute("href") or "" for i in range(sources.count())]
        assert all(href.startswith("/note?path=") for href in hrefs)
        assert any("SQLite%20tuning.md" in href for href in hrefs)
        unresolved = turn.locator("li.unresolved").inner_text()
        assert "Postgres tuning" in unresolved
        flagged = turn.locator(".answer a.wikilink.unresolved")
        assert flagged.count() == 1 and "Postgres tuning" in flagged.inner_text()
        assert turn.locator(".answer a.wikilink:not(.unresolved)").count() == 1  # the real one
        assert "Saved as conversation" in turn.inner_text()
        page.screenshot(path=str(screenshot_path("chat")))
    sent = fake.last("/chat/completions").json
    assert "why does WAL mode help with locking?" in str(sent)


def test_a_question_typed_before_the_page_script_is_not_lost(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    """On a loaded machine chat.js may arrive after the page is shown: until it runs, Enter in
    the question box only added a line and nothing was asked (the turn never started). The box
    and Send now stay disabled until the script has its handlers on."""
    fake.queue(Answer(["Asked after all."]))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        held: list[Route] = []
        page.route("**/static/chat.js", lambda route: held.append(route))  # late: held back
        page.goto(f"{ui.base}/chat", wait_until="commit")
        page.wait_for_selector("#question", state="attached")
        deadline = time.monotonic() + 60
        while not held:
            assert time.monotonic() < deadline, "the page never asked for chat.js"
            page.wait_for_timeout(50)
        assert page.locator("#question").is_disabled()
        assert page.locator("#ask").is_disabled()
        held[0].continue_()
        page.get_by_label("Your question").fill("asked too early?")  # waits for the script
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        assert "Asked after all." in page.locator(".turn").last.inner_text()
    assert "asked too early?" in str(fake.last("/chat/completions").json)


def test_stop_ends_a_slow_answer_and_the_next_one_works(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("too late", delay=20), Answer(["Second ", "answer."]))
    asked = len(model_requests(fake))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "a slow one")
        page.click("#ask")
        deadline = time.monotonic() + 120
        while len(model_requests(fake)) == asked:  # the slow answer is on its way: stop it
            assert time.monotonic() < deadline
            time.sleep(0.05)
        page.click("#stop")
        page.wait_for_selector(".turn[data-state='stopped']")
        assert "Stopped." in page.locator(".turn").last.inner_text()
        page.fill("#question", "and now?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn:nth-of-type(2)[data-state='done']", timeout=120_000)
        assert "Second answer." in page.locator(".turn").last.inner_text()


def test_a_hostile_answer_stays_text(ui: UiServer, fake: OpenAIFake, tmp_path: Path) -> None:
    hostile = ["<script>window.pwned=1</script> ", "<img src=x onerror=window.pwned=2> ",
               "[click](javascript:window.pwned=3)"]  # fmt: skip
    fake.queue(Answer(hostile))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "say something nasty")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        answer = page.locator(".turn .answer").last
        assert "<script>window.pwned=1</script>" in answer.inner_text()
        assert answer.locator("script, img").count() == 0
        assert answer.get_by_role("link").count() == 0
        assert page.evaluate("typeof window.pwned") == "undefined"


def test_tool_calls_show_as_collapsible_steps(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(
        Answer(tool_calls=[ToolCall("search_vault", {"query": "idempotency keys"}, split=2)]),
        Answer(["Idempotency keys made the restart safe."]),
    )
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "why was the restart safe?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        step = page.locator(".turn .tool-step").first
        assert step.locator("summary").inner_text() == "Tool: search_vault"
        assert not step.locator("pre").is_visible()  # collapsed until opened
        step.locator("summary").focus()
        page.keyboard.press("Enter")
        shown = step.locator("pre").inner_text()
        assert '"query": "idempotency keys"' in shown and "→" in shown
        assert "Idempotency keys made the restart safe." in page.inner_text(".turn .answer")


def test_a_backend_failure_is_shown_with_its_fix(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(OpenAIFake.auth_error())
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "anything")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done'] .problem", timeout=120_000)
        problem = page.inner_text(".turn .problem")
        assert "refused the key (HTTP 401)" in problem  # what went wrong
        assert "vaultctx secret set" in problem  # and the fix


def test_the_first_words_are_on_screen_soon_after_the_backend_sends_them(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the fake starting to write the frame with the first words to the browser's next
    frame after showing them (both on this machine's wall clock); docs/benchmarks.md."""
    from tests.agent.fakes import base

    marker = b"Zanzibar"
    sent: list[float] = []
    write_chunk = base._Handler._chunk

    def timed_chunk(handler: base._Handler, data: bytes) -> None:
        if marker in data and not sent:
            sent.append(time.time() * 1000)  # as the frame leaves
        write_chunk(handler, data)

    monkeypatch.setattr(base._Handler, "_chunk", timed_chunk)
    gaps = []
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        for number in range(6):
            sent.clear()
            fake.queue(Answer(["Zanzibar ", "is an island."]))
            page.fill("#question", f"where is it? ({number})")
            page.keyboard.press("Enter")
            page.wait_for_selector(f".turn:nth-of-type({number + 1})[data-state='done']")
            answer = page.locator(".turn .answer").nth(number)
            shown = float(answer.get_attribute("data-first-shown-at") or "nan")
            gaps.append(shown - sent[0])
    warm = sorted(gaps[1:])
    print(f"\nfirst words on screen after the backend sent them: {[round(g, 1) for g in warm]} ms")
    # The page marked when each answer's first words appeared. How soon is a figure for
    # docs/benchmarks.md, not an assertion: on a shared machine it swings with the load.
    assert len(gaps) == 6 and not any(math.isnan(gap) for gap in gaps), gaps


def test_saved_conversations_are_listed_searched_read_and_exported(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer(["Quokkas live on Rottnest Island. <b>bold?</b>"]))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "where do quokkas live?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        page.get_by_role("link", name="Conversations").click()
        assert "where do quokkas live?" in page.inner_text("ol.results")
        page.get_by_label("Search the conversations").fill("Rottnest")
        page.keyboard.press("Enter")
        page.wait_for_url("**/conversations?q=Rottnest")
        hit = page.locator("li.conversation").first
        assert "Rottnest" in hit.inner_text()
        hit.get_by_role("link").click()
        text = page.inner_text("article.conversation-text")
        assert "where do quokkas live?" in text and "<b>bold?</b>" in text  # shown as text
        assert page.locator("article b").count() == 0
        export = page.get_by_role("link", name="Export as markdown").get_attribute("href")
    assert export is not None
    status, headers, body = ui.request(export)
    assert status == 200
    assert headers["content-type"].startswith("text/markdown")
    assert headers["content-disposition"].startswith('attachment; filename="conversation-')
    assert body.startswith("---\nid: ") and "Quokkas live on Rottnest Island." in body
    assert ui.request("/conversations/view?id=nosuchid")[0] == 404
    assert ui.request("/conversations/view?id=..%2F..%2Fetc")[0] == 404


@pytest.mark.parametrize(("decision", "written"), [("Yes", True), ("No", False)])
def test_a_change_waits_for_the_users_answer(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path, decision: str, written: bool
) -> None:
    path = f"00-inbox/Asked {decision}.md"
    fake.queue(
        Answer(tool_calls=[ToolCall("create_note", {"path": path, "content": "# Asked\n"})]),
        Answer(["Done."]),
    )
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "make a note")
        page.keyboard.press("Enter")
        box = page.locator(".turn .confirm")
        box.wait_for(timeout=120_000)
        assert "Allow this change? create_note" in box.inner_text()
        assert "+# Asked" in box.locator("pre").inner_text()  # the diff of what it would write
        assert not (ui.vault / path).exists()  # nothing before the answer
        box.get_by_role("button", name=decision, exact=True).click()
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        assert box.get_attribute("data-decided") == decision.lower()
    assert (ui.vault / path).exists() is written
    assert (
        ui.request(
            "/chat/confirm",
            method="POST",
            body="id=gone&decision=yes",
            headers={"Origin": ui.base, "Content-Type": "application/x-www-form-urlencoded"},
        )[0]
        == 404
    )


def test_the_reasoning_effort_chosen_goes_to_the_model(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer(["Thought hard."]))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.get_by_label("Reasoning effort").select_option("high")
        page.fill("#question", "think about it")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
    assert fake.last("/chat/completions").json["reasoning_effort"] == "high"


def test_files_chosen_or_dropped_go_with_the_question(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    chosen = tmp_path / "chosen.md"
    chosen.write_text("The chosen file mentions narwhals.\n", encoding="utf-8")
    fake.queue(Answer(["Read both."]))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.get_by_label("Attach files").set_input_files(str(chosen))
        page.evaluate(
            """() => {
                 const drop = new DataTransfer();
                 drop.items.add(new File(["Dropped text about axolotls."], "../../dropped.txt",
                                         {type: "text/plain"}));
                 const form = document.getElementById("chat-form");
                 form.dispatchEvent(new DragEvent("drop", {dataTransfer: drop, bubbles: true}));
               }"""
        )
        assert page.evaluate("document.getElementById('attach').files.length") == 2
        page.fill("#question", "what do the files say?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        assert "chosen.md" in page.inner_text(".turn .attached")
        assert page.evaluate("document.getElementById('attach').files.length") == 0
    sent = json.dumps(fake.last("/chat/completions").json)
    assert "narwhals" in sent and "axolotls" in sent
    assert "dropped.txt" in sent and "../" not in sent  # a base name only


def test_a_file_that_cannot_be_attached_is_refused_with_the_reason(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    binary = tmp_path / "program.exe"
    binary.write_bytes(b"MZ\x00\x01")
    asked = len(model_requests(fake))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.get_by_label("Attach files").set_input_files(str(binary))
        page.fill("#question", "run it")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done'] .problem", timeout=120_000)
        assert ".exe cannot be attached" in page.inner_text(".turn .problem")
    assert len(model_requests(fake)) == asked  # nothing was sent


def test_a_saved_conversation_continues_in_the_chat_page(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    """Conversations → "Continue in chat": the earlier turns are shown, the model's next request
    carries them, and the new turn is appended to the same saved conversation."""
    fake.queue(Answer(["The Kalbarri <i>ferry</i> leaves at nine."]), Answer(["At six."]))
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/chat")
        page.fill("#question", "when does the Kalbarri ferry leave?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        saved = page.locator(".turn .meta").last.inner_text()
        first_id = saved.rsplit(" ", 1)[-1].strip(" .`")
        page.goto(f"{ui.base}/conversations?q=Kalbarri")
        page.locator("li.conversation").first.get_by_role("link").click()
        page.wait_for_url("**/conversations/view?id=*")
        link = page.get_by_role("link", name="Continue in chat")
        link.focus()  # keyboard: the link is reachable and Enter follows it
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/chat?continue={first_id}")
        earlier = page.locator("#earlier")
        assert "when does the Kalbarri ferry leave?" in earlier.inner_text()
        assert "The Kalbarri <i>ferry</i> leaves at nine." in earlier.inner_text()  # as text
        assert earlier.locator("i").count() == 0
        assert first_id in page.inner_text("#chat-continued")
        assert page.get_by_label("Your question").count() == 1
        page.get_by_label("Your question").fill("and the last one back?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".turn[data-state='done']", timeout=120_000)
        turn = page.locator(".turn").last
        assert "At six." in turn.inner_text() and first_id in turn.inner_text()
    sent = fake.last("/chat/completions").json
    assert isinstance(sent, dict)
    texts = [json.dumps(message, ensure_ascii=False) for message in sent["messages"]]
    question = next(i for i, t in enumerate(texts) if "when does the Kalbarri ferry leave?" in t)
    answer = next(i for i, t in enumerate(texts) if "leaves at nine." in t)
    latest = next(i for i, t in enumerate(texts) if "and the last one back?" in t)
    assert question < answer < latest
    assert sent["messages"][answer]["role"] == "assistant"
    status, _, body = ui.request(f"/conversations/export?id={first_id}")
    assert status == 200
    assert body.index("Kalbarri ferry leave?") < body.index("and the last one back?")
    assert "At six." in body
    assert ui.request("/chat?continue=nosuchid")[0] == 404
    assert ui.request("/chat?continue=..%2Fetc")[0] == 404


# Regenerate and the web search switch (docs/agent.md).


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
