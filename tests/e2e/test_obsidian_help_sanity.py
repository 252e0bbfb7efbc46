"""Questions an Obsidian user would ask, over the real Obsidian Help vault (English).

The expected notes are the ones a person reading the help would point to. These are sanity checks,
not a benchmark: the system is not tuned to them (the quality numbers come from bench/quality.py).
Each expected note must appear in the top 5 notes of the default hybrid search.

Marked slow (run by `pytest -m slow`, CI's second step): indexing the whole help vault with both
passes is the longest set-up of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_data
from vaultctx.api import Vault

pytestmark = pytest.mark.slow

QUESTIONS = [
    ("how do I undo changes and restore an older version of a note", "Plugins/File recovery.md"),
    (
        "create a link to a specific heading in another note",
        "Linking notes and files/Internal links.md",
    ),
    ("give a note a second name so links find it", "Linking notes and files/Aliases.md"),
    pytest.param(
        "highlight a warning box in my note",
        "Editing and formatting/Callouts.md",
        marks=pytest.mark.xfail(
            reason="known miss (2026-11-30): no shared word with the note, and neither vector "
            "model places 'warning box' near 'callout'; kept to show when that changes",
            strict=False,
        ),
    ),
    ("keyboard shortcut to open the command palette", "Plugins/Command palette.md"),
    ("move my notes from Evernote", "Import notes/Import from Evernote.md"),
    ("where does Obsidian keep its settings folder", "Files and folders/Configuration folder.md"),
    ("end-to-end encryption of synced vaults", "Obsidian Sync/Security and privacy.md"),
    ("add a custom domain to my published site", "Obsidian Publish/Custom domains.md"),
    ("nested tags", "Editing and formatting/Tags.md"),
    ("template for daily notes", "Plugins/Daily notes.md"),
    ("change the look with a CSS snippet", "Extending Obsidian/CSS snippets.md"),
]


@pytest.fixture(scope="module")
def help_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    source = shared_data("obsidian-help", "en")
    vault = Vault(source, db=Path(tmp_path_factory.mktemp("help")) / "help.db")
    vault.index()  # the default configuration: both passes
    return vault


@pytest.mark.parametrize(("question", "expected"), QUESTIONS)
def test_right_note_in_top_five(help_vault: Vault, question: str, expected: str) -> None:
    response = help_vault.search(question, limit=5, notes=True)
    paths = [r.file_path for r in response.results]
    assert expected in paths, f"{question!r} → {paths}"
