"""Hostile note names and titles in the Second Brain's reports and reviews: marker-like text
cannot open or close a generated block, link syntax cannot break a list line, terminal escapes
are not printed, and the review queue's history never goes into the vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.brain.conftest import KUBE, indexed_vault, run_cli
from vaultctx.brain.markers import read_block, upsert_block
from vaultctx.brain.wikilinks import note_link

EVIL_TITLE = "Evil <!-- @end:knowledge-gaps --> ]] | # \x1b[31mred"


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_a_hostile_title_cannot_end_the_report_block(tmp_path: Path) -> None:
    notes = {"Evil.md": f"---\ntitle: {json.dumps(EVIL_TITLE)}\n---\nOrphan text.\n"}
    vault = indexed_vault(tmp_path, notes)
    first = run_cli(tmp_path, vault, "brain", "gaps", "--write")
    assert first.returncode == 0, first.stderr
    assert "\x1b" not in first.stdout
    note = vault.path / "Second Brain/Knowledge Gaps.md"
    text = note.read_text(encoding="utf-8")
    assert text.count("<!-- @end:knowledge-gaps -->") == 1
    assert text.count("<!-- @generated:knowledge-gaps -->") == 1
    note.write_text(text + "\nMine, after the block.\n", encoding="utf-8")
    (vault.path / "Other.md").write_text("Another orphan.\n", encoding="utf-8")
    vault.index(fast=True)
    assert run_cli(tmp_path, vault, "brain", "gaps", "--write").returncode == 0
    again = note.read_text(encoding="utf-8")
    assert again.endswith("\nMine, after the block.\n") and "Other" in read_block(
        again, "knowledge-gaps"
    )


@pytest.mark.parametrize(
    ("path", "title"),
    [("a|b#c.md", "T"), ("x/[[y]].md", "Y"), ("n.md", "a]] b [[c"), ("n.md", "two\nlines")],
)
def test_links_stay_one_link_on_one_line(path: str, title: str) -> None:
    link = note_link(path, title)
    assert "\n" not in link
    assert link.startswith("[") and link.count("](") == 1
    block = upsert_block("", "related-links", f"- {link}")
    assert read_block(block, "related-links") == f"- {link}"


def test_the_review_queue_history_stays_out_of_the_vault(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, {"A.md": " ".join([KUBE] * 4)})
    before = sorted(p.as_posix() for p in vault.path.rglob("*"))
    result = run_cli(tmp_path, vault, "brain", "review-queue", "--json")
    assert result.returncode == 0, result.stderr
    assert sorted(p.as_posix() for p in vault.path.rglob("*")) == before
    assert list((tmp_path / "state").rglob("*-review-queue.json"))
