"""Which engines a retriever loads for an index, and how often (search/vector_sources.py), on a
real index holding all three kinds of vectors: each engine is asked at most once per opened
retriever however often it is taken; the static engine waits until pass 2 leaves chunks without
transformer vectors; an engine whose vectors the index lacks, or holds for another model, is
never used; one that cannot tell its model says so and the search goes on without it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import make_vault
from tests.search.test_vector_sources_edges import engine
from vaultctx.api import Vault
from vaultctx.embed.base import Embedder
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.index.schema import MULTI_TABLE, QUALITY_TABLE, VECTOR_TABLE
from vaultctx.search.vector_sources import IndexRetriever

# Mostly Korean (English under 15 % of the chunks), so pass 2 leaves the Korean chunks alone.
KOREAN_AND_ENGLISH = {
    "자전거.md": "# 자전거 정비\n\n체인은 기름때를 닦아 낸 뒤 윤활유를 한 방울씩 바른다.\n",
    "빵.md": "# 빵 굽기\n\n반죽은 두 배로 부풀 때까지 따뜻한 곳에서 발효시킨다.\n",
    "퇴비.md": "# 퇴비\n\n일주일에 한 번 더미를 뒤집어 공기를 넣고 마른 낙엽을 섞는다.\n",
    "잠.md": "# 잠 잘 자기\n\n잠들기 한 시간 전에는 화면을 끄고 방을 어둡게 한다.\n",
    "차.md": "# 차 우리기\n\n녹차는 팔십 도의 물에서 이 분 동안 우린다.\n",
    "산책.md": "# 산책\n\n아침 산책은 하루를 가볍게 시작하게 해 준다.\n",
    "화분.md": "# 화분\n\n흙이 마르면 물을 흠뻑 주고 받침의 물은 버린다.\n",
    "compost.md": "# Compost\n\nTurn the heap weekly; mix greens with dry leaves.\n",
}


Factory = Callable[[], Embedder | None]
Sources = dict[str, str | None]


def _vault(folders: pytest.TempPathFactory, *, fast: bool) -> Vault:
    root = folders.mktemp("fast" if fast else "full")
    vault = Vault(make_vault(root / "vault", KOREAN_AND_ENGLISH), db=root / "index.db")
    vault.index(fast=fast)
    return vault


def _engines(vault: Vault) -> dict[str, Factory]:
    """The vault's own engine factories, by kind."""
    return {
        "static": vault.embedder,
        "quality": vault.quality_embedder,
        "multilingual": vault.multilingual_embedder,
    }


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """Static, transformer and multilingual vectors; pass 2 left the Korean chunks to the
    multilingual ones, so it is complete only for a search that reads those."""
    if create_multilingual_embedder("auto") is None:
        pytest.skip("no multilingual engine installed")
    return _vault(tmp_path_factory, fast=False)


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """Static vectors only."""
    return _vault(tmp_path_factory, fast=True)


def _taken(vault: Vault, static: Factory, quality: Factory, multilingual: Factory) -> Sources:
    """The tables of the sources a retriever taken three times holds (vectors by default)."""
    holder = IndexRetriever(
        vault.db_path,
        static=static,  # type: ignore[arg-type]
        quality=quality,
        multilingual=multilingual,
    )
    try:
        retriever = holder.get()
        assert holder.get() is retriever
        assert holder.get(vectors=True) is retriever
        assert retriever.source_notices == []
        sources = {
            "static": retriever.static,
            "quality": retriever.quality,
            "multilingual": retriever.multilingual,
        }
    finally:
        holder.close()
    return {kind: None if source is None else source.table for kind, source in sources.items()}


def _asked(vault: Vault, **factories: Factory) -> tuple[Sources, dict[str, int]]:
    """``_taken`` with each engine factory counting how often the retriever asks it."""
    times = dict.fromkeys(factories, 0)

    def counted(kind: str) -> Factory:
        def asked() -> Embedder | None:
            times[kind] += 1
            return factories[kind]()

        return asked

    sources = _taken(vault, counted("static"), counted("quality"), counted("multilingual"))
    return sources, times


def test_each_engine_is_asked_once_however_often_the_retriever_is_taken(full: Vault) -> None:
    # Pass 2 switched off: the static vectors it is.
    sources, asked = _asked(full, **{**_engines(full), "quality": lambda: None})
    assert asked == {"static": 1, "quality": 1, "multilingual": 1}
    assert sources == {"static": VECTOR_TABLE, "quality": None, "multilingual": MULTI_TABLE}


def test_complete_transformer_vectors_never_load_the_static_engine(full: Vault) -> None:
    sources, asked = _asked(full, **_engines(full))
    assert sources == {"static": None, "quality": QUALITY_TABLE, "multilingual": MULTI_TABLE}
    assert asked == {"static": 0, "quality": 1, "multilingual": 1}


def test_without_the_multilingual_engine_the_static_vectors_reach_the_korean_chunks(
    full: Vault,
) -> None:
    """Pass 2 skipped the Korean chunks: a search that cannot read the multilingual vectors
    finds its transformer vectors partial, so the static ones join them."""
    sources, asked = _asked(full, **{**_engines(full), "multilingual": lambda: None})
    assert sources == {"static": VECTOR_TABLE, "quality": QUALITY_TABLE, "multilingual": None}
    assert asked == {"static": 1, "quality": 1, "multilingual": 1}


def test_an_index_without_transformer_vectors_never_loads_their_engines(fast: Vault) -> None:
    sources, asked = _asked(fast, **_engines(fast))
    assert sources == {"static": VECTOR_TABLE, "quality": None, "multilingual": None}
    assert asked == {"static": 1, "quality": 0, "multilingual": 0}


def test_transformer_vectors_of_another_model_are_not_used(full: Vault) -> None:
    # The static engine standing in for the transformer: its model is not the stored one.
    sources = _taken(full, full.embedder, full.embedder, lambda: None)
    assert sources == {"static": VECTOR_TABLE, "quality": None, "multilingual": None}


def test_engines_that_cannot_tell_their_model_are_named_and_left_out(full: Vault) -> None:
    """A remote engine learns its model from the provider; when that fails the search goes on
    with the vectors it can still trust, and the notices say which engine is missing."""
    holder = IndexRetriever(
        full.db_path,
        static=full.embedder,
        quality=lambda: engine(None),
        multilingual=lambda: engine(None),
    )
    try:
        retriever = holder.get()
        assert retriever.static is not None
        assert retriever.quality is None and retriever.multilingual is None
        unavailable = (
            "the embedding engine remote-x is unavailable (the provider did not answer): "
            "searching without its vectors"
        )
        assert retriever.source_notices == [unavailable, unavailable]
    finally:
        holder.close()
