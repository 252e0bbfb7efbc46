"""The chunker's limits at their exact boundaries (SPEC §2): a section *under* 30 characters is
short and glued to a neighbour, one of exactly 30 is not; a section of 2,000 characters is one
chunk, one of 2,001 is cut. The indexer's defaults are those same numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.config import Settings
from vaultctx.index.db import open_index
from vaultctx.index.text_codec import unpack_text
from vaultctx.vault.chunker import chunk_text

USAGE = "## Usage\nCall the tool with the path to your vault folder."


def test_a_section_of_exactly_min_chars_stays_its_own_chunk() -> None:
    setup = "## Setup\nRun the installer now"
    assert len(setup) == 30
    chunks = chunk_text(f"{setup}\n\n{USAGE}\n", min_chars=30)
    assert [chunk.text for chunk in chunks] == [setup, USAGE]


def test_a_section_one_under_min_chars_is_glued_to_the_next() -> None:
    setup = "## Setup\nRun the installer no"
    assert len(setup) == 29
    chunks = chunk_text(f"{setup}\n\n{USAGE}\n", min_chars=30)
    assert [chunk.text for chunk in chunks] == [f"{setup}\n\n{USAGE}"]


def section_of(length: int) -> str:
    """An H2 section of exactly ``length`` characters, of sentences so a cut has places to go."""
    sentences = " ".join(f"Lighthouse {n} logs its lamp hours." for n in range(length // 20))
    return f"## Long\n{sentences}"[: length - 1] + "."


def test_the_defaults_are_the_spec_numbers() -> None:
    settings = Settings()
    limits = (settings.chunk_max_chars, settings.chunk_min_chars, settings.chunk_overlap)
    assert limits == (2000, 30, 200)


@pytest.mark.parametrize(("length", "chunks"), [(2000, 1), (2001, 2)])
def test_the_indexer_cuts_sections_over_2000_characters(
    tmp_path: Path, length: int, chunks: int
) -> None:
    section = section_of(length)
    assert len(section) == length
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "long.md").write_text(section + "\n")
    with Vault(tmp_path / "vault", db=tmp_path / "index.db") as vault:
        vault.index(fast=True)
    db = open_index(tmp_path / "index.db", readonly=True)
    try:
        bodies = [unpack_text(row[0]) for row in db.execute("SELECT body FROM chunks ORDER BY id")]
    finally:
        db.close()
    assert len(bodies) == chunks
    assert max(len(body) for body in bodies) <= 2000
    if chunks == 1:
        assert bodies == [section]
