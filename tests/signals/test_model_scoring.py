"""Reading the model's reply: strict JSON found defensively, anything unusable reported as
garbled (never zeros), and what is sent (scrubbed, cut, marked as data)."""

from __future__ import annotations

import asyncio

import pytest

from vaultctx.signals.inbox import Signal
from vaultctx.signals.model_scoring import (
    PROMPT_CHARS,
    GarbledReply,
    model_scores,
    parse_scores,
    scoring_prompt,
)

GOOD = '{"relevance": 0.9, "actionability": 0.5, "depth": 0.4, "authority": 1, "domain": "web"}'


def test_a_clean_reply() -> None:
    scores = parse_scores(GOOD, "openai gpt")
    assert (scores.relevance, scores.actionability, scores.depth, scores.authority) == (
        0.9,
        0.5,
        0.4,
        1.0,
    )
    assert scores.domain == "web"
    assert scores.scored_by == "openai gpt"


def test_json_inside_a_fence_and_chatter_is_found() -> None:
    reply = "Sure! Here you go:\n```json\n" + GOOD + "\n```\nHope that helps {not json}."
    assert parse_scores(reply, "m").domain == "web"


def test_a_brace_in_chatter_before_the_object_is_skipped() -> None:
    assert parse_scores("Scores {as asked}: " + GOOD, "m").relevance == 0.9


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("I cannot score this.", "no JSON object"),
        ("[0.1, 0.2]", "no JSON object"),
        ('{"relevance": "high", "actionability": 0.5, "depth": 0.4, "authority": 1, '
         '"domain": "web"}', "relevance is \"high\""),
        (GOOD.replace("0.9", "7"), "relevance is 7, outside 0–1"),
        (GOOD.replace("0.5", "-0.1"), "actionability is -0.1"),
        (GOOD.replace("0.4", "true"), "depth is true"),
        (GOOD.replace('"authority": 1, ', ""), "authority is missing"),
        (GOOD.replace('"web"', '"cooking"'), 'domain is "cooking"'),
        (GOOD.replace('"web"', "null"), "domain is missing"),
        ('{"relevance": NaN, "actionability": 0.5, "depth": 0.4, "authority": 1, '
         '"domain": "web"}', "relevance is nan"),
        ("{" * 5000, "no JSON object"),
        ('{"a":' * 3000 + "1" + "}" * 3000, "no JSON object"),  # too deep for the decoder
        ('{"' + "{" * 20000, "no JSON object"),  # at most 50 starts are tried
    ],
)  # fmt: skip
def test_garbled_replies_are_named(reply: str, problem: str) -> None:
    with pytest.raises(GarbledReply) as caught:
        parse_scores(reply, "m")
    assert problem in str(caught.value)


def test_the_prompt_is_scrubbed_cut_and_fenced() -> None:
    token = "ghp_" + "Xq7vR2mK9pL4wT8nB3cF6hJ1dS5gY0aZeU2i"
    body = f"export GITHUB_TOKEN={token}\n" + "x" * (PROMPT_CHARS * 2)
    prompt = scoring_prompt(
        Signal("00-inbox/s.md", "Title", body, {}, [], "https://e.com"), ["Billing service"]
    )
    assert token not in prompt
    assert "- Billing service" in prompt
    assert len(prompt) < PROMPT_CHARS + 500
    assert "<<<" in prompt and ">>>" in prompt


class Scripted:
    name = "scripted model"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    async def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        self.calls += 1
        assert "JSON" in system and max_tokens <= 500
        return self.reply


def test_model_scores_returns_the_problem_instead_of_raising() -> None:
    note = Signal("00-inbox/s.md", "T", "text", {}, [], None)
    scores, problem = asyncio.run(model_scores(Scripted("no idea"), note, []))
    assert scores is None and problem == "no JSON object in the reply"
    scores, problem = asyncio.run(model_scores(Scripted(GOOD), note, []))
    assert scores is not None and problem is None and scores.scored_by == "scripted model"
