from __future__ import annotations

import numpy as np

from vaultctx.embed.base import embedding_input, model_hash, quantize_int8


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
