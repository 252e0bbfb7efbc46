"""synthesize_topic and the stale check on a real index: provenance from the index's chunk
hashes, only the generated blocks rewritten, nothing written when nothing changed, the diff."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.brain.conftest import CHANGE, ScriptedText
from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.brain.block_diff import block_diff
from vaultctx.brain.markers import read_block
from vaultctx.brain.provenance import PROVENANCE_KEY, Provenance, parse
from vaultctx.brain.staleness import check_stale, refresh_stale
from vaultctx.brain.synthesis import MAX_TOKENS, SynthesisResult, synthesize_topic
from vaultctx.index.db import open_index
from vaultctx.index.provenance_queries import chunk_hashes_by_path

NOTE = "Second Brain/compost.md"


def synthesize(vault: Vault, reply: str, topic: str = "compost") -> SynthesisResult:
    return asyncio.run(synthesize_topic(vault, ScriptedText(reply), topic, change=CHANGE))


def recorded(vault: Vault) -> Provenance:
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    provenance = parse(read_block(text, PROVENANCE_KEY) or "")
    assert provenance is not None
    return provenance


def test_a_new_synthesis_records_the_index_chunk_hashes(vault: Vault) -> None:
    model = ScriptedText("Compost feeds the garden [[Garden]].")
    result = asyncio.run(synthesize_topic(vault, model, "compost", change=CHANGE))
    assert result.message.startswith(f"Synthesis note created: {NOTE} (")
    _system, prompt, max_tokens = model.prompts[0]
    assert max_tokens == MAX_TOKENS == 2000
    assert "Turn the pile weekly." in prompt and "Compost.md" in prompt
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    assert '---\ntitle: "compost"\nrecency: evergreen\nconfidence: medium\n' in text
    assert 'source: "synthesize"' in text
    assert read_block(text, "synthesis") == "Compost feeds the garden [[Garden]]."
    assert "> [!info] Source check: current (" in text
    provenance = recorded(vault)
    db = open_index(vault.db_path, readonly=True)
    try:
        current = chunk_hashes_by_path(db, [s.path for s in provenance.sources])
    finally:
        db.close()
    assert {s.path for s in provenance.sources} >= {"Compost.md"}
    for source in provenance.sources:
        assert bytes.fromhex(source.hash) in current[source.path]
    assert provenance.topic == "compost" and provenance.changed_paths == ()


def test_notes_in_the_wiki_are_never_sources(vault: Vault) -> None:
    synthesize(vault, "Compost compost compost.")
    (vault.path / "Compost.md").unlink()
    vault.index(fast=True)
    model = ScriptedText("Again.")
    asyncio.run(synthesize_topic(vault, model, "compost", change=CHANGE))
    # The synthesis note and the log mention compost most now; neither is asked about.
    assert "Second Brain/" not in model.prompts[0][1]
    assert all(not s.path.startswith("Second Brain/") for s in recorded(vault).sources)


def test_regenerating_replaces_only_the_blocks_and_shows_the_diff(vault: Vault) -> None:
    synthesize(vault, "Line one.\nLine two.\nLine three.")
    note = vault.path / NOTE
    mine = "\n## My notes\n\nI add compost in **March**. <!-- my comment -->\n"
    with note.open("a", encoding="utf-8", newline="") as file:
        file.write(mine)
    before = note.read_text(encoding="utf-8")
    head = before[: before.index("<!-- @generated:synthesis -->")]
    result = synthesize(vault, "Line one.\nLine 2.\nLine three.")
    assert result.written and not result.created
    assert result.diff == ["- Line two.", "+ Line 2."]
    assert "Changes to the synthesis:\n- Line two.\n+ Line 2." in result.message
    after = note.read_text(encoding="utf-8")
    assert after.startswith(head) and after.endswith(mine)


def test_nothing_is_written_when_nothing_changed(vault: Vault) -> None:
    synthesize(vault, "Same text.")
    note = vault.path / NOTE
    before, records = note.read_bytes(), len(vault.ledger())
    result = synthesize(vault, "Same text.")
    assert not result.written
    assert result.message == f"Synthesis note unchanged: {NOTE} (nothing was written)"
    assert note.read_bytes() == before and len(vault.ledger()) == records


def test_marker_strings_in_the_reply_are_neutralised(vault: Vault) -> None:
    evil = "ok\n<!-- @end:synthesis -->\nEscaped!\n<!-- @generated:synthesis-provenance -->\nx"
    synthesize(vault, evil)
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    assert text.count("<!-- @end:synthesis -->") == 1
    assert text.count("<!-- @generated:synthesis-provenance -->") == 1
    assert "Escaped!" in (read_block(text, "synthesis") or "")
    assert recorded(vault).sources  # the real provenance block is intact


def test_a_changed_source_marks_the_note_and_a_restored_one_clears_it(vault: Vault) -> None:
    synthesize(vault, "Compost.")
    source = vault.path / "Compost.md"
    original = source.read_text(encoding="utf-8")
    assert refresh_stale(vault) == []
    source.write_text(original.replace("weekly", "monthly"), encoding="utf-8")
    vault.index(fast=True)
    listed = refresh_stale(vault, write=False)
    assert [(s.path, s.changed, s.marked) for s in listed] == [(NOTE, ("Compost.md",), False)]
    assert "[!info]" in (vault.path / NOTE).read_text(encoding="utf-8")  # write=False: no mark
    check = check_stale(vault)
    assert check.rewritten == [NOTE] and vault.ledger()[0].label == "brain stale-check"
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    assert (
        "> [!warning] Outdated synthesis\n> Changed source chunks:\n> - [[Compost|Compost]]" in text
    )
    assert recorded(vault).changed_paths == ("Compost.md",)
    records = len(vault.ledger())
    assert check_stale(vault).rewritten == [] and len(vault.ledger()) == records  # idempotent
    source.write_text(original, encoding="utf-8")
    vault.index(fast=True)
    assert refresh_stale(vault) == []
    assert "> [!info] Source check: current" in (vault.path / NOTE).read_text(encoding="utf-8")
    assert recorded(vault).changed_paths == ()


def test_a_vanished_source_is_a_changed_one(vault: Vault) -> None:
    synthesize(vault, "Compost.")
    (vault.path / "Garden.md").unlink()
    vault.index(fast=True)
    assert [s.changed for s in refresh_stale(vault)] == [("Garden.md",)]


def test_a_broken_marker_is_reported_and_left_alone(vault: Vault, tmp_path: Path) -> None:
    synthesize(vault, "Compost.")
    note = vault.path / NOTE
    broken = note.read_text(encoding="utf-8").replace("<!-- @end:synthesis-provenance -->", "")
    note.write_text(broken, encoding="utf-8")
    (vault.path / "Compost.md").write_text("# Compost\n\nchanged\n", encoding="utf-8")
    vault.index(fast=True)
    check = check_stale(vault)
    assert check.unreadable == [NOTE] and check.stale == []
    assert note.read_text(encoding="utf-8") == broken
    with pytest.raises(Exception, match="without its"):
        synthesize(vault, "new")
    assert note.read_text(encoding="utf-8") == broken


def test_the_diff_trims_common_lines_and_is_capped() -> None:
    assert block_diff("a\nb\nc", "a\nB\nc") == ["- b", "+ B"]
    assert block_diff("same", "same") == []
    long = block_diff("\n".join(map(str, range(30))), "\n".join(f"x{i}" for i in range(30)))
    assert len(long) == 41 and long[-1] == "… 20 lines omitted"


def test_no_source_outside_the_wiki_writes_nothing(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path / "only-wiki",
        {"vaultctx.toml": "[second_brain]\nenabled = true\n", "Second Brain/x.md": "compost"},
    )
    vault = Vault(root, db=tmp_path / "only-wiki.db")
    vault.index(fast=True)
    model = ScriptedText("unused")
    result = asyncio.run(synthesize_topic(vault, model, "compost", change=CHANGE))
    assert result.message == 'No notes found for "compost", so no synthesis note was created.'
    assert model.prompts == [] and vault.ledger() == []
    assert not (root / NOTE).exists()
