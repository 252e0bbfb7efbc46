"""review contradictions: proposals from reconcile_topic, applied per note (two items for one
note both land), learned_at set with a minimal front matter edit, missing notes skipped and never
created, one ledger record that one undo reverts."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.think_support import fake_model, indexed_vault, run
from vaultctx.api import Vault
from vaultctx.brain.markers import end_marker, neutralise, read_block, start_marker
from vaultctx.brain.passages import one_line
from vaultctx.brain.reconcile import Contradiction
from vaultctx.review.contradictions import (
    BLOCK,
    ContradictionsFlow,
    UnreadableReconcileError,
    _applier,
)

TODAY = dt.date(2026, 12, 1)
PRICE = (
    "---\ntitle: Widget price\n# the user's comment\ntags: [pricing]\nlearned_at: 2020-01-01\n"
    "---\n# Widget price\n\nThe widget costs 10 euros.\n"
)
SALES = "# Sales call\n\nThe customer was told the widget costs 12 euros.\r\n"
CATALOG = "---\nstatus: draft\n---\n# Catalog\n\nWidget: 11 euros, widget pricing reviewed.\n"
NOTES = {"Price.md": PRICE, "calls/Sales call.md": SALES, "Catalog.md": CATALOG}


def items(*entries: tuple[list[str], str]) -> str:
    return json.dumps(
        [
            {"notePaths": paths, "statements": ["costs 10", "costs 12"], "suggestion": text}
            for paths, text in entries
        ]
    )


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return indexed_vault(tmp_path / "v", NOTES, tmp_path / "v.db")


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def flow(fake: OpenAIFake) -> ContradictionsFlow:
    return ContradictionsFlow("widget price", fake_model(fake), today=TODAY)


def test_two_items_for_one_note_both_land_and_one_undo_reverts_everything(
    vault: Vault, fake: OpenAIFake
) -> None:
    fake.queue(
        Answer(
            items(
                (["Price.md", "calls/Sales call.md"], "Settle on one price and date it."),
                (["Price.md"], "Say which currency the price is in."),
                (["Catalog.md"], "Not accepted."),
            )
        )
    )
    review = flow(fake)
    proposals = run(review.propose(vault))
    assert [p.number for p in proposals] == [1, 2, 3]
    assert proposals[0].title.startswith("Price.md, calls/Sales call.md: Settle on one price")
    before = {path: (vault.path / path).read_bytes() for path in NOTES}
    result = review.apply(vault, proposals[:2])
    assert result.applied == [1, 2]
    assert sorted(result.paths) == ["Price.md", "calls/Sales call.md"]
    assert result.skipped == []
    price = (vault.path / "Price.md").read_text(encoding="utf-8")
    block = read_block(price, "reconcile")
    assert block is not None
    assert "- 2026-12-01: Settle on one price and date it." in block
    assert "- 2026-12-01: Say which currency the price is in." in block
    assert '  - conflicting: "costs 12"' in block
    # The front matter: learned_at changed in place, the rest (comment, order) as it was.
    assert price.startswith(
        "---\ntitle: Widget price\n# the user's comment\ntags: [pricing]\n"
        "learned_at: 2026-12-01\n---\n# Widget price\n\nThe widget costs 10 euros.\n"
    )
    sales = (vault.path / "calls/Sales call.md").read_bytes().decode("utf-8")
    assert sales.startswith("---\r\nlearned_at: 2026-12-01\r\n---\r\n" + SALES)
    assert (vault.path / "Catalog.md").read_bytes() == before["Catalog.md"]
    (record,) = vault.ledger(limit=1)
    assert record.label == "review contradictions: widget price"
    assert record.id == result.record_id
    vault.undo()
    assert {path: (vault.path / path).read_bytes() for path in NOTES} == before


def test_applying_again_adds_no_duplicate(vault: Vault, fake: OpenAIFake) -> None:
    reply = items((["Price.md"], "Say which currency the price is in."))
    fake.queue(Answer(reply), Answer(reply))
    review = flow(fake)
    first = review.apply(vault, run(review.propose(vault)))
    once = (vault.path / "Price.md").read_bytes()
    second = review.apply(vault, run(review.propose(vault)))
    assert first.record_id is not None
    assert second.record_id is None and second.applied == []
    assert (vault.path / "Price.md").read_bytes() == once
    assert once.decode().count("Say which currency") == 1


def test_a_note_gone_since_the_proposal_is_skipped_and_not_created(
    vault: Vault, fake: OpenAIFake
) -> None:
    fake.queue(Answer(items((["Price.md", "Catalog.md"], "Align the two prices."))))
    review = flow(fake)
    proposals = run(review.propose(vault))
    (vault.path / "Catalog.md").unlink()
    result = review.apply(vault, proposals)
    assert result.skipped == ["1: Catalog.md no longer exists (not created)"]
    assert result.paths == ["Price.md"]
    assert not (vault.path / "Catalog.md").exists()


def test_a_note_with_an_unclosed_marker_is_skipped_untouched(
    vault: Vault, fake: OpenAIFake
) -> None:
    broken = CATALOG + "<!-- @generated:reconcile -->\nhalf a block the user pasted\n"
    (vault.path / "Catalog.md").write_text(broken, encoding="utf-8")
    fake.queue(Answer(items((["Price.md", "Catalog.md"], "Align the two prices."))))
    review = flow(fake)
    result = review.apply(vault, run(review.propose(vault)))
    assert (vault.path / "Catalog.md").read_text(encoding="utf-8") == broken
    assert len(result.skipped) == 1 and "without its <!-- @end:reconcile -->" in result.skipped[0]
    assert result.paths == ["Price.md"]


def test_an_empty_list_says_why_in_the_flows_notices(vault: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer("[]"), Answer(items((["Price.md"], "Fix."), (["nope.md"], "Gone."))))
    review = flow(fake)
    assert run(review.propose(vault)) == []
    assert review.notices == ["No contradictions found. No notes were changed."]
    assert len(run(review.propose(vault))) == 1
    assert review.notices == [
        "1 more item(s) of the model's answer were left out: not citing a note of the search"
    ]


def test_a_garbled_answer_proposes_nothing_and_says_why(vault: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer('[{"notePaths": ["Price.md"], "statements": ["a"'))
    with pytest.raises(UnreadableReconcileError, match="Could not interpret"):
        run(flow(fake).propose(vault))


TEXT = st.characters(blacklist_categories=["Cs"])
BOM = "\ufeff"
suggestions = (
    st.text(TEXT, min_size=1, max_size=60).map(lambda text: one_line(text, 2000)).filter(bool)
)
bodies = st.text(TEXT, max_size=120).filter(
    lambda text: "<!--" not in text and not text.lstrip(BOM).startswith("---")
)


@given(body=bodies, texts=st.lists(suggestions, min_size=1, max_size=3))
@example(body=BOM, texts=["0"])  # found by hypothesis: the front matter goes after a BOM
@example(body=BOM + "Kept.\n", texts=["0"])
def test_applying_keeps_the_users_text_and_one_closed_block_whatever_the_model_wrote(
    body: str, texts: list[str]
) -> None:
    hostile = [f"{t} {end_marker(BLOCK)} {start_marker(BLOCK)}" for t in texts]
    entries = [Contradiction(["n.md"], [t], h) for t, h in zip(texts, hostile, strict=True)]
    edited = _applier("n.md", entries, "2026-12-01")(body)
    newline = "\r\n" if "\r\n" in body else "\n"
    front = f"---{newline}learned_at: 2026-12-01{newline}---{newline}"
    # A byte-order mark stays the file's first character, or the front matter would not be read.
    bom = BOM if body.startswith(BOM) else ""
    assert edited.startswith(bom + front + body.removeprefix(bom))
    assert edited.count(start_marker(BLOCK)) == edited.count(end_marker(BLOCK)) == 1
    block = read_block(edited, BLOCK) or ""
    assert all(neutralise(h) in block for h in hostile)
    assert edited.endswith(end_marker(BLOCK) + "\n")
    assert _applier("n.md", entries, "2026-12-01")(edited) == edited  # idempotent
