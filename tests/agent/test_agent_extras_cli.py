"""The rest of what `ask` promises, end to end: model lists, attachments checked before anything is
sent, questions translated into the notes' language, unreadable streams reported in one line."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
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
)
from tests.agent.fakes import Answer, BedrockFake, Garbage, GeminiFake, OllamaFake, OpenAIFake
from tests.cli_in_process import run_vaultctx
from tests.conftest import REPO, make_vault
from vaultctx.api import Vault

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def models(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``vaultctx models ARGS`` in the test process (tests/cli_in_process.py)."""
    return run_vaultctx(["models", *args], env=env, cwd=REPO)


def test_models_lists_chat_and_embedding_models_per_backend(tmp_path: Path) -> None:
    with OpenAIFake(models=("gpt-5.2", "text-embedding-3-small")) as openai, OllamaFake() as ollama:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(openai), OPENAI_TEST=KEY)
        listed = models(env, "--json")
        local = models(env, "--backend", "ollama", "--base-url", ollama.base_url)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [
        {"name": "gpt-5.2", "kind": "chat"},
        {"name": "text-embedding-3-small", "kind": "embedding"},
    ]
    assert local.returncode == 0, local.stderr
    assert "embedding  nomic-embed-text" in local.stdout
    assert "chat       qwen3:8b" in local.stdout


def test_models_on_gemini_and_bedrock(tmp_path: Path) -> None:
    with GeminiFake() as gemini, BedrockFake() as bedrock:
        aws = tmp_path / "aws"
        aws.write_text(
            "[profile work]\naws_access_key_id = AKIAWORKPROFILE00000\n"
            "aws_secret_access_key = work/secret/work/secret/work/secret/wo\n"
        )
        env = agent_env(
            tmp_path,
            "[agent]\n" + gemini_toml(gemini),
            GEMINI_TEST=KEY,
            AWS_CONFIG_FILE=str(aws),
            AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "x"),
        )
        google = models(env, "--json")
        env_b = agent_env(
            tmp_path / "b",
            f'[agent]\nbackend = "bedrock"\nprofile = "work"\nbase_url = "{bedrock.base_url}"\n',
            AWS_CONFIG_FILE=str(aws),
            AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "x"),
        )
        amazon = models(env_b, "--json")
    assert google.returncode == 0, google.stderr
    assert {"name": "gemini-embedding-001", "kind": "embedding"} in json.loads(google.stdout)
    assert {"name": "gemini-2.5-pro", "kind": "chat"} in json.loads(google.stdout)
    assert amazon.returncode == 0, amazon.stderr
    found = json.loads(amazon.stdout)
    assert {"name": "amazon.titan-embed-text-v2:0", "kind": "embedding"} in found
    assert {"name": "anthropic.claude-sonnet-4-5-20250929-v1:0", "kind": "chat"} in found


def test_models_with_a_refused_key_is_one_line(tmp_path: Path) -> None:
    with OpenAIFake(require_key="the-right-key") as fake:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        refused = models(env)
    assert refused.returncode == 2
    assert (
        "refused the key (HTTP 401); store the right key with `vaultctx secret set openai-test`"
        in refused.stderr
    )
    assert len(refused.stderr.strip().splitlines()) == 1


def test_an_image_reaches_openai_and_a_pdf_is_refused_before_sending(
    indexed: Indexed, tmp_path: Path
) -> None:
    image = tmp_path / "chart.png"
    image.write_bytes(PNG)
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    with OpenAIFake() as fake:
        fake.queue(Answer("A one-pixel chart."))
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        sent = ask(indexed, env, "what is in the chart?", "--attach", str(image))
        refused = ask(indexed, env, "summarise", "--attach", str(pdf))
        requests = [r.json for r in fake.requests_to("/chat/completions")]
    assert sent.returncode == 0, sent.stderr
    content = requests[0]["messages"][-1]["content"]
    assert content[0]["type"] == "image_url"
    assert content[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert refused.returncode == 2
    assert (
        "report.pdf" in refused.stderr
        and "bedrock" in refused.stderr
        and "gemini" in refused.stderr
    )
    assert len(requests) == 1  # nothing was sent for the refused question


def test_a_text_attachment_is_cut_at_8000_characters(indexed: Indexed, tmp_path: Path) -> None:
    notes = tmp_path / "long.txt"
    notes.write_text("x" * 7_990 + "TAIL-MARKER" + "y" * 100, encoding="utf-8")
    with OllamaFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + ollama_toml(fake) + "translate = false\n")
        result = ask(indexed, env, "what is this?", "--attach", str(notes))
        body = json.dumps(fake.last("/chat/completions").json)
    assert result.returncode == 0, result.stderr
    assert "x" * 7_990 + "TAIL-MAR" in body and "TAIL-MARKER" not in body
    assert "[Truncated: only the first 8,000 of 8,101 characters of long.txt were sent]" in body


def test_the_current_note_must_be_in_the_vault(indexed: Indexed, tmp_path: Path) -> None:
    with OllamaFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + ollama_toml(fake) + "translate = false\n")
        inside = ask(indexed, env, "summarise", "--note", "30-resources/databases/SQLite tuning.md")
        outside = ask(indexed, env, "summarise", "--note", "../../../etc/passwd")
        bodies = [json.dumps(r.json) for r in fake.requests_to("/chat/completions")]
    assert inside.returncode == 0, inside.stderr
    assert "PRAGMA journal_mode = WAL" in bodies[0]
    assert outside.returncode == 2
    assert len(bodies) == 1


def test_an_unreadable_stream_is_one_line(indexed: Indexed, tmp_path: Path) -> None:
    with GeminiFake() as fake:
        fake.queue(Answer(["Half an ", "answer"], fault=Garbage(after=1)))
        env = agent_env(
            tmp_path, "[agent]\n" + gemini_toml(fake) + "translate = false\n", GEMINI_TEST=KEY
        )
        result = ask(indexed, env, "anything?")
    assert result.returncode == 2
    assert result.stderr.count("error:") == 1
    assert "Traceback" not in result.stderr


KOREAN_NOTES = {
    "서버/데이터베이스 잠금.md": "# 데이터베이스 잠금\n\n"
    "쓰기 작업이 길어지면 데이터베이스가 잠깁니다. "
    "WAL 모드를 켜면 읽기와 쓰기가 서로를 막지 않습니다.\n",
    "서버/백업.md": "# 백업\n\n매일 밤 스냅샷을 찍고 일주일 동안 보관합니다.\n",
    "요리/김치찌개.md": "# 김치찌개\n\n묵은지와 돼지고기를 넣고 끓입니다.\n",
}


@pytest.fixture(scope="module")
def korean(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = tmp_path_factory.mktemp("korean")
    vault = make_vault(root / "vault", KOREAN_NOTES)
    with Vault(vault, db=root / "index.db") as handle:
        handle.index(fast=True)
    return Indexed(vault, root / "index.db")


def test_an_english_question_over_korean_notes_is_also_asked_in_korean(
    korean: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(
            Answer("데이터베이스 잠금"),
            Answer("Turn on WAL [[서버/데이터베이스 잠금#데이터베이스 잠금]]."),
        )
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        result = ask(korean, env, "why does the database lock?", "--json")
        requests = [r.json for r in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["queries"] == ["why does the database lock?", "데이터베이스 잠금"]
    assert "Korean" in json.dumps(requests[0])  # the translation request
    assert out["sources"][0] == "서버/데이터베이스 잠금.md"
    assert "WAL 모드" in json.dumps(requests[1], ensure_ascii=False)
    assert out["unresolved"] == []


def test_search_translate_finds_korean_notes_for_an_english_query(
    korean: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer("백업"))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        plain = subprocess.run(
            [
                sys.executable,
                "-m",
                "vaultctx",
                "search",
                "backup",
                "--json",
                "--vault",
                str(korean.vault),
                "--db",
                str(korean.db),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        translated = subprocess.run(
            [
                sys.executable,
                "-m",
                "vaultctx",
                "search",
                "backup",
                "--translate",
                "--json",
                "--vault",
                str(korean.vault),
                "--db",
                str(korean.db),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    assert translated.returncode == 0, translated.stderr
    assert "서버/백업.md" not in [r["file_path"] for r in json.loads(plain.stdout)["results"][:1]]
    found = json.loads(translated.stdout)
    assert found["results"][0]["file_path"] == "서버/백업.md"
    assert any("Korean translation: 백업" in notice for notice in found["notices"])
