"""An index whose chunks an older chunker made is rebuilt, not mixed with the new chunking: the
chunker's version is part of the index signature (index/indexer.py, vault/chunker.py)."""

from __future__ import annotations

import json
from pathlib import Path

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.schema import META_INDEX_SIGNATURE
from vaultctx.vault.chunker import CHUNKER_VERSION


def test_an_index_from_an_older_chunker_is_rebuilt(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n\nA sentence about compost.\n", encoding="utf-8")
    db_path = tmp_path / "index.db"
    with Vault(vault, db=db_path) as handle:
        handle.index(fast=True)
        assert not handle.index(fast=True).full  # nothing changed: nothing rebuilt
    db = open_index(db_path)
    try:
        signature = json.loads(db.meta(META_INDEX_SIGNATURE) or "{}")
        assert signature["chunker"][-1] == CHUNKER_VERSION
        signature["chunker"][-1] = CHUNKER_VERSION - 1
        with db.transaction():
            db.set_meta(META_INDEX_SIGNATURE, json.dumps(signature, sort_keys=True))
    finally:
        db.close()
    with Vault(vault, db=db_path) as handle:
        report = handle.index(fast=True)
    assert (
        report.full
        and report.full_reason == "index layout changed since the last index: full reindex"
    )
    assert report.files_seen == 1 and report.added + report.changed == 1
