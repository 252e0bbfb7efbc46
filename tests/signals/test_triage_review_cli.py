"""``vaultctx review triage`` as a real process: the numbered list (nothing written), then
``--accept`` applying that saved list as one ledger record, and the model's scores (OpenAI wire
fake) kept from the listing, not asked for again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.signals.support import files, signal_vault
from vaultctx.api import Vault

STRIPE = "00-inbox/Stripe webhooks.md"


@pytest.fixture
def indexed(tmp_path: Path) -> Indexed:
    vault = signal_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    return Indexed(vault, db)


def test_list_then_accept_one_offline_then_undo(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    before = files(indexed.vault)
    listed = vaultctx(indexed, env, "review", "triage", "--json")
    assert listed.returncode == 0, listed.stderr
    proposals = json.loads(listed.stdout)["proposals"]
    assert [p["path"] for p in proposals] == ["00-inbox/Banana bread.md", STRIPE]
    assert proposals[1]["scored_by"] == "heuristic"
    assert files(indexed.vault) == before
    applied = vaultctx(indexed, env, "review", "triage", "--accept", "2")
    assert applied.returncode == 0, applied.stderr
    assert "applying the list" in applied.stdout + applied.stderr
    after = files(indexed.vault)
    assert STRIPE not in after and "05-signals/programming/Stripe webhooks.md" in after
    assert after["00-inbox/Banana bread.md"] == before["00-inbox/Banana bread.md"]
    undone = vaultctx(indexed, env, "undo")  # one record holds the edit and the move
    assert undone.returncode == 0 and "triage 1 signals (1 filed)" in undone.stdout, undone
    assert files(indexed.vault) == before


def test_the_model_scores_the_list_and_accept_does_not_ask_again(
    indexed: Indexed, tmp_path: Path
) -> None:
    reply = (
        '{"relevance": 0.9, "actionability": 0.9, "depth": 0.9, "authority": 0.9, "domain": "web"}'
    )
    with OpenAIFake() as fake:
        fake.queue(Answer(reply), Answer(reply))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        listed = vaultctx(indexed, env, "review", "triage", "--json")
        asked = len(fake.requests_to("/chat/completions"))
        applied = vaultctx(indexed, env, "review", "triage", "--accept", "all", "--json")
        assert len(fake.requests_to("/chat/completions")) == asked == 2
    assert listed.returncode == 0 and applied.returncode == 0, listed.stderr + applied.stderr
    result = json.loads(applied.stdout)["result"]
    assert result["applied"] == [1, 2]
    assert sorted(result["paths"]) == [
        "05-signals/web/Banana bread.md",
        "05-signals/web/Stripe webhooks.md",
    ]
