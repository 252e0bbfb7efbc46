"""The wiki folder guard, the AI-first note format, note links, create_wiki_note and the
index.md catalogue, on a real vault with a real index and ledger."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tests.brain.conftest import CHANGE, brain_vault
from vaultctx.api import Vault
from vaultctx.brain.catalog import catalog, update_index
from vaultctx.brain.markers import MarkerError
from vaultctx.brain.settings import SecondBrainOffError
from vaultctx.brain.wiki import (
    FOR_FUTURE_AI,
    NoteMeta,
    WikiFolderError,
    WikiPathError,
    ai_first_note,
    note_link,
    wiki_path,
)
from vaultctx.brain.wiki_note import create_wiki_note
from vaultctx.errors import VaultctxError

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    "name", ["../x", "a/../../x", "/etc/passwd", "\\\\server\\x", "C:/x", "c:x", "~/x", "..", ""]
)
def test_names_leading_out_of_the_wiki_are_refused(name: str) -> None:
    with pytest.raises(WikiPathError):
        wiki_path("Second Brain", name)


def test_names_stay_inside_the_wiki_folder() -> None:
    assert wiki_path("Second Brain", "Sync") == "Second Brain/Sync.md"
    assert wiki_path("Second Brain", "a/b.md") == "Second Brain/a/b.md"
    assert wiki_path("W", 'What? "now": <x>|y*') == "W/What- -now-- -x--y-.md"
    assert wiki_path("W", "./a//b") == "W/a/b.md"


def test_the_ai_first_front_matter_has_its_keys_in_order() -> None:
    meta = NoteMeta.from_mapping(
        {
            "recency": "dated",
            "confidence": 1.7,
            "validFrom": "2026-01-02",
            "learned_at": "2026-11-30",
            "tags": ["#a", "b c", "a"],
            "unknown": 1,
        },
        source="test",
        today=TODAY,
    )
    text = ai_first_note('Say "hi"\nnow', "Body.\n", meta)
    assert text == (
        "---\n"
        'title: "Say \\"hi\\" now"\n'
        "recency: dated\n"
        "confidence: 1\n"
        "valid_from: 2026-01-02\n"
        "learned_at: 2026-11-30\n"
        'source: "test"\n'
        'tags: ["a", "b-c"]\n'
        "---\n\n" + FOR_FUTURE_AI + "\n\nBody.\n"
    )


def test_meta_defaults_and_confidence_forms() -> None:
    meta = NoteMeta.from_mapping(None, source="s", today=TODAY)
    assert (meta.recency, meta.confidence, meta.valid_from, meta.learned_at, meta.tags) == (
        "evergreen",
        "medium",
        None,
        "2026-12-01",
        (),
    )
    for given, shown in [
        (-1, "0"),
        (0.25, "0.25"),
        ("HIGH", "high"),
        ("0.5", "0.5"),
        ("x", "medium"),
    ]:
        assert (
            NoteMeta.from_mapping({"confidence": given}, source="s", today=TODAY).confidence
            == shown
        )
    assert (
        NoteMeta.from_mapping({"recency": "weird"}, source="s", today=TODAY).recency == "evergreen"
    )
    with pytest.raises(VaultctxError, match="valid_from must be a date"):
        NoteMeta.from_mapping({"valid_from": "2026-02-30"}, source="s", today=TODAY)
    with pytest.raises(VaultctxError, match="learned_at must be a date"):
        NoteMeta.from_mapping({"learnedAt": "soon\ninjected: true"}, source="s", today=TODAY)


def test_note_links_fall_back_to_an_encoded_markdown_link() -> None:
    assert note_link("W/concepts/Sync.md", "Sync") == "[[W/concepts/Sync|Sync]]"
    assert note_link("W/C# tips.md", "C# tips") == "[C# tips](W/C%23%20tips.md)"
    assert note_link("W/a.md", "a|b [x]") == "[a|b \\[x\\]](W/a.md)"


def test_create_wiki_note_writes_an_ai_first_note_and_the_folders(vault: Vault) -> None:
    result = create_wiki_note(
        vault, "Soil", "Soil is alive.", "concepts", {"confidence": "high"}, change=CHANGE
    )
    assert result.path == "Second Brain/concepts/Soil.md"
    assert result.message == "Wiki note created: Second Brain/concepts/Soil.md"
    text = (vault.path / result.path).read_text(encoding="utf-8")
    assert text.startswith('---\ntitle: "Soil"\nrecency: evergreen\nconfidence: high\n')
    assert text.endswith(FOR_FUTURE_AI + "\n\nSoil is alive.\n")
    for folder in ("entities", "concepts", "projects"):
        assert (vault.path / "Second Brain" / folder).is_dir()
    log = (vault.path / "Second Brain/log.md").read_text(encoding="utf-8")
    assert log.startswith("- [") and log.endswith("] created Second Brain/concepts/Soil.md\n")
    assert vault.search("Soil is alive").results[0].file_path == result.path  # re-indexed
    vault.undo()  # one record: the note, the log and the folders all go
    assert not (vault.path / "Second Brain").exists()


def test_an_unknown_category_writes_at_the_wiki_top(vault: Vault) -> None:
    result = create_wiki_note(vault, "Loose", "x", "misc", None, change=CHANGE)
    assert result.path == "Second Brain/Loose.md"


def test_create_wiki_note_never_overwrites(vault: Vault) -> None:
    create_wiki_note(vault, "Soil", "first", None, None, change=CHANGE)
    note = vault.path / "Second Brain/Soil.md"
    before = note.read_bytes()
    with pytest.raises(
        VaultctxError, match=r"A note already exists and was not overwritten: Second Brain/Soil\.md"
    ):
        create_wiki_note(vault, "Soil", "second", None, None, change=CHANGE)
    assert note.read_bytes() == before
    with pytest.raises(VaultctxError, match=r"A note title is required\."):
        create_wiki_note(vault, "  ", "x", None, None, change=CHANGE)


def test_the_second_brain_refuses_while_off(tmp_path: Path) -> None:
    vault = brain_vault(tmp_path, enabled=False, indexed=False)
    with pytest.raises(SecondBrainOffError):
        create_wiki_note(vault, "Soil", "x", None, None, change=CHANGE)
    with pytest.raises(SecondBrainOffError):
        update_index(vault, change=CHANGE)
    assert not (vault.path / "Second Brain").exists()


def test_a_wiki_folder_that_is_a_file_is_refused(vault: Vault) -> None:
    (vault.path / "Second Brain").write_text("my own file", encoding="utf-8")
    with pytest.raises(WikiFolderError, match="is a file"):
        create_wiki_note(vault, "Soil", "x", None, None, change=CHANGE)
    assert (vault.path / "Second Brain").read_text(encoding="utf-8") == "my own file"
    assert vault.ledger() == []


def test_the_catalog_groups_and_sorts() -> None:
    paths = [
        "W/projects/Zeta.md",
        "W/concepts/beta.md",
        "W/concepts/Alpha.md",
        "W/Loose.md",
        "W/other/Deep.md",
        "W/entities/C#.md",
    ]
    assert catalog("W", paths) == (
        "# 📚 Index\n\n"
        "## entities\n\n- [C#](W/entities/C%23.md)\n\n"
        "## concepts\n\n- [[W/concepts/Alpha|Alpha]]\n- [[W/concepts/beta|beta]]\n\n"
        "## projects\n\n- [[W/projects/Zeta|Zeta]]\n\n"
        "## Other\n\n- [[W/other/Deep|Deep]]\n- [[W/Loose|Loose]]"
    )
    assert catalog("W", []) == "# 📚 Index\n\n_No wiki notes yet._"


def test_update_index_keeps_the_users_text_and_writes_only_on_change(vault: Vault) -> None:
    first = update_index(vault, change=CHANGE)
    assert (first.notes, first.written) == (0, True)
    index = vault.path / "Second Brain/index.md"
    text = index.read_text(encoding="utf-8")
    index.write_text("My intro.\n\n" + text + "\nMy footer.\n", encoding="utf-8")
    create_wiki_note(vault, "Soil", "x", "concepts", None, change=CHANGE)
    second = update_index(vault, change=CHANGE)
    assert (second.notes, second.written) == (1, True)
    assert second.message == "Index catalog updated: 1 note(s) (Second Brain/index.md)"
    updated = index.read_text(encoding="utf-8")
    assert updated.startswith("My intro.\n\n<!-- @generated:catalog -->\n# 📚 Index\n")
    assert "- [[Second Brain/concepts/Soil|Soil]]" in updated
    assert updated.endswith("<!-- @end:catalog -->\n\nMy footer.\n")
    records = len(vault.ledger())
    third = update_index(vault, change=CHANGE)
    assert not third.written and len(vault.ledger()) == records
    assert index.read_text(encoding="utf-8") == updated


def test_update_index_refuses_a_half_block(vault: Vault) -> None:
    update_index(vault, change=CHANGE)
    index = vault.path / "Second Brain/index.md"
    broken = "mine\n<!-- @generated:catalog -->\nno end any more\n"
    index.write_text(broken, encoding="utf-8")
    create_wiki_note(vault, "Soil", "x", None, None, change=CHANGE)
    with pytest.raises(MarkerError, match="without its"):
        update_index(vault, change=CHANGE)
    assert index.read_text(encoding="utf-8") == broken
