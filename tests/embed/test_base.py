from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.embed.base import embedding_input, model_hash, quantize_int8, quantize_int8_rows


def test_model_hash_follows_the_spec() -> None:
    import hashlib

    assert model_hash("m", 10) == hashlib.sha256(b"m10").hexdigest()[:16]


def test_int8_keeps_cosine_ranking() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((200, 256)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[0] + 0.3 * rng.standard_normal(256).astype(np.float32)
    exact = vectors @ (query / np.linalg.norm(query))
    quantized = np.stack([np.frombuffer(quantize_int8(v), dtype=np.int8) for v in vectors])
    q = np.frombuffer(quantize_int8(query), dtype=np.int8).astype(np.float32)
    approx = (quantized.astype(np.float32) @ q) / (
        np.linalg.norm(quantized, axis=1) * np.linalg.norm(q)
    )
    assert np.max(np.abs(approx - exact)) < 0.01
    assert np.argmax(approx) == np.argmax(exact) == 0
    # Random vectors are nearly tied below the top hit; most of the top 10 must survive.
    assert len(set(np.argsort(-approx)[:10]) & set(np.argsort(-exact)[:10])) >= 8


def test_int8_uses_full_range_and_handles_zero() -> None:
    blob = np.frombuffer(quantize_int8(np.array([0.01, -0.02, 0.005], dtype=np.float32)), np.int8)
    assert blob.tolist() == [64, -127, 32]
    assert quantize_int8(np.zeros(4, dtype=np.float32)) == bytes(4)


def test_embedding_input_prefixes_context() -> None:
    assert embedding_input("Title > Setup", "body") == "Title > Setup\nbody"
    assert embedding_input("", "body") == "body"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False, width=32)
            | st.sampled_from([0.0, 1e-30, -1e-30, 127.0]),
            min_size=4,
            max_size=4,
        ),
        min_size=0,
        max_size=20,
    )
)
def test_batch_int8_gives_each_vectors_own_bytes(rows: list[list[float]]) -> None:
    vectors = np.array(rows, dtype=np.float32).reshape(len(rows), 4)
    assert quantize_int8_rows(vectors) == [quantize_int8(vector) for vector in vectors]


def test_batch_int8_of_real_static_vectors() -> None:
    from vaultctx.embed.static import StaticEmbedder

    texts = ["bread", "", "Get-ChildItem -Path C:\\", "한국어", "x" * 300, "[UNK] the"]
    vectors = StaticEmbedder().embed(texts)
    assert quantize_int8_rows(vectors) == [quantize_int8(vector) for vector in vectors]
    assert quantize_int8_rows(vectors[:0]) == []
