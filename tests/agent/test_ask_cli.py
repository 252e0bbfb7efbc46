"""`vaultctx ask` end to end: a real process, the real client library, a fake backend that speaks
each provider's wire protocol, and the bundled example vault indexed for real."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agent.cli_support import (
    KEY,
    Indexed,
    agent_env,
    ask,
    gemini_toml,
    ollama_toml,
    openai_toml,
    vaultctx,
)
from tests.agent.fakes import (
    Answer,
    BedrockFake,
    Cut,
    GeminiFake,
    OllamaFake,
    OpenAIFake,
    ToolCall,
    Usage,
)

REAL = "[[30-resources/databases/SQLite tuning#WAL mode]]"
MADE_UP = "[[30-resources/databases/Postgres tuning#Vacuum]]"
ANSWER = [
    "WAL mode lets readers ",
    f"work while one writer writes {REAL}. ",
    f"See also {MADE_UP}.",
]


BACKENDS: dict[str, tuple[type, Callable[..., str]]] = {
    "openai": (OpenAIFake, openai_toml),
    "ollama": (OllamaFake, ollama_toml),
    "gemini": (GeminiFake, gemini_toml),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_ask_streams_a_cited_answer_and_flags_a_made_up_citation(
    backend: str, indexed: Indexed, tmp_path: Path
) -> None:
    fake_type, settings = BACKENDS[backend]
    with fake_type() as fake:
        fake.queue(Answer(ANSWER, usage=Usage(900, 40)))
        env = agent_env(
            tmp_path,
            "[agent]\n" + settings(fake) + "translate = false\n",
            OPENAI_TEST=KEY,
            GEMINI_TEST=KEY,
        )
        # A real process: the console script's ``ask`` end to end (the rest run in-process).
        command = ("ask", "why does WAL mode help with locking?")
        result = vaultctx(indexed, env, *command, process=True)
        sent = [r for r in fake.requests if r.method == "POST"]
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(ANSWER) + "\n"
    assert f"unresolved citation: {MADE_UP}" in result.stderr
    assert REAL not in result.stderr
    body = json.dumps(sent[-1].json, ensure_ascii=False)
    assert "why does WAL mode help with locking?" in body
    assert "SQLite tuning#WAL mode" in body  # the passage went with the question
    assert "Current local date and time" in body
    header = sent[-1].header("authorization") or sent[-1].header("x-goog-api-key") or ""
    if backend == "ollama":
        assert KEY not in header
    else:
        assert KEY in header


def test_json_output_has_answer_citations_and_usage(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer(ANSWER, usage=Usage(900, 40)))
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        result = ask(indexed, env, "why does WAL mode help?", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["answer"] == "".join(ANSWER)
    assert out["citations"] == [REAL, MADE_UP]
    assert [u["citation"] for u in out["unresolved"]] == [MADE_UP]
    assert out["usage"]["input_tokens"] == 900 and out["usage"]["output_tokens"] == 40
    assert "30-resources/databases/SQLite tuning.md#WAL mode" in out["sources"]


def test_a_stream_cut_mid_answer_keeps_the_part_that_arrived(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer(ANSWER, fault=Cut(after=3)))  # the role frame, then two pieces
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        result = ask(indexed, env, "why does WAL mode help?")
    assert result.returncode == 2
    assert result.stdout == ANSWER[0] + ANSWER[1] + "\n"
    assert "Traceback" not in result.stderr
    assert result.stderr.count("error:") == 1
    assert "broke off while the answer was arriving" in result.stderr
    assert "the part that arrived is shown above" in result.stderr


@pytest.mark.parametrize(
    ("reply", "wanted"),
    [
        (
            OpenAIFake.auth_error(),
            "refused the key (HTTP 401); store the right key with "
            "`vaultctx secret set openai-test`",
        ),
        (
            OpenAIFake.rate_limited(retry_after=7),
            "is rate limiting requests; it asks to wait 7 s; try again in 7 s",
        ),
        (OpenAIFake.server_error(503), "failed to answer"),
    ],
)
def test_backend_failures_are_one_line(
    indexed: Indexed, tmp_path: Path, reply: object, wanted: str
) -> None:
    with OpenAIFake() as fake:
        fake.queue(reply)
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        result = ask(indexed, env, "why does WAL mode help?")
    assert result.returncode == 2
    assert wanted in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert KEY not in result.stderr


def test_a_backend_that_is_down(indexed: Indexed, tmp_path: Path) -> None:
    with OllamaFake() as fake:
        address = fake.base_url
    env = agent_env(tmp_path, f'[agent]\nbackend = "ollama"\nmodel = "m"\nbase_url = "{address}"\n')
    result = ask(indexed, env, "anything?")
    assert result.returncode == 2
    assert f"cannot reach ollama at {address}; start Ollama (`ollama serve`)" in result.stderr


@pytest.mark.parametrize(
    ("toml", "wanted"),
    [
        ('backend = "openai"\nmodel = "gpt-5"\n', "needs an API key, and no api_key_secret is set"),
        (
            'backend = "openai"\nmodel = "gpt-5"\napi_key_secret = "nope"\n',
            "no secret named 'nope'",
        ),
        ('backend = "ollama"\n', "no ollama model is set"),
        ('backend = "mistral"\n', "unknown backend 'mistral'"),
        (
            'backend = "openai"\nmodel = "m"\nbase_url = "ftp://x"\n',
            "is not an http:// or https:// URL",
        ),
        (
            'backend = "openai"\nmodel = "m"\nbase_url = "https://api.example.com"\n'
            'api_key_secret = "k"\n',
            "has no /v1 in its path",
        ),
        ('backend = "bedrock"\nmodel = "m"\n', "needs an AWS profile or a Bedrock API key"),
    ],
)
def test_bad_settings_are_one_line_before_anything_is_sent(
    indexed: Indexed, tmp_path: Path, toml: str, wanted: str
) -> None:
    env = agent_env(tmp_path, "[agent]\n" + toml, K="x")
    result = ask(indexed, env, "anything?")
    assert result.returncode == 2, result.stdout
    assert wanted in result.stderr
    assert "Traceback" not in result.stderr


AMBIENT = {
    "AWS_ACCESS_KEY_ID": "AKIAAMBIENTAMBIENT00",
    "AWS_SECRET_ACCESS_KEY": "ambient/secret/ambient/secret/ambient/sec",
    "AWS_BEARER_TOKEN_BEDROCK": "ABSK-ambient-token",
    "AWS_PROFILE": "default",
}
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def _aws_files(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "aws-config"
    config.write_text(
        "[default]\naws_access_key_id = AKIADEFAULTDEFAULT00\n"
        "aws_secret_access_key = default/secret/default/secret/default/sec\n\n"
        "[profile work]\naws_access_key_id = AKIAWORKPROFILE00000\n"
        "aws_secret_access_key = work/secret/work/secret/work/secret/wo\n\n"
        "[profile empty]\nregion = eu-west-1\n",
        encoding="utf-8",
    )
    return {"AWS_CONFIG_FILE": str(config), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}


def test_bedrock_signs_with_the_named_profile_only(indexed: Indexed, tmp_path: Path) -> None:
    """Ambient AWS_* variables, a bearer token and the default profile are all set: the request
    must still be signed with the profile the settings name."""
    with BedrockFake() as fake:
        fake.queue(Answer(ANSWER))
        toml = f'[agent]\nbackend = "bedrock"\nmodel = "{CLAUDE}"\nprofile = "work"\n'
        toml += f'region = "eu-central-1"\nbase_url = "{fake.base_url}"\ntranslate = false\n'
        env = agent_env(tmp_path, toml, **AMBIENT, **_aws_files(tmp_path))
        result = ask(indexed, env, "why does WAL mode help?")
        authorization = fake.last("/converse").header("authorization") or ""
    assert result.returncode == 0, result.stderr
    assert result.stdout == "".join(ANSWER) + "\n"
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIAWORKPROFILE00000/")
    assert "/eu-central-1/bedrock/aws4_request" in authorization


def test_bedrock_refuses_a_profile_without_credentials_of_its_own(
    indexed: Indexed, tmp_path: Path
) -> None:
    toml = f'[agent]\nbackend = "bedrock"\nmodel = "{CLAUDE}"\nprofile = "empty"\n'
    env = agent_env(tmp_path, toml, **AMBIENT, **_aws_files(tmp_path))
    result = ask(indexed, env, "anything?")
    assert result.returncode == 2
    assert "AWS profile 'empty' has no credentials of its own" in result.stderr
    missing = agent_env(tmp_path / "b", toml.replace('"empty"', '"nope"'), **_aws_files(tmp_path))
    assert "no AWS profile named 'nope'" in ask(indexed, missing, "anything?").stderr


def test_bedrock_api_key_is_the_one_named(indexed: Indexed, tmp_path: Path) -> None:
    with BedrockFake(tls=True) as fake:
        assert fake.ca_file is not None
        fake.queue(Answer(ANSWER))
        toml = (
            f'[agent]\nbackend = "bedrock"\nmodel = "{CLAUDE}"\napi_key_secret = "bedrock-mine"\n'
        )
        toml += f'base_url = "{fake.base_url}"\ntranslate = false\n'
        env = agent_env(
            tmp_path,
            toml,
            **AMBIENT,
            **_aws_files(tmp_path),
            AWS_CA_BUNDLE=fake.ca_file,
            BEDROCK_MINE="ABSK-the-named-key",
        )
        result = ask(indexed, env, "why does WAL mode help?")
        authorization = fake.last("/converse").header("authorization")
    assert result.returncode == 0, result.stderr
    assert authorization == "Bearer ABSK-the-named-key"


def _shown(indexed: Indexed, env: dict[str, str], conversation_id: str) -> dict[str, object]:
    from tests.cli_in_process import run_vaultctx

    argv = ["conversations", "show", conversation_id, "--json", "--vault", str(indexed.vault)]
    shown = run_vaultctx(argv, env=env)
    assert shown.returncode == 0, shown.stderr
    result: dict[str, object] = json.loads(shown.stdout)
    return result


def test_a_made_up_tool_called_twice_does_not_end_the_answer(
    indexed: Indexed, tmp_path: Path
) -> None:
    unknown = "Tool execution error: Unknown tool: web_search"
    with OpenAIFake() as fake:
        fake.queue(
            Answer(tool_calls=[ToolCall("web_search", {"query": "WAL"})]),
            Answer(tool_calls=[ToolCall("web_search", {"query": "WAL mode"})]),
            Answer(["No web search here; ", f"your notes say {REAL}."]),
        )
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        result = ask(indexed, env, "why does WAL mode help?", "--json")
        sent = [r.json for r in fake.requests_to("/chat/completions")]
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        saved = _shown(indexed, env, out["conversation_id"])
    assert out["error"] is None
    assert out["answer"] == f"No web search here; your notes say {REAL}."
    assert [c["result_summary"] for c in out["tool_calls"]] == [unknown, unknown]
    tool_messages = [m for m in sent[2]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [unknown, unknown]
    assert "base_url" not in result.stderr
    messages = saved["messages"]
    assert isinstance(messages, list) and messages[-1]["text"] == out["answer"]


def test_a_failed_turn_is_saved_with_its_error(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        fake.queue(OpenAIFake.server_error(503))
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        result = ask(indexed, env, "why does WAL mode help?", "--json")
    assert result.returncode == 2
    out = json.loads(result.stdout)
    assert out["conversation_id"] is not None
    saved = _shown(indexed, env, out["conversation_id"])
    messages = saved["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["user", "assistant", "system"]
    assert messages[0]["text"] == "why does WAL mode help?"
    assert messages[1]["partial"] is True and messages[1]["text"] == ""
    assert messages[2]["text"] == f"The answer failed: {out['error']}"
    assert "failed to answer (HTTP 503)" in messages[2]["text"]
