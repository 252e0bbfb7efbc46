"""Graph RAG in chat, as the seed assistant does it: the passages sent with a question are the
hybrid search's, in its order, then passages of notes linked to them (agent/retrieval.py)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from tests.agent.scripted_model import FINAL, ScriptedModel
from tests.agent.session_support import scripted_session
from tests.agent.tool_support import vault_copy
from vaultctx.agent.retrieval import LINKED_PASSAGES, retrieve, wikilink
from vaultctx.agent.session import ChatSession
from vaultctx.api import Vault

QUESTION = "project alpha goals"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return vault_copy(tmp_path_factory.mktemp("chat-graph"), indexed=True)


def test_the_question_goes_with_linked_passages_after_the_ranked_ones(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ChatSession, "_check_citations", lambda self, turn: None)
    script = ScriptedModel([[FINAL]])
    session = scripted_session(vault, script)
    budget = 100_000  # every passage fits: the order is what is checked
    session.settings = replace(session.settings, context_tokens=budget)
    turn = asyncio.run(session.ask(QUESTION, lambda text: None))
    assert turn.retrieved is not None
    sent = [passage.citation for passage in turn.retrieved.passages]
    plain = [p.citation for p in retrieve(vault, [QUESTION], max_tokens=budget).passages]
    assert sent[: len(plain)] == plain  # the measured ranking, untouched
    linked = sent[len(plain) :]
    assert 1 <= len(linked) <= LINKED_PASSAGES
    assert not set(linked) & set(plain)
    prompt = str(script.requests[0][-1])
    assert all(wikilink(citation) in prompt for citation in linked)


def test_linked_passages_are_the_first_dropped_when_the_budget_is_short(vault: Vault) -> None:
    plain = retrieve(vault, [QUESTION], max_tokens=100_000).passages
    cited = [p.citation for p in plain]
    for budget in (300, 1500):
        short = retrieve(vault, [QUESTION], max_tokens=budget, graph=True).passages
        ranked = [p.citation for p in short if p.citation in cited]
        assert ranked == cited[: len(ranked)]
        # a linked passage only once every ranked one is in
        assert len(short) == len(ranked) or len(ranked) == len(cited)


def test_without_links_the_passages_are_the_hybrid_ones(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    for name in ("Alpha", "Beta", "Gamma"):
        (root / f"{name}.md").write_text(
            f"# {name}\n\nProject alpha goals, written down in {name}.\n", encoding="utf-8"
        )
    vault = Vault(root, db=tmp_path / "index.db")
    vault.index(fast=True)
    plain = retrieve(vault, [QUESTION], max_tokens=10_000)
    graph = retrieve(vault, [QUESTION], max_tokens=10_000, graph=True)
    assert [p.citation for p in graph.passages] == [p.citation for p in plain.passages]
