"""Tool results and the chat's fixed lines in the user's language (English or Korean): the
``language`` setting, else the locale. A result's first line is translated, never the note text
after it; a failure is a failure in either language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, agent_env, ask, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.test_tools_e2e import tool_messages, vault  # noqa: F401 (a fixture)
from vaultctx.agent import tool_results as texts
from vaultctx.agent.failure_tracker import FAILURE_STOP_MESSAGE, FailureTracker
from vaultctx.agent.settings import load_agent_settings
from vaultctx.agent.tool_loop import ROUND_LIMIT_MESSAGE
from vaultctx.agent.wording import KO_TERMINAL, KO_TOOLS, language_from_locale, localise, say
from vaultctx.config import ConfigError


@pytest.mark.parametrize(
    ("english", "korean"),
    [
        ("Note created: 00-inbox/Draft.md", "노트를 만들었습니다: 00-inbox/Draft.md"),
        ("Note partially updated: a.md (3 replaced)", "노트를 일부 고쳤습니다: a.md (3곳 바꿈)"),
        ("File moved: a.md → b.md", "파일을 옮겼습니다: a.md → b.md"),
        ("Template saved: Templates/Kickoff.md", "템플릿을 저장했습니다: Templates/Kickoff.md"),
        ("Search results (hybrid):", "검색 결과 (hybrid):"),
        ("Search results (bm25) — filter: tags: x:", "검색 결과 (bm25) — 필터: tags: x:"),
        (
            "Tool execution error: read_note: paths outside the vault are not allowed: ../x",
            "도구 실행 오류: read_note: 볼트 밖의 경로는 허용되지 않습니다: ../x",
        ),
        (
            "Tool execution error: File not found: a.md; run `vaultctx index`",
            "도구 실행 오류: 파일을 찾을 수 없습니다: a.md; run `vaultctx index`",
        ),
        ("Tool execution error: something of a server", "도구 실행 오류: something of a server"),
        (texts.DENIED, "사용자가 도구 실행을 거부했습니다."),
        (
            ROUND_LIMIT_MESSAGE,
            "끝내기 전에 도구 라운드 한도(10)에 닿았습니다. 이어 가려면 메시지를 하나 더 보내세요.",
        ),
        ("A server's own words", "A server's own words"),
    ],
)
def test_a_results_first_line_is_translated(english: str, korean: str) -> None:
    assert localise(english, "ko") == korean
    assert localise(english, "en") == english


def test_the_note_text_after_the_first_line_is_never_altered() -> None:
    note = "Path: Projects/Plan.md\n\nNote created: a line of the note\nFolder not found: x\n"
    assert localise(note, "ko") == (
        "경로: Projects/Plan.md\n\nNote created: a line of the note\nFolder not found: x\n"
    )


def test_every_fixed_result_has_its_korean() -> None:
    fixed = [
        texts.DENIED,
        texts.NOT_RUN,
        texts.NO_ACTIVE_NOTE,
        texts.EMPTY_FOLDER,
        texts.NO_TEMPLATES,
        texts.NO_RESULTS,
        texts.tool_error(texts.EMPTY_QUERY),
        texts.unknown_tool("web_search"),
        texts.missing_arguments(["path"]),
        texts.folder_not_found("Inbox"),
        texts.search_failed("the index is locked"),
        texts.invalid_filter(["tags must be a list"]),
        ROUND_LIMIT_MESSAGE,
        FAILURE_STOP_MESSAGE,
    ]
    for english in fixed:
        korean = localise(english, "ko")
        first = korean.splitlines()[0]
        assert re.search(r"[\uac00-\ud7a3]", first), english  # a Hangul syllable: translated


def test_the_catalogue_keeps_each_placeholder() -> None:
    for english, korean in {**KO_TOOLS, **KO_TERMINAL}.items():
        assert sorted(re.findall(r"\{(\w+)\}", english)) == sorted(
            re.findall(r"\{(\w+)\}", korean)
        ), english


def test_failures_count_in_either_language() -> None:
    """Three failures in a row stop the loop, whatever language each was written in."""
    tracker = FailureTracker()
    for n, result in enumerate([texts.file_not_found("a.md")] * 3):
        tracker.update("read_note", localise(result, "ko") if n % 2 else result)
    assert tracker.stopped
    assert texts.is_denied(localise(texts.DENIED, "ko")) and texts.is_denied(texts.DENIED)
    assert not texts.is_tool_error("도구 실행 오류 없음")


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "ko_KR.UTF-8"}, "ko"),
        ({"LANG": "ko"}, "ko"),
        ({"LC_ALL": "en_US.UTF-8", "LANG": "ko_KR.UTF-8"}, "en"),
        ({"LC_MESSAGES": "ko_KR", "LANG": "C.UTF-8"}, "ko"),
        ({"LANG": "ja_JP.UTF-8"}, "en"),  # not one vaultctx speaks yet
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_the_default_follows_the_locale(environ: dict[str, str], language: str) -> None:
    assert language_from_locale(environ) == language


def test_the_setting_wins_and_is_checked(tmp_path: Path) -> None:
    config = tmp_path / "vaultctx.toml"
    config.write_text('[agent]\nlanguage = "KO"\n', encoding="utf-8")
    assert load_agent_settings(None, env={}, user_config=config).user_language() == "ko"
    config.write_text('[agent]\nlanguage = "klingon"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="not one vaultctx speaks"):
        load_agent_settings(None, env={}, user_config=config)
    env = {"VAULTCTX_AGENT_LANGUAGE": "ko"}
    assert load_agent_settings(None, env=env, user_config=tmp_path / "none").language == "ko"


def test_say_falls_back_to_english() -> None:
    assert say("ko", "saved as {id}", id="k3x") == "k3x(으)로 저장했습니다"
    assert say("ko", "no entry for this") == "no entry for this"
    assert say("en", "saved as {id}", id="{braces}") == "saved as {braces}"


def test_ask_in_korean_end_to_end(vault: object, tmp_path: Path) -> None:  # noqa: F811
    """``vaultctx ask`` under a Korean locale: the model reads the tool's result in Korean, and
    the round limit's notice on stderr is Korean too."""
    script = [Answer(tool_calls=[ToolCall("list_files", {"folder": "nowhere"})])] * 3
    with OpenAIFake() as fake:
        fake.queue(*script, Answer("끝."))
        toml = "[agent]\n" + openai_toml(fake) + "translate = false\n"
        env = agent_env(tmp_path, toml, OPENAI_TEST=KEY, LANG="ko_KR.UTF-8", LC_ALL="")
        result = ask(vault, env, "폴더를 보여 줘")  # type: ignore[arg-type]
        bodies = [request.json for request in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    sent = tool_messages(bodies[1])
    assert sent == ["도구 실행 오류: 폴더를 찾을 수 없습니다: nowhere"]
    # Three failures: the loop stops, and says so in Korean.
    assert "멈춤: 도구 실행이 3번 실패했습니다" in result.stderr
    assert len(bodies) == 3  # no fourth round
    assert json.dumps(bodies[2], ensure_ascii=False).count("도구 실행 오류") == 2


def test_the_chats_own_lines_in_korean(vault: object, tmp_path: Path) -> None:  # noqa: F811
    """A piped chat under ``language = "ko"``: its own lines on stderr are Korean; the answer
    and the commands themselves are as typed."""
    with OpenAIFake() as fake:
        fake.queue(Answer("네."))
        toml = "[agent]\n" + openai_toml(fake) + 'translate = false\nlanguage = "ko"\n'
        env = agent_env(tmp_path, toml, OPENAI_TEST=KEY)
        script = "/save\n/new\n안녕?\n/save\n/quit\n"
        result = vaultctx(vault, env, "chat", stdin=script)  # type: ignore[arg-type]
    assert result.returncode == 0, result.stderr
    assert "아직 저장할 것이 없습니다" in result.stderr and "새 대화" in result.stderr
    assert re.search(r"\S+\(으\)로 저장했습니다", result.stderr)
    assert "nothing to save yet" not in result.stderr and "saved as" not in result.stderr


def test_the_guard_translates_vaultctxs_words_not_an_mcp_servers(example_vault: Path) -> None:
    import asyncio

    from vaultctx.agent.confirm import ConfirmPolicy
    from vaultctx.agent.toolset import ToolGuard
    from vaultctx.api import Vault

    async def returns(text: str) -> str:
        return text

    with Vault(example_vault, db=example_vault.parent / "index.db") as handle:
        guard = ToolGuard(handle, ConfirmPolicy(enabled=False), language="ko")

        def run(name: str, text: str) -> str:
            return str(asyncio.run(guard.run(name, {}, lambda: returns(text))))

        assert run("create_note", "Note created: a.md") == "노트를 만들었습니다: a.md"
        assert run("mcp_files_read", "Path: /srv/x\nbody") == "Path: /srv/x\nbody"
        failure = texts.failed("mcp_files_read", "the server is gone")
        assert run("mcp_files_read", failure).startswith("도구 실행 오류: mcp_files_read")
        assert guard.calls[0]["result_summary"] == "노트를 만들었습니다: a.md"
