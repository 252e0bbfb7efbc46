"""The index records whether it holds Korean, so readers load Kiwi (~330 MB) only when it does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.hangul import HANGUL_META, index_has_hangul
from vaultctx.text import korean


def recorded(db: Path) -> str | None:
    index = open_index(db, readonly=True)
    try:
        return index.meta(HANGUL_META)
    finally:
        index.close()


def english_vault(root: Path) -> tuple[Path, Path]:
    vault = root / "vault"
    vault.mkdir()
    (vault / "keys.md").write_text("# Keys\n\nRotate the deploy keys. Café naïve.\n", "utf-8")
    return vault, root / "index.db"


def test_an_english_index_records_no_korean_until_a_korean_note_arrives(tmp_path: Path) -> None:
    vault, db = english_vault(tmp_path)
    Vault(vault, db=db).index(fast=True)
    assert recorded(db) == "0"
    (vault / "메모.md").write_text("# 메모\n\n볼트를 교체한다.\n", "utf-8")
    Vault(vault, db=db).index(fast=True)
    assert recorded(db) == "1"


def test_a_korean_heading_alone_counts(tmp_path: Path) -> None:
    vault, db = english_vault(tmp_path)
    (vault / "plan.md").write_text("# Plan\n\n## 배포\n\nShip it on Monday.\n", "utf-8")
    Vault(vault, db=db).index(fast=True)
    assert recorded(db) == "1"


def test_an_index_from_before_the_record_gets_it_on_its_next_run(tmp_path: Path) -> None:
    vault, db = english_vault(tmp_path)
    (vault / "메모.md").write_text("# 메모\n\n볼트를 교체한다.\n", "utf-8")
    Vault(vault, db=db).index(fast=True)
    index = open_index(db)
    try:
        with index.transaction():
            index.execute("DELETE FROM model_meta WHERE key = ?", (HANGUL_META,))
        assert index_has_hangul(index)  # unknown: Korean may be there
    finally:
        index.close()
    Vault(vault, db=db).index(fast=True)  # nothing changed in the vault: only the record
    assert recorded(db) == "1"
    (vault / "메모.md").unlink()
    Vault(vault, db=db).index(fast=True)
    assert recorded(db) == "1"  # never cleared by deletions: a stale "1" only costs the load


def test_a_korean_query_on_an_index_without_korean_loads_no_kiwi(tmp_path: Path) -> None:
    """In a fresh interpreter (other tests may have loaded Kiwi); the same query on an index
    with Korean does load it, when Kiwi is installed."""
    vault, db = english_vault(tmp_path)
    Vault(vault, db=db).index(fast=True)
    korean_vault, korean_db = tmp_path / "ko", tmp_path / "ko.db"
    korean_vault.mkdir()
    (korean_vault / "메모.md").write_text("# 메모\n\n볼트를 교체한다.\n", "utf-8")
    Vault(korean_vault, db=korean_db).index(fast=True)
    code = (
        "import sys\n"
        "from vaultctx.api import Vault\n"
        "from vaultctx.text import korean\n"
        "hits = Vault(sys.argv[1], db=sys.argv[2]).search('볼트 deploy keys', mode='bm25')\n"
        "print([r.file_path for r in hits.results], korean.kiwi_loaded())\n"
        "hits = Vault(sys.argv[3], db=sys.argv[4]).search('볼트', mode='bm25')\n"
        "print([r.file_path for r in hits.results], korean.kiwi_loaded())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(vault), str(db), str(korean_vault), str(korean_db)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=True,
    )
    english, korean_line = done.stdout.splitlines()
    assert english == "['keys.md'] False"
    assert korean_line == f"['메모.md'] {korean.kiwi_installed()}"
