"""``chunk_overlap_mid_sentence`` is part of the index signature: turning it on (or off again)
rebuilds the index instead of mixing two chunkings, and an index made before the setting existed
keeps its signature, so nobody's index is rebuilt by the upgrade (index/indexer.py)."""

from __future__ import annotations

import json
from pathlib import Path

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.schema import META_INDEX_SIGNATURE

SENTENCE = " ".join(f"word{n}" for n in range(60)) + "."


def _signature(db_path: Path) -> list[object]:
    db = open_index(db_path)
    try:
        return list(json.loads(db.meta(META_INDEX_SIGNATURE) or "{}")["chunker"])
    finally:
        db.close()


def _index(vault: Path, db_path: Path) -> tuple[bool, int]:
    with Vault(vault, db=db_path) as handle:
        report = handle.index(fast=True)
        return report.full, handle.status().chunks


def test_turning_overlap_mid_sentence_on_and_off_rebuilds_the_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("## Long\n\n" + "\n\n".join([SENTENCE] * 12), encoding="utf-8")
    db_path = tmp_path / "index.db"
    _index(vault, db_path)
    assert _signature(db_path) == [2000, 30, 200]  # as before the setting: no rebuild on upgrade
    assert _index(vault, db_path)[0] is False
    (vault / "vaultctx.toml").write_text("chunk_overlap_mid_sentence = true\n", encoding="utf-8")
    full, chunks = _index(vault, db_path)
    assert full and _signature(db_path) == [2000, 30, 200, True]
    (vault / "vaultctx.toml").unlink()
    full_again, chunks_off = _index(vault, db_path)
    assert full_again and _signature(db_path) == [2000, 30, 200]
    assert chunks >= chunks_off
