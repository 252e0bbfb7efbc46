"""Pass 2 on a Korean vault: the English transformer skips the chunks the multilingual vectors
cover, pass 2 still counts as complete, and a vault that turns English gets them embedded."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.base import Vectors
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.index.db import open_index
from vaultctx.index.multilingual_pass import ENGLISH_READ_SHARE
from vaultctx.index.schema import QUALITY_TABLE
from vaultctx.index.search_queries import quality_vectors_complete
from vaultctx.search.ranking_constants import ENGLISH_PRESENT_SHARE

KOREAN = {
    "퇴비.md": "# 퇴비\n\n일주일에 한 번 더미를 뒤집어 공기를 넣고 마른 낙엽을 섞는다.\n",
    "자전거.md": "# 자전거 정비\n\n체인은 기름때를 닦아 낸 뒤 윤활유를 한 방울씩 바른다.\n",
    "잠.md": "# 잠 잘 자기\n\n잠들기 한 시간 전에는 화면을 끄고 방을 어둡게 한다.\n",
    "빵.md": "# 빵 굽기\n\n반죽은 두 배로 부풀 때까지 따뜻한 곳에서 발효시킨다.\n",
    "차.md": "# 차 우리기\n\n녹차는 팔십 도의 물에서 이 분 동안 우린다.\n",
    "산책.md": "# 산책\n\n아침 산책은 하루를 가볍게 시작하게 해 준다.\n",
    "화분.md": "# 화분\n\n흙이 마르면 물을 흠뻑 주고 받침의 물은 버린다.\n",
}
ENGLISH_NOTE = {"compost.md": "# Compost\n\nTurn the heap weekly; mix greens with dry leaves.\n"}
MORE_ENGLISH = {
    f"garden-{n}.md": f"# Garden {n}\n\nWater the beds in the morning, weed row {n} by hand.\n"
    for n in range(4)
}

pytestmark = pytest.mark.skipif(
    create_multilingual_embedder("auto") is None, reason="no multilingual engine installed"
)


def _write(folder: Path, notes: dict[str, str]) -> None:
    folder.mkdir(exist_ok=True)
    for name, text in notes.items():
        (folder / name).write_text(text, encoding="utf-8")


def _embedded_by_language(vault: Vault) -> dict[str, tuple[int, int, int]]:
    """Per chunk language: (chunks, with a pass-2 stamp, with a pass-2 vector row)."""
    db = open_index(vault.db_path, readonly=True)
    try:
        rows = db.execute(
            "SELECT c.lang, count(*), count(c.quality_embedded_at), count(q.rowid) FROM chunks c "
            f"LEFT JOIN {QUALITY_TABLE} q ON q.rowid = c.id GROUP BY c.lang"
        ).fetchall()
    finally:
        db.close()
    return {str(lang): (int(n), int(stamped), int(rows_)) for lang, n, stamped, rows_ in rows}


def _complete(vault: Vault) -> bool:
    with closing(open_index(vault.db_path, readonly=True)) as db:
        return quality_vectors_complete(db)


def _never_embedded(query: str) -> Vectors:
    raise AssertionError("no query is embedded here")


def test_the_share_is_the_one_search_routes_by() -> None:
    assert ENGLISH_READ_SHARE == ENGLISH_PRESENT_SHARE


def test_korean_chunks_skip_pass_two_and_it_is_complete(tmp_path: Path) -> None:
    _write(tmp_path / "vault", {**KOREAN, **ENGLISH_NOTE})
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index()
    found = _embedded_by_language(vault)
    assert found["ko"] == (7, 0, 0)  # no MiniLM vector for a Korean chunk
    assert found["en"] == (1, 1, 1)  # the English chunk keeps its own
    status = vault.status()
    assert (status.quality_vectors, status.quality_chunks, status.chunks) == (1, 1, 8)
    assert _complete(vault)
    from vaultctx.cli.index_cmds import _quality_coverage

    assert _quality_coverage(status).startswith("1/1 chunks (100%")
    # Search still reaches the Korean notes, through the multilingual vectors.
    hits = vault.search("how to clean a bicycle chain", mode="vector").results
    assert hits and hits[0].file_path == "자전거.md"


def test_without_the_multilingual_vectors_the_skipped_chunks_count_as_undone(
    tmp_path: Path,
) -> None:
    """A search that cannot read the multilingual vectors (engine gone at search time) keeps
    the static vectors, which still reach the chunks pass 2 skipped."""
    from vaultctx.search.retriever import Retriever, VectorSource

    _write(tmp_path / "vault", {**KOREAN, **ENGLISH_NOTE})
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index()
    db = open_index(vault.db_path, readonly=True)
    try:
        retriever = Retriever(db, None)
        assert not retriever.quality_complete()
        retriever.multilingual = VectorSource("chunk_vecs_multi", _never_embedded, weight=1.0)
        assert retriever.quality_complete()
    finally:
        db.close()


def test_a_vault_turning_english_gets_the_skipped_chunks_embedded(tmp_path: Path) -> None:
    _write(tmp_path / "vault", {**KOREAN, **ENGLISH_NOTE})
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index()
    assert _embedded_by_language(vault)["ko"][1] == 0
    _write(tmp_path / "vault", MORE_ENGLISH)  # 5 of 12 chunks English: English is read now
    vault.index(fast=True)
    assert not _complete(vault)  # the Korean chunks are pass 2's again
    vault.index()
    found = _embedded_by_language(vault)
    assert found["ko"] == (7, 7, 7)
    assert found["en"] == (5, 5, 5)
    assert _complete(vault)


def test_without_the_multilingual_engine_pass_two_embeds_every_chunk(tmp_path: Path) -> None:
    _write(tmp_path / "vault", {**KOREAN, **ENGLISH_NOTE})
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index()
    assert _embedded_by_language(vault)["ko"][1] == 0
    settings = Settings(multilingual_engine="")
    without = Vault(config=Config(tmp_path / "vault", tmp_path / "index.db", settings))
    without.index()
    assert _embedded_by_language(without)["ko"] == (7, 7, 7)
    assert _complete(without)


def test_an_english_vault_with_a_korean_note_embeds_every_chunk(tmp_path: Path) -> None:
    notes = {**ENGLISH_NOTE, **MORE_ENGLISH, "퇴비.md": KOREAN["퇴비.md"]}
    _write(tmp_path / "vault", notes)
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index()
    found = _embedded_by_language(vault)
    assert found["en"] == (5, 5, 5)
    assert found["ko"] == (1, 1, 1)
    status = vault.status()
    assert status.quality_vectors == status.quality_chunks == status.chunks == 6
