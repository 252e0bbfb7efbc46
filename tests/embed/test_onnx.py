"""The bundled int8 ONNX MiniLM engine, run with onnxruntime on its real files."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import shared_data
from vaultctx.embed.base import Embedder, model_hash
from vaultctx.embed.onnx import BUNDLED_ONNX_DIR, OnnxEmbedder, window_starts
from vaultctx.embed.registry import ModelNotFoundError
from vaultctx.embed.static import StaticEmbedder

BREAD = "how to bake bread"
LOAF = "baking a loaf"
KERNEL = "kernel scheduler"
# The graph quantises activations with one scale per model call: with one window per call (the
# default) a text's vector is its own, whatever it is embedded with.
SAME_VECTOR_COSINE = 0.9999
# With several windows per call the shared scale moves each vector slightly (measured down to
# 0.986); padding leaking through the attention mask would move it far more.
BATCHED_VECTOR_COSINE = 0.98


@pytest.fixture(scope="module")
def onnx() -> OnnxEmbedder:
    return OnnxEmbedder()


@pytest.fixture(scope="module")
def truncated() -> OnnxEmbedder:
    return OnnxEmbedder(windowed=False)


@pytest.fixture(scope="module")
def long_chunk() -> str:
    """A real 2,000-character chunk: consecutive SciFact abstracts joined as the bench does."""
    with shared_data("beir-scifact", "corpus.jsonl").open(encoding="utf-8") as corpus:
        text = "\n\n".join(json.loads(next(corpus))["text"] for _ in range(4))
    assert len(text) >= 2000
    return text[:2000]


def test_satisfies_the_embedder_protocol(onnx: OnnxEmbedder) -> None:
    assert isinstance(onnx, Embedder)
    assert onnx.name == "minilm-onnx-384"
    assert onnx.dimension == 384


def test_vectors_are_float32_unit_rows_of_the_model_dimension(
    onnx: OnnxEmbedder, long_chunk: str
) -> None:
    vectors = onnx.embed([BREAD, long_chunk, KERNEL])
    assert vectors.shape == (3, onnx.dimension)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_an_empty_batch_gives_an_empty_matrix(onnx: OnnxEmbedder) -> None:
    assert onnx.embed([]).shape == (0, onnx.dimension)


def test_close_meanings_score_higher_than_unrelated_ones(onnx: OnnxEmbedder) -> None:
    bread, loaf, kernel = onnx.embed([BREAD, LOAF, KERNEL])
    assert bread @ loaf > bread @ kernel + 0.3
    assert bread @ loaf > loaf @ kernel + 0.3


def test_same_input_same_vector_across_calls_and_instances(
    onnx: OnnxEmbedder, long_chunk: str
) -> None:
    texts = [BREAD, long_chunk]
    first = onnx.embed(texts)
    np.testing.assert_array_equal(first, onnx.embed(texts))
    np.testing.assert_array_equal(first, OnnxEmbedder().embed(texts))


@pytest.fixture(scope="module")
def mixed_chunks(long_chunk: str) -> list[str]:
    """Real texts of very different token counts: one to eight windows, a few words, a sentence."""
    with shared_data("beir-scifact", "corpus.jsonl").open(encoding="utf-8") as corpus:
        abstracts = [json.loads(next(corpus))["text"] for _ in range(3)]
    return [
        long_chunk,
        LOAF,
        abstracts[0],
        KERNEL,
        abstracts[1][:300],
        long_chunk * 4,
        abstracts[2],
    ]


def cosines(left: np.ndarray[Any, Any], right: np.ndarray[Any, Any]) -> list[float]:
    return [float(a @ b) for a, b in zip(left, right, strict=True)]


def test_a_vector_does_not_depend_on_what_it_is_embedded_with(
    onnx: OnnxEmbedder, mixed_chunks: list[str]
) -> None:
    together = onnx.embed(mixed_chunks)
    one_by_one = np.vstack([onnx.embed([text]) for text in mixed_chunks])
    assert min(cosines(together, one_by_one)) >= SAME_VECTOR_COSINE
    reordered = onnx.embed(mixed_chunks[::-1])[::-1]
    assert min(cosines(together, reordered)) >= SAME_VECTOR_COSINE


def test_batched_windows_are_grouped_by_token_count_and_padding_is_masked(
    mixed_chunks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    batched = OnnxEmbedder(batch_size=4)
    widths: list[list[int]] = []
    run = batched._run

    def recording_run(token_lists: list[list[int]]) -> Any:
        widths.append([len(ids) for ids in token_lists])
        return run(token_lists)

    monkeypatch.setattr(batched, "_run", recording_run)
    vectors = batched.embed(mixed_chunks)
    real_calls = [call for call in widths if call != [0]]  # [0]: the dimension probe
    flat = [width for call in real_calls for width in call]
    assert flat == sorted(flat)  # every call holds neighbours in token count
    assert max(len(call) for call in real_calls) == 4
    one_by_one = np.vstack([OnnxEmbedder().embed([text]) for text in mixed_chunks])
    assert min(cosines(vectors, one_by_one)) >= BATCHED_VECTOR_COSINE


def test_text_without_tokens_is_the_zero_vector(onnx: OnnxEmbedder) -> None:
    vectors = onnx.embed(["", " \n\t ", BREAD])
    assert np.all(np.isfinite(vectors))
    np.testing.assert_array_equal(vectors[:2], 0.0)
    assert np.linalg.norm(vectors[2]) == pytest.approx(1.0, rel=1e-5)


def test_very_long_text_gives_a_unit_vector(onnx: OnnxEmbedder) -> None:
    (vector,) = onnx.embed(["The scheduler picks the next runnable task. " * 20_000])
    assert np.linalg.norm(vector) == pytest.approx(1.0, rel=1e-5)


def test_windowing_changes_a_long_chunk_but_not_a_short_text(
    onnx: OnnxEmbedder, truncated: OnnxEmbedder, long_chunk: str
) -> None:
    windowed_vector, truncated_vector = (
        onnx.embed([long_chunk])[0],
        truncated.embed([long_chunk])[0],
    )
    assert float(windowed_vector @ truncated_vector) < 0.99
    np.testing.assert_array_equal(onnx.embed([BREAD]), truncated.embed([BREAD]))


def test_windowing_lets_the_end_of_a_chunk_be_found(
    onnx: OnnxEmbedder, truncated: OnnxEmbedder
) -> None:
    """The reason for windows: a topic that starts after the first 256 tokens still counts."""
    bread = "Knead the dough, let it rise, then bake the loaf until the crust is golden. " * 16
    kernel = "The kernel scheduler assigns runnable threads to CPU cores and balances load. " * 10
    chunk = bread + kernel  # 2,000 characters; the kernel part starts after token 320
    (query,) = onnx.embed(["CPU scheduling in the operating system kernel"])
    windowed_score = float(onnx.embed([chunk])[0] @ query)
    truncated_score = float(truncated.embed([chunk])[0] @ query)
    assert windowed_score > truncated_score + 0.2


def test_model_hash_is_stable_and_differs_from_the_static_engine(onnx: OnnxEmbedder) -> None:
    assert onnx.model_hash == OnnxEmbedder().model_hash
    assert len(onnx.model_hash) == 16
    assert onnx.model_hash != StaticEmbedder().model_hash


def test_any_folder_with_the_same_layout_loads(onnx: OnnxEmbedder, tmp_path: Path) -> None:
    folder = tmp_path / "my-onnx"
    shutil.copytree(BUNDLED_ONNX_DIR, folder)
    custom = OnnxEmbedder(folder)
    assert custom.name == "onnx-my-onnx"
    np.testing.assert_array_equal(custom.embed([BREAD]), onnx.embed([BREAD]))


def test_missing_folder_raises_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-onnx"
    with pytest.raises(ModelNotFoundError, match="no-such-onnx"):
        OnnxEmbedder(missing)


def test_without_onnxruntime_construction_fails_with_import_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The indexer skips the quality pass on ImportError, so that is what must surface."""
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "onnxruntime" else real_find_spec(name, *args),
    )
    with pytest.raises(ImportError, match="pip install onnxruntime"):
        OnnxEmbedder()


@pytest.mark.parametrize(
    "options",
    [{"window_tokens": 2}, {"window_tokens": 513}, {"max_stride_tokens": 255}, {"batch_size": 0}],
)
def test_invalid_window_settings_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        OnnxEmbedder(**options)


def test_a_typical_chunk_needs_two_windows() -> None:
    # 2,000 characters of SciFact are 447 tokens on average.
    assert window_starts(447, span=254, max_stride=224, max_windows=8) == [0, 193]


@given(
    n_tokens=st.integers(1, 5000),
    span=st.integers(1, 510),
    stride_fraction=st.floats(0.01, 1.0),
    max_windows=st.integers(1, 16),
)
def test_windows_cover_the_text_with_bounded_steps(
    n_tokens: int, span: int, stride_fraction: float, max_windows: int
) -> None:
    max_stride = max(1, int(span * stride_fraction))
    starts = window_starts(n_tokens, span, max_stride, max_windows)
    assert starts[0] == 0
    assert 1 <= len(starts) <= max_windows
    assert starts == sorted(starts)
    if n_tokens <= span or max_windows == 1:
        assert starts == [0]
    else:
        assert starts[-1] + span == n_tokens  # the last window ends exactly at the text's end
    steps = np.diff(starts)
    if len(starts) < max_windows:  # not capped: no gap, no step beyond the stride
        assert np.all(steps <= max_stride)
        # and no more windows than needed: one fewer could not reach the end
        assert len(starts) == 1 or (len(starts) - 2) * max_stride < n_tokens - span


def test_a_cold_engine_runs_the_model_once_for_a_one_window_query(onnx: OnnxEmbedder) -> None:
    """A cold query loads the tokenizer beside the session and runs the model once: no extra
    run on an empty window to learn the dimension. Its vector equals a warm engine's."""
    cold = OnnxEmbedder()
    calls: list[int] = []
    run = cold._run

    def counted(token_lists: list[list[int]]) -> Any:
        calls.append(len(token_lists))
        return run(token_lists)

    cold._run = counted  # type: ignore[method-assign]
    vector = cold.embed([BREAD])
    assert calls == [1]
    np.testing.assert_array_equal(vector, onnx.embed([BREAD]))
    assert cold.dimension == 384 and calls == [1]


def test_a_cold_engine_embeds_a_text_without_tokens_to_zeros() -> None:
    vectors = OnnxEmbedder().embed([" "])
    assert vectors.shape == (1, 384)
    np.testing.assert_array_equal(vectors, 0.0)


def test_a_broken_tokenizer_fails_the_embedding_in_the_callers_thread(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(BUNDLED_ONNX_DIR / "model.onnx")
    (folder / "tokenizer.json").write_text("{ not json", encoding="utf-8")
    engine = OnnxEmbedder(folder)
    with pytest.raises(Exception, match=r"(?i)expected|json|line"):
        engine.embed([BREAD])
    assert not any(t.name.startswith("vaultctx-") and t.is_alive() for t in threading.enumerate())


def test_the_known_vocabulary_size_is_the_bundled_tokenizers_own(tmp_path: Path) -> None:
    """The model hash reads the bundled tokenizer's size from a table keyed by the file's
    digest; a rebuilt tokenizer (another digest) is counted from its JSON, as any other."""
    from vaultctx.embed.onnx import KNOWN_VOCAB_SIZES, parsed_vocab_size

    data = (BUNDLED_ONNX_DIR / "tokenizer.json").read_bytes()
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    assert {digest: parsed_vocab_size(BUNDLED_ONNX_DIR, data)} == KNOWN_VOCAB_SIZES
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(BUNDLED_ONNX_DIR / "model.onnx")
    spec = json.loads(data)
    spec["added_tokens"].append({**spec["added_tokens"][0], "id": 30522, "content": "[NEW]"})
    (folder / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    grown = OnnxEmbedder(folder, name=OnnxEmbedder().name)
    assert grown.model_hash != OnnxEmbedder().model_hash
    grown._loaded_tokenizer()
    assert grown.model_hash == model_hash(grown.name, 30523)
