"""A repeated chunk text takes the vector its first occurrence got (index/vector_memo.py): byte
for byte what embedding it again gives, and never another text's or another model's vector."""

from __future__ import annotations

import pytest

from vaultctx.embed.base import Vectors
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.prepare import ChunkRow, embed_rows
from vaultctx.index.vector_memo import VectorMemo, text_key


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def _rows(pairs: list[tuple[str, str]]) -> list[ChunkRow]:
    """Chunks of (context, text); every text hash is the same, so a memo keyed by it fails."""
    return [ChunkRow(i, "s", "", text, context, b"same") for i, (context, text) in enumerate(pairs)]


PAIRS = [
    ("Note A", "rotate the api keys every quarter"),
    ("Note B", "rotate the api keys every quarter"),  # same text, other context
    ("Note A", "rotate the api keys every quarter"),  # a repeat of the first
    ("", "rotate the api keys every quarter"),
    ("Note A", "the backup runs nightly"),
    ("Note A", "rotate the api keys every quarter"),
]


def _vectors(rows: list[ChunkRow]) -> list[bytes | None]:
    return [row.vector for row in rows]


def test_memoised_vectors_are_those_embedding_gives(embedder: StaticEmbedder) -> None:
    plain = _rows(PAIRS)
    embed_rows(plain, embedder, 64)
    memo = VectorMemo()
    first, again = _rows(PAIRS), _rows(list(reversed(PAIRS)))
    embed_rows(first, embedder, 2, memo)  # small batches: repeats cross batch boundaries
    embed_rows(again, embedder, 64, memo)  # every text known: all from the memo
    assert _vectors(first) == _vectors(plain)
    assert _vectors(again) == list(reversed(_vectors(plain)))
    assert len(memo) == 4  # the distinct (context, text) inputs
    assert len(set(_vectors(plain))) == 4  # and they differ: a wrong key would be seen


def test_each_distinct_text_is_embedded_once(embedder: StaticEmbedder) -> None:
    seen: list[str] = []

    class Counting(StaticEmbedder):
        def embed(self, texts: list[str]) -> Vectors:
            seen.extend(texts)
            return super().embed(texts)

    counting = Counting()
    memo = VectorMemo()
    embed_rows(_rows(PAIRS), counting, 64, memo)
    embed_rows(_rows(PAIRS), counting, 64, memo)
    assert sorted(seen) == sorted(set(seen)) and len(seen) == 4


def test_engines_that_are_not_batch_invariant_are_not_memoised(embedder: StaticEmbedder) -> None:
    seen: list[str] = []

    class Padded(StaticEmbedder):
        batch_invariant = False  # as a transformer padding its batches

        def embed(self, texts: list[str]) -> Vectors:
            seen.extend(texts)
            return super().embed(texts)

    memo = VectorMemo()
    embed_rows(_rows(PAIRS), Padded(), 64, memo)
    assert len(seen) == len(PAIRS) and len(memo) == 0


def test_another_model_never_gets_a_remembered_vector() -> None:
    memo = VectorMemo()
    key = text_key("same text")
    memo.remember("model-a", [key], [b"\x01" * 4])
    assert memo.recall("model-a", [key]) == [b"\x01" * 4]
    assert memo.recall("model-b", [key]) == [None]
    assert memo.recall("model-a", [key]) == [None]  # model-a's vectors were forgotten


def test_the_oldest_vectors_go_first_beyond_the_capacity() -> None:
    memo = VectorMemo(capacity=3)
    keys = [text_key(f"text {i}") for i in range(5)]
    memo.remember("m", keys[:2], [b"0", b"1"])
    memo.remember("m", keys[2:], [b"2", b"3", b"4"])
    assert memo.recall("m", keys) == [None, None, b"2", b"3", b"4"]
    assert len(memo) == 3


def test_a_key_is_the_whole_text() -> None:
    assert text_key("a" * 1000 + "b") != text_key("a" * 1000 + "c")
    assert len(text_key("x")) == 32  # all of SHA-256: no truncated hash can collide in a run
