"""The seed assistant's chat features through the CLI against wire fakes: skills, the web search
switch and Regenerate (docs/agent.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.cli_support import (
    KEY,
    Indexed,
    agent_env,
    ask,
    gemini_toml,
    openai_toml,
    vaultctx,
)
from tests.agent.fakes import Answer, GeminiFake, OpenAIFake
from tests.cli_in_process import run_vaultctx
from tests.conftest import REPO
from vaultctx.agent.session import REGENERATED
from vaultctx.agent.skills import BUILT_IN_SKILLS

SETTINGS = "translate = false\n"
MEETING = "- Start meeting notes with the decisions, then owners and dates."


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """In the test process (tests/cli_in_process.py): no process of their own needed."""
    return run_vaultctx(args, env=env)


def _skills_env(tmp_path: Path, fake: OpenAIFake) -> tuple[dict[str, str], Path]:
    folder = tmp_path / "my skills"
    toml = "[agent]\n" + openai_toml(fake) + SETTINGS + f"\n[skills]\nfolder = '{folder}'\n"
    return agent_env(tmp_path, toml, OPENAI_TEST=KEY), folder


def _system_text(request: dict[str, Any]) -> str:
    return "\n".join(
        str(m["content"]) for m in request["messages"] if m["role"] in ("system", "developer")
    )


def test_skills_list_enable_disable_and_the_prompt_carries_the_enabled(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer("one"), Answer("two"), Answer("three"))
        env, folder = _skills_env(tmp_path, fake)
        folder.mkdir()
        (folder / "meeting-notes.md").write_text(MEETING + "\n", encoding="utf-8")
        listed = json.loads(_cli(env, "skills", "list", "--json").stdout)
        first = ask(indexed, env, "q1")
        enabled = _cli(env, "skills", "enable", "meeting-notes")
        second = ask(indexed, env, "q2")
        _cli(env, "skills", "disable", "meeting-notes")
        third = ask(indexed, env, "q3")
        refused = _cli(env, "skills", "disable", "korean-writing")
        prompts = [_system_text(r.json) for r in fake.requests_to("/chat/completions")]
    assert [s["name"] for s in listed["skills"]] == [*BUILT_IN_SKILLS, "meeting-notes"]
    assert [s["enabled"] for s in listed["skills"]] == [True] * 6 + [False]
    assert first.returncode == second.returncode == third.returncode == 0, first.stderr
    assert enabled.returncode == 0 and "meeting-notes is on" in enabled.stderr
    assert all(f'<skill name="{name}">' in prompts[0] for name in BUILT_IN_SKILLS)
    assert MEETING not in prompts[0]
    assert '<skill name="meeting-notes">\n' + MEETING in prompts[1]
    assert MEETING not in prompts[2]
    assert refused.returncode == 2 and "built-in skill, always on" in refused.stderr


def test_skills_new_drafts_with_one_call_saves_and_turns_it_on(tmp_path: Path) -> None:
    draft = "- Write the decision first.\n- Then who does what by when."
    with OpenAIFake() as fake:
        fake.queue(Answer(draft))
        env, folder = _skills_env(tmp_path, fake)
        made = _cli(env, "skills", "new", "meeting-notes", "--about", "meeting minutes")
        again = _cli(env, "skills", "new", "meeting-notes", "--about", "meeting minutes")
        requests = fake.requests_to("/chat/completions")
        listed = json.loads(_cli(env, "skills", "list", "--json").stdout)
    assert made.returncode == 0, made.stderr
    assert len(requests) == 1  # the refused second one never called the model
    assert "meeting minutes" in json.dumps(requests[0].json)
    assert (folder / "meeting-notes.md").read_text(encoding="utf-8") == draft + "\n"
    assert listed["skills"][-1]["enabled"] is True
    assert again.returncode == 2 and "already exists" in again.stderr


def test_web_search_on_gemini_sends_google_search_and_the_hint(
    indexed: Indexed, tmp_path: Path
) -> None:
    with GeminiFake() as fake:
        fake.queue(Answer("Found it."), Answer("Plain."))
        env = agent_env(tmp_path, "[agent]\n" + gemini_toml(fake) + SETTINGS, GEMINI_TEST=KEY)
        on = ask(indexed, env, "latest sqlite release?", "--web")
        off = ask(indexed, env, "latest sqlite release?")
        bodies = [r.json for r in fake.requests if r.method == "POST"]
    assert on.returncode == off.returncode == 0, on.stderr
    assert {"googleSearch": {}} in bodies[0]["tools"]
    assert "Web search is on" in json.dumps(bodies[0]["contents"])
    assert not any("googleSearch" in tool for tool in bodies[1].get("tools", []))
    assert "Web search is on" not in json.dumps(bodies[1]["contents"])


def test_web_search_without_a_web_tool_is_refused_with_why(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + SETTINGS, OPENAI_TEST=KEY)
        result = ask(indexed, env, "latest sqlite release?", "--web")
        sent = fake.requests_to("/chat/completions")
    assert result.returncode == 2
    assert "web search is not available with the openai backend" in result.stderr
    assert "fetch, exa or brave" in result.stderr
    assert sent == [] and "Traceback" not in result.stderr


def test_web_search_through_an_mcp_fetch_tool_gives_the_hint_in_chat(
    indexed: Indexed, tmp_path: Path
) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "vaultctx", "serve", "--vault", str(indexed.vault), "--db", str(indexed.db)],
        "env": {
            "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]),
            "VAULTCTX_ENGINE": "off",  # the server itself: a relay would leave an engine running
        },
    }
    with OpenAIFake() as fake:
        fake.queue(Answer("With web."), Answer("Without."))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + SETTINGS, OPENAI_TEST=KEY)
        (tmp_path / "config" / "vaultctx" / "mcp.json").write_text(
            json.dumps({"mcpServers": {"fetch": server}}), encoding="utf-8"
        )
        script = "/web\nfirst?\n/web off\nsecond?\n"
        result = vaultctx(indexed, env, "chat", stdin=script)
        users = [
            json.dumps([m for m in r.json["messages"] if m["role"] == "user"][-1])
            for r in fake.requests_to("/chat/completions")
        ]
    assert result.returncode == 0, result.stderr
    assert "web search on (the MCP tool(s) mcp_fetch_" in result.stderr
    assert "Web search is on: when the notes fall short, use mcp_fetch_" in users[0]
    assert "Web search is on" not in users[1]


def test_regen_answers_again_and_keeps_the_earlier_answer_saved(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer("First try."), Answer("Second try."), Answer("Next."))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + SETTINGS, OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "chat", stdin="what is WAL?\n/regen\nand then?\n/save\n")
        chats = [json.dumps(r.json) for r in fake.requests_to("/chat/completions")]
        where = ["--vault", str(indexed.vault)]
        listed = json.loads(_cli(env, "conversations", "list", "--json", *where).stdout)
        shown = _cli(env, "conversations", "show", listed[0]["id"], "--json", *where)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "First try.\nSecond try.\nNext.\n"
    assert "what is WAL?" in chats[1] and "First try." not in chats[1]
    assert "Second try." in chats[2] and "First try." not in chats[2]
    messages = json.loads(shown.stdout)["messages"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "what is WAL?"),
        ("assistant", "First try."),
        ("system", REGENERATED),
        ("assistant", "Second try."),
        ("user", "and then?"),
        ("assistant", "Next."),
    ]


def test_regen_before_any_question_is_one_line(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + SETTINGS, OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "chat", stdin="/regen\n")
    assert result.returncode == 0
    assert "there is no answer to regenerate yet" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_resumed_conversation_gives_the_model_only_the_regenerated_answer() -> None:
    from pydantic_ai.messages import ModelResponse, TextPart

    from vaultctx.agent.resume import saved_history
    from vaultctx.conversations import Message

    saved = [
        Message("user", "what is WAL?"),
        Message("assistant", "First try."),
        Message("system", REGENERATED),
        Message("assistant", "Second try."),
    ]
    history = saved_history(saved)
    answers = [
        part.content
        for message in history
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, TextPart)
    ]
    assert answers == ["Second try."] and len(history) == 2
    assert saved_history([]) == []
