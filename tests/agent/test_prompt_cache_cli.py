"""The instructions' stable prefix and the date block through ``vaultctx ask`` on Bedrock's wire:
a cachePoint between the two for the models that cache, and none for the rest (the fake refuses
a cachePoint a model does not take, as Bedrock does)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest

from tests.agent.cli_support import Indexed, agent_env, ask
from tests.agent.fakes import Answer, BedrockFake
from tests.agent.fakes.bedrock_fake import cache_point_problem
from vaultctx.agent.llm_backends.bedrock import BACKEND, CACHE_MIN_PREFIX_CHARS
from vaultctx.agent.prompt import BASE_PROMPT, clock_block

CLAUDE_4 = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CLAUDE_3 = "anthropic.claude-3-5-sonnet-20240620-v1:0"


def _asked(indexed: Indexed, tmp_path: Path, model: str) -> dict[str, Any]:
    config = tmp_path / "aws-config"
    config.write_text(
        "[profile work]\naws_access_key_id = AKIAWORKPROFILE00000\n"
        "aws_secret_access_key = work/secret/work/secret/work/secret/wo\n",
        encoding="utf-8",
    )
    aws = {"AWS_CONFIG_FILE": str(config), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no")}
    with BedrockFake() as fake:
        fake.queue(Answer(["WAL helps."]))
        toml = f'[agent]\nbackend = "bedrock"\nmodel = "{model}"\nprofile = "work"\n'
        toml += f'base_url = "{fake.base_url}"\ntranslate = false\n'
        result = ask(indexed, agent_env(tmp_path, toml, **aws), "why WAL?")
        body = fake.last("/converse").json
    assert result.returncode == 0, result.stderr
    assert isinstance(body, dict)
    return body


def test_claude_4_gets_a_cache_point_between_the_prefix_and_the_date(
    indexed: Indexed, tmp_path: Path
) -> None:
    system = _asked(indexed, tmp_path, CLAUDE_4)["system"]

    assert [list(block) for block in system] == [["text"], ["cachePoint"], ["text"]]
    prefix, clock = system[0]["text"], system[2]["text"]
    assert prefix.startswith(BASE_PROMPT) and len(prefix) >= CACHE_MIN_PREFIX_CHARS
    assert '<skill name="obsidian-markdown">' in prefix  # the skills are in the cached part
    assert "Current local date" not in prefix
    today = dt.datetime.now().astimezone()
    assert re.fullmatch(
        rf"Current local date and time: {today:%Y-%m-%d} \({today:%A}\), \d\d:\d\d, time zone "
        r".+ \(UTC[+-]\d\d:\d\d\)\.",
        clock,
    ), clock


def test_an_older_claude_gets_no_cache_point(indexed: Indexed, tmp_path: Path) -> None:
    system = _asked(indexed, tmp_path, CLAUDE_3)["system"]

    assert not any("cachePoint" in block for block in system)
    assert "Current local date and time" in system[-1]["text"]


@pytest.mark.parametrize(
    ("model", "chars", "cached"),
    [
        (CLAUDE_4, CACHE_MIN_PREFIX_CHARS, True),
        (CLAUDE_4, CACHE_MIN_PREFIX_CHARS - 1, False),
        ("global.anthropic.claude-opus-4-6-v1", 5000, True),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", 5000, True),
        ("us.amazon.nova-pro-v1:0", 5000, True),
        ("amazon.nova-premier-v1:0", 5000, True),
        ("amazon.nova-micro-v1:0", 5000, False),
        (CLAUDE_3, 5000, False),
        ("openai.gpt-oss-120b-1:0", 5000, False),
    ],
)
def test_the_models_and_prefix_length_that_are_cached(model: str, chars: int, cached: bool) -> None:
    settings = BACKEND.prompt_cache_settings(model, chars)
    assert settings == ({"bedrock_cache_instructions": True} if cached else {})


def test_the_fake_refuses_a_cache_point_bedrock_would_refuse() -> None:
    point: dict[str, Any] = {"cachePoint": {"type": "default"}}
    body = {"system": [{"text": "x"}, point, {"text": "clock"}]}
    assert cache_point_problem(CLAUDE_4, body) is None
    assert "does not support prompt caching" in (cache_point_problem(CLAUDE_3, body) or "")
    assert "first system block" in (cache_point_problem(CLAUDE_4, {"system": [point]}) or "")


def test_the_date_block_names_weekday_time_and_zone() -> None:
    """A naive moment is local time: the block says so with the machine's own zone."""
    block = clock_block(dt.datetime(2026, 3, 9, 14, 5))
    assert block.startswith("Current local date and time: 2026-03-09 (Monday), 14:05, time zone ")
    assert re.search(r"\(UTC[+-]\d\d:\d\d\)\.$", block)
