"""``resolve_vault_attachment``: a file of any type a question may attach (an image or a PDF a
note embeds) is confined like a note, and refused, with the rule named, when git's or vaultctx's
own files or the vault's ignore rules hold it, as given or through a symlink. Its type alone is
never a reason to refuse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultctx.vault.paths import UnsafePathError, leaves_vault, resolve_vault_attachment
from vaultctx.vault.scanner import OWN_FILES_REASON, IgnoreRules, load_ignore_rules


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for relative in ("attachments/scan.pdf", "drafts/photo.png", ".git/config", "Plan.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(b"%PDF-1.4\n")
    (root / ".indexignore").write_text("# kept out\ndrafts/\n", encoding="utf-8")
    return root


def _rules(vault: Path) -> IgnoreRules:
    return load_ignore_rules(vault)[0]


def test_a_pdf_in_the_vault_is_resolved_though_no_note_type(vault: Path) -> None:
    located = resolve_vault_attachment(vault, "attachments\\scan.pdf", _rules(vault))
    assert located.relative == "attachments/scan.pdf"
    assert located.absolute == Path(os.path.realpath(vault)) / "attachments" / "scan.pdf"


def test_an_ignored_attachment_is_refused_naming_the_rule(vault: Path) -> None:
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_attachment(vault, "drafts/photo.png", _rules(vault))
    assert refused.value.path == "drafts/photo.png"
    assert refused.value.reason == (
        'is excluded from the index by the pattern "drafts/" on line 2 of .indexignore'
    )


def test_git_and_vaultctx_files_are_refused_as_their_own(vault: Path) -> None:
    for raw in (".git/config", ".vaultctx-cache/x.png"):
        with pytest.raises(UnsafePathError) as refused:
            resolve_vault_attachment(vault, raw, _rules(vault))
        assert refused.value.path == raw
        assert refused.value.reason == OWN_FILES_REASON
        assert str(refused.value).startswith(f"path refused: {OWN_FILES_REASON} (")


def test_a_symlink_to_an_ignored_file_is_refused_by_its_target(vault: Path) -> None:
    (vault / "attachments" / "alias.png").symlink_to(vault / "drafts" / "photo.png")
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_attachment(vault, "attachments/alias.png", _rules(vault))
    assert refused.value.path == "attachments/alias.png"
    assert "drafts/" in refused.value.reason


def test_a_path_spelled_out_of_the_vault_is_refused_before_any_file_is_read(vault: Path) -> None:
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_attachment(vault, "../outside.pdf", _rules(vault))
    assert refused.value.path == "../outside.pdf"


def test_a_path_encoded_more_times_than_decoded_counts_as_leaving() -> None:
    """After four rounds of decoding a ``%`` still decodes further: the spelling is refused,
    not trusted; one that settles within them is judged as decoded."""
    assert leaves_vault("%" + "25" * 8 + ".md")
    assert not leaves_vault("%2541.md")
