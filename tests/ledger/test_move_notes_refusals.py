"""``ChangeBatch.move_notes`` (P.A.R.A's apply): which moves it refuses and the reason given for
each, under the source as the caller spelled it; the moves it makes; one record, one undo."""

from __future__ import annotations

from pathlib import Path

from tests.ledger.conftest import tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext

CLI = ChangeContext("para test", source="cli")


def test_each_refusal_names_its_reason_under_the_source_as_given(
    vault: Vault, vault_dir: Path
) -> None:
    (vault_dir / "Topic.md").mkdir()
    before = tree(vault_dir)
    moves = {
        "gone.md": "A/gone.md",
        "Topic.md": "A/Topic.md",  # a folder
        "20-areas": "A/areas.md",  # a folder, and not a note's name
        "./Inbox.md": "A/Inbox.md",
        "Inbox.md/": "B/Inbox.md",  # the same note again, spelled otherwise
        "10-projects//Plan.md": "A/inbox.md",  # a name only the case tells apart
        "10-projects/Budget.md": "20-areas/Review.md",  # taken on disk
        ".obsidian/app.md": "A/app.md",  # never moved
    }
    with vault.change_batch(CLI, "para") as batch:
        rewritten, refused = batch.move_notes(moves)
    assert refused == {
        "gone.md": "gone.md is not a note any more",
        "Topic.md": "Topic.md is not a note any more",
        "20-areas": (
            "path refused: 20-areas is not a note type vaultctx writes (.md, .txt, .csv, …); "
            "nothing was changed"
        ),
        "Inbox.md/": "Inbox.md is moved once already",
        "10-projects//Plan.md": "A file already exists at the destination: A/inbox.md",
        "10-projects/Budget.md": "A file already exists at the destination: 20-areas/Review.md",
        ".obsidian/app.md": refused[".obsidian/app.md"],
    }
    assert refused[".obsidian/app.md"].startswith("path refused: .obsidian/")
    assert rewritten == []
    moved = tree(vault_dir)
    assert moved["A/Inbox.md"] == before["Inbox.md"] and "Inbox.md" not in moved
    assert "B" not in moved and moved["10-projects/Plan.md"] == before["10-projects/Plan.md"]
    [record] = vault.ledger()
    assert sorted(record.paths) == ["A", "Inbox.md"]
    assert batch.change is not None and sorted(batch.change.paths) == ["A/Inbox.md", "Inbox.md"]
    vault.undo()
    assert tree(vault_dir) == before


def test_a_source_refused_first_does_not_take_its_destination(vault: Vault) -> None:
    moves = {"gone.md": "A/x.md", "Inbox.md": "A/x.md"}
    with vault.change_batch(CLI, "para") as batch:
        rewritten, refused = batch.move_notes(moves)
    assert refused == {"gone.md": "gone.md is not a note any more"}
    assert (vault.path / "A/x.md").is_file() and rewritten == []


def test_links_follow_every_move_and_the_moved_notes_are_listed_at_their_new_place(
    vault: Vault, vault_dir: Path
) -> None:
    before = tree(vault_dir)
    moves = {"10-projects/Plan.md": "P/Plan.md", "10-projects/Budget.md": "P/Budget.md"}
    with vault.change_batch(CLI, "para") as batch:
        rewritten, refused = batch.move_notes(moves)
    assert refused == {}
    assert rewritten == ["20-areas/Review.md"]  # Budget moved too: not listed as rewritten
    budget = (vault_dir / "P/Budget.md").read_text(encoding="utf-8")
    assert "[[P/Plan#Goals|the goals]]" in budget
    review = (vault_dir / "20-areas/Review.md").read_text(encoding="utf-8")
    assert "](../P/Plan.md)" in review
    assert batch.change is not None
    assert sorted(batch.change.paths) == [
        "10-projects/Budget.md",
        "10-projects/Plan.md",
        "20-areas/Review.md",
        "P/Budget.md",
        "P/Plan.md",
    ]
    [record] = vault.ledger()
    assert sorted(record.paths) == [
        "10-projects/Budget.md",
        "10-projects/Plan.md",
        "20-areas/Review.md",
        "P",
    ]
    vault.undo()
    assert tree(vault_dir) == before


def test_nothing_valid_is_no_record_and_every_reason(vault: Vault) -> None:
    before = tree(vault.path)
    with vault.change_batch(CLI, "para") as batch:
        rewritten, refused = batch.move_notes({"gone.md": "A/gone.md", "Inbox.md": "Inbox.md"})
    assert rewritten == []
    assert refused == {
        "gone.md": "gone.md is not a note any more",
        "Inbox.md": "A file already exists at the destination: Inbox.md",
    }
    assert batch.change is not None and batch.change.record_id is None
    assert tree(vault.path) == before and vault.ledger() == []
