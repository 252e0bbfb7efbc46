"""``TriageFlow``: triage as a review flow (the Review page's list) on a real vault and index.
Proposing writes nothing; accepting some writes only those, as one ledger record, with the
numbers ``vaultctx triage`` would write; a damaged saved list is skipped, never written."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from tests.signals.support import files, signal_vault
from tests.signals.test_triage import Scripted
from vaultctx.api import Vault
from vaultctx.signals.triage import run_triage
from vaultctx.signals.triage_flow import TriageFlow, web_address
from vaultctx.vault.note import split_front_matter

STRIPE, BREAD = "00-inbox/Stripe webhooks.md", "00-inbox/Banana bread.md"


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def indexed(root: Path) -> Vault:
    vault = Vault(signal_vault(root / "vault"), db=root / "index.db")
    vault.index(fast=True)
    return vault


def test_proposals_match_the_cli_plan_and_write_nothing(tmp_path: Path) -> None:
    vault = indexed(tmp_path / "a")
    before = files(vault.path)
    proposals = asyncio.run(TriageFlow().propose(vault))
    assert files(vault.path) == before and vault.ledger() == []
    by_path = {p.data["path"]: p for p in proposals}
    assert set(by_path) == {STRIPE, BREAD}
    other = indexed(tmp_path / "b")
    cli = {item.path: item for item in run_triage(other, dry_run=True).plan.items}
    for path, proposal in by_path.items():
        item = cli[path]
        assert proposal.number == item.number
        assert proposal.data["destination"] == item.destination
        assert proposal.data["domain"] == item.scores.domain
        assert f"composite {item.scores.composite:g}" in proposal.detail
    stripe = by_path[STRIPE]
    assert stripe.title == (
        "Handling Stripe invoice webhooks: file 00-inbox/Stripe webhooks.md -> "
        "05-signals/programming/Stripe webhooks.md"
    )
    assert stripe.data["link"] == "https://docs.stripe.com/billing/webhooks"
    assert "source:" not in stripe.detail  # shown as the link
    assert "keep 00-inbox/Banana bread.md in the inbox" in by_path[BREAD].title
    assert "link" not in by_path[BREAD].data  # no source, no link


def test_accepting_one_writes_it_alone_as_one_record_and_undo_reverts(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    before = files(vault.path)
    flow = TriageFlow()
    proposals = asyncio.run(flow.propose(vault))
    stripe = next(p for p in proposals if p.data["path"] == STRIPE)
    result = flow.apply(vault, [stripe])
    assert result.applied == [stripe.number] and result.skipped == []
    assert result.paths == ["05-signals/programming/Stripe webhooks.md"]
    assert [record.id for record in vault.ledger()] == [result.record_id]
    moved = vault.path / "05-signals/programming/Stripe webhooks.md"
    triage = split_front_matter(moved.read_text(encoding="utf-8"))[0]["triage"]
    assert triage["route"] == "05-signals/programming"  # type: ignore[index]
    assert (vault.path / BREAD).read_bytes() == before[BREAD]  # not ticked: left new
    again = asyncio.run(TriageFlow().propose(vault))
    assert [p.data["path"] for p in again] == [BREAD]
    vault.undo()
    assert files(vault.path) == before


def test_a_damaged_or_tampered_saved_item_is_skipped_not_written(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    before = files(vault.path)
    flow = TriageFlow()
    stripe = next(p for p in asyncio.run(flow.propose(vault)) if p.data["path"] == STRIPE)
    tampered = [
        {**stripe.data, "destination": "../outside/Stripe webhooks.md"},
        {**stripe.data, "destination": "01-projects/Billing service.md"},
        {**stripe.data, "path": "01-projects/Billing service.md"},
        {**stripe.data, "path": "00-inbox/../01-projects/x.md"},
        {**stripe.data, "domain": "../../etc"},
        {**stripe.data, "scores": {"relevance": 2.0}},
        {**stripe.data, "scores": "high"},
    ]
    for number, data in enumerate(tampered, start=1):
        bad = dataclasses.replace(stripe, number=number, data=data)
        result = flow.apply(vault, [bad])
        assert result.applied == [] and result.record_id is None
        assert result.skipped == [f"{number}: the saved list is damaged; propose again"]
    assert files(vault.path) == before and vault.ledger() == []


def test_applied_twice_the_second_is_skipped_with_its_reason(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    flow = TriageFlow()
    bread = next(p for p in asyncio.run(flow.propose(vault)) if p.data["path"] == BREAD)
    assert flow.apply(vault, [bread]).applied == [bread.number]
    second = flow.apply(vault, [bread])
    assert second.applied == [] and second.record_id is None
    assert second.skipped and second.skipped[0].startswith(f"{bread.number}: {BREAD}: ")


def test_the_model_scores_when_given(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    model = Scripted(
        "not json",  # Banana bread.md first: garbled, scored offline with a notice
        '{"relevance": 0.6, "actionability": 0.6, "depth": 0.6, "authority": 0.6, '
        '"domain": "security"}',
    )
    flow = TriageFlow(model)
    proposals = {p.data["path"]: p for p in asyncio.run(flow.propose(vault))}
    assert proposals[STRIPE].data["scored_by"] == "scripted gpt"
    assert proposals[STRIPE].data["destination"] == "05-signals/security/Stripe webhooks.md"
    assert proposals[BREAD].data["scored_by"] == "heuristic"
    assert any("garbled" in notice for notice in flow.notices)
    result = TriageFlow().apply(vault, [proposals[STRIPE]])  # the saved scores, no new call
    assert result.paths == ["05-signals/security/Stripe webhooks.md"]


@pytest.mark.parametrize(
    ("source", "link"),
    [
        ("https://example.com/a?b=c", "https://example.com/a?b=c"),
        ("http://example.com", "http://example.com"),
        ("javascript:alert(1)", None),
        ("JavaScript:alert(1)", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("https://exa mple.com", None),
        ("https://example.com/\nx", None),
        ("//example.com/x", None),
        ("file:///etc/passwd", None),
        (None, None),
    ],
)
def test_only_plain_web_addresses_become_links(source: str | None, link: str | None) -> None:
    assert web_address(source) == link
