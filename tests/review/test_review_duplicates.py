"""``vaultctx review duplicates``: aliases and a candidates block on the canonical note, nothing
merged or deleted; a canonical note whose front matter cannot be edited is skipped with the
reason while the other accepted clusters are applied, all in one ledger record."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.brain.conftest import BREAD, KUBE, TIDES, indexed_vault, run_cli, snapshot
from vaultctx.brain.markers import read_block

KUBES = " ".join([KUBE] * 3)
TIDESES = " ".join([TIDES] * 3)
NOTES = {
    # Cluster 1 (2 duplicates): canonical old/Plan.md, the one with a link.
    "notes/Plan.md": KUBES,
    "old/Plan.md": "---\ntitle: Plan\ntags: [work]  # keep me\n---\n" + KUBES + "\n[[Hub]]\n",
    "z/Plan.md": KUBES,
    # Cluster 2 (1 duplicate): its canonical note's front matter is broken.
    "a/Tides.md": "---\ntitle: [broken\n---\n" + TIDESES + " [[Hub]]",
    "b/Tides.md": TIDESES,
    "Hub.md": BREAD,
}


def test_accept_all_records_aliases_skips_the_broken_one_then_undo(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, NOTES)
    before = snapshot(vault.path)
    listed = json.loads(run_cli(tmp_path, vault, "review", "duplicates", "--json").stdout)
    assert [
        (p["id"], p["canonical"], [d["path"] for d in p["duplicates"]]) for p in listed["proposals"]
    ] == [(1, "old/Plan.md", ["notes/Plan.md", "z/Plan.md"]), (2, "a/Tides.md", ["b/Tides.md"])]
    result = run_cli(tmp_path, vault, "review", "duplicates", "--accept", "all", "--json")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)["result"]
    assert outcome["applied"] == [1]
    assert outcome["skipped"] == [
        "2: a/Tides.md: its front matter is not valid YAML (line 3); it was left unchanged; "
        "fix the front matter, then run the command again"
    ]
    text = (vault.path / "old/Plan.md").read_text(encoding="utf-8")
    # The duplicates' titles and names are the canonical note's own: no alias to add.
    assert text.startswith("---\ntitle: Plan\ntags: [work]  # keep me\n---\n" + KUBES)
    block = read_block(text, "canonical-candidates")
    assert block is not None
    lines = block.splitlines()
    assert len(lines) == 2
    assert re.fullmatch(
        r"- \[\[notes/Plan\|Plan\]\] — `notes/Plan.md` \(similarity \d+\.\d%\)", lines[0]
    )
    assert re.fullmatch(r"- \[\[z/Plan\|Plan\]\] — `z/Plan.md` \(similarity \d+\.\d%\)", lines[1])
    # Nothing merged or deleted; the broken note untouched.
    after = snapshot(vault.path)
    assert {p for p, b in after.items() if b != before.get(p)} == {"old/Plan.md"}
    ledger = json.loads(run_cli(tmp_path, vault, "ledger", "--json").stdout)
    assert len(ledger) == 1
    assert run_cli(tmp_path, vault, "undo").returncode == 0
    assert snapshot(vault.path) == before


def test_the_titles_and_file_names_become_aliases(tmp_path: Path) -> None:
    notes = {
        "Plan.md": "---\naliases: [Roadmap]\n---\n" + KUBES + " [[Hub]]",
        "x/Plan draft.md": "---\ntitle: The plan\n---\n" + KUBES,
        "Hub.md": BREAD,
    }
    config = "[second_brain]\nenabled = true\nduplicate_threshold = 0.9\n"
    vault = indexed_vault(tmp_path, notes, config)
    result = run_cli(tmp_path, vault, "review", "duplicates", "--accept", "1")
    assert result.returncode == 0, result.stderr
    text = (vault.path / "Plan.md").read_text(encoding="utf-8")
    assert text.startswith('---\naliases: [Roadmap, "The plan", "Plan draft"]\n---\n')
