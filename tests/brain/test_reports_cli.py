"""``vaultctx brain gaps | links | duplicates | review-queue`` as real processes: the refusal
while off, --json, and --write into the wiki folder (markers, the user's text kept, nothing
written when unchanged, one undo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.brain.conftest import BREAD, KUBE, LONG, indexed_vault, run_cli, snapshot
from vaultctx.brain.markers import read_block

NOTES = {
    "A.md": "# A\n\n[[B]] [[Missing]] " + LONG,
    "B.md": "# B\n\nShort.",
    "O.md": KUBE,
    "K.md": " ".join([KUBE] * 3) + " [[A]]",
    "Bread.md": BREAD,
    "x/Plan.md": " ".join([KUBE] * 3),
    "y/Plan.md": " ".join([KUBE] * 3),
}
REPORTS = {
    "gaps": ("Knowledge Gaps", "knowledge-gaps"),
    "links": ("Link Suggestions", "related-links-report"),
    "duplicates": ("Duplicate Candidates", "canonical-candidates-report"),
    "review-queue": ("Review Queue", "review-queue"),
}


@pytest.mark.parametrize("report", list(REPORTS))
def test_refused_while_off(tmp_path: Path, report: str) -> None:
    vault = indexed_vault(tmp_path, NOTES, config="")
    before = snapshot(vault.path)
    result = run_cli(tmp_path, vault, "brain", report, "--write")
    assert result.returncode == 2
    assert "Second Brain is turned off" in result.stderr and "enabled = true" in result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert snapshot(vault.path) == before


@pytest.mark.parametrize("report", list(REPORTS))
def test_json_and_write(tmp_path: Path, report: str) -> None:
    vault = indexed_vault(tmp_path, NOTES)
    result = run_cli(tmp_path, vault, "brain", report, "--json", "--write")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["report"] == report and payload["items"]
    name, key = REPORTS[report]
    path = f"Second Brain/{name}.md"
    assert payload["written"]["path"] == path and payload["written"]["record_id"]
    text = (vault.path / path).read_text(encoding="utf-8")
    assert text.startswith(f"# {name}\n") and read_block(text, key)


def test_write_keeps_the_users_text_writes_nothing_unchanged_and_undoes(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, NOTES)
    before = snapshot(vault.path)
    first = run_cli(tmp_path, vault, "brain", "gaps", "--write")
    assert first.returncode == 0, first.stderr
    assert "[[Missing]] — 1 link, from A.md; no such note" in first.stdout
    note = vault.path / "Second Brain/Knowledge Gaps.md"
    note.write_text("My intro.\n\n" + note.read_text(encoding="utf-8") + "\nMy outro.\n")
    mine = note.read_bytes()
    again = run_cli(tmp_path, vault, "brain", "gaps", "--write")
    assert "already holds this report; nothing was written" in again.stdout
    assert note.read_bytes() == mine
    (vault.path / "Missing.md").write_text("# Missing\n\nNow it exists, linked from A.\n")
    vault.index(fast=True)
    third = run_cli(tmp_path, vault, "brain", "gaps", "--write")
    assert "wrote Second Brain/Knowledge Gaps.md" in third.stdout
    text = note.read_text(encoding="utf-8")
    assert text.startswith("My intro.\n\n# Knowledge Gaps\n") and text.endswith("\nMy outro.\n")
    assert "no such note" not in text and "[[Missing]] — 1 note links here" in text
    assert run_cli(tmp_path, vault, "undo").returncode == 0
    assert note.read_bytes() == mine
    (vault.path / "Missing.md").unlink()
    note.write_bytes(mine.replace(b"My intro.\n\n", b"").replace(b"\nMy outro.\n", b""))
    assert run_cli(tmp_path, vault, "undo").returncode == 0  # the first write: the note goes
    assert snapshot(vault.path) == before  # the folder it made goes too


def test_a_wiki_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, {**NOTES, "Second Brain": "a file"})
    result = run_cli(tmp_path, vault, "brain", "gaps", "--write")
    assert result.returncode == 2
    assert "is a file, not a folder; nothing was written" in result.stderr
    assert (vault.path / "Second Brain").read_text() == "a file"


def test_without_an_index_the_fix_is_this_vaults_index_command(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, {"A.md": "# A"})
    vault.db_path.unlink()
    result = run_cli(tmp_path, vault, "brain", "gaps")
    assert result.returncode == 2
    assert f"run `vaultctx index --vault {vault.path} --db {vault.db_path}` first" in result.stderr
