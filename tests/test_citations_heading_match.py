"""A cited heading must be the whole heading (case, spacing and punctuation aside): a word of it, a
prefix, a suffix or a longer phrase containing it is a heading that does not exist."""

from __future__ import annotations

import pytest

from vaultctx.api import Vault


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("headings")
    (root / "vault").mkdir()
    (root / "vault" / "Guide.md").write_text(
        "# Guide\n\n## Installing on Linux\n\nUse the package.\n\n## Uninstalling\n\nRemove it.\n"
    )
    handle = Vault(root / "vault", db=root / "index.db")
    handle.index(fast=True)
    handle.close()
    return handle


@pytest.mark.parametrize(
    "citation",
    [
        "[[Guide#Installing on Linux]]",
        "[[guide#installing  ON linux]]",
        "[[Guide#Installing: on Linux]]",  # punctuation is dropped, as Obsidian does
        "[x](Guide.md#Installing%20on%20Linux)",
        "[[Guide#Uninstalling]]",
    ],
)
def test_the_whole_heading_resolves(vault: Vault, citation: str) -> None:
    report = vault.verify_citations(citation)
    assert report.checked == 1 and report.ok, report


@pytest.mark.parametrize(
    "citation",
    [
        "[[Guide#Linux]]",
        "[[Guide#on Linux]]",
        "[[Guide#Installing]]",
        "[[Guide#Install]]",
        "[[Guide#Installing on Linux and macOS]]",
        "[[Guide#Installing on]]",
        "[[Guide#Uninstall]]",
        "[x](Guide.md#Linux)",
    ],
)
def test_part_of_a_heading_is_not_the_heading(vault: Vault, citation: str) -> None:
    report = vault.verify_citations(citation)
    assert report.checked == 1 and [p.reason for p in report.unresolved] == ["no_such_heading"]
    assert report.unresolved[0].note == "Guide.md"
