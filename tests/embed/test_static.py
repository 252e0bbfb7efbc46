"""The bundled Model2Vec engine, loaded from its real files."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE_VAULT
from vaultctx.embed.base import Embedder
from vaultctx.embed.registry import ModelNotFoundError, create_embedder
from vaultctx.embed.static import BUNDLED_STATIC_DIR, StaticEmbedder

BREAD = "how to bake bread"
LOAF = "baking a loaf"
KERNEL = "kernel scheduler"


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    return StaticEmbedder()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_satisfies_the_embedder_protocol(static: StaticEmbedder) -> None:
    assert isinstance(static, Embedder)
    assert static.name == "minilm-static-256"
    assert static.dimension == 256


def test_vectors_are_float32_unit_rows_of_the_model_dimension(static: StaticEmbedder) -> None:
    vectors = static.embed([BREAD, LOAF, KERNEL, "SQLite keeps one file."])
    assert vectors.shape == (4, static.dimension)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_an_empty_batch_gives_an_empty_matrix(static: StaticEmbedder) -> None:
    assert static.embed([]).shape == (0, static.dimension)


def test_close_meanings_score_higher_than_unrelated_ones(static: StaticEmbedder) -> None:
    bread, loaf, kernel = static.embed([BREAD, LOAF, KERNEL])
    assert cosine(bread, loaf) > cosine(bread, kernel) + 0.2
    assert cosine(bread, loaf) > cosine(loaf, kernel) + 0.2


def test_same_input_same_vector_across_calls_and_instances(static: StaticEmbedder) -> None:
    texts = [BREAD, KERNEL * 40]
    first = static.embed(texts)
    np.testing.assert_array_equal(first, static.embed(texts))
    np.testing.assert_array_equal(first, StaticEmbedder().embed(texts))


def test_a_vector_does_not_depend_on_its_batch(static: StaticEmbedder) -> None:
    alone = static.embed([LOAF])[0]
    batched = static.embed([KERNEL * 50, LOAF, ""])[1]
    np.testing.assert_allclose(alone, batched, atol=1e-6)


def test_text_without_tokens_is_the_zero_vector(static: StaticEmbedder) -> None:
    vectors = static.embed(["", "   \n\t", BREAD])
    assert np.all(np.isfinite(vectors))
    np.testing.assert_array_equal(vectors[:2], 0.0)
    assert np.linalg.norm(vectors[2]) == pytest.approx(1.0, rel=1e-5)


def test_very_long_text_is_embedded_quickly(static: StaticEmbedder) -> None:
    long_text = "The scheduler picks the next runnable task. " * 20_000  # ~900k characters
    started = time.perf_counter()
    (vector,) = static.embed([long_text])
    assert time.perf_counter() - started < 2.0
    assert np.linalg.norm(vector) == pytest.approx(1.0, rel=1e-5)


def test_model_hash_is_stable_and_names_the_vector_space(static: StaticEmbedder) -> None:
    assert static.model_hash == StaticEmbedder().model_hash
    assert len(static.model_hash) == 16
    int(static.model_hash, 16)
    assert StaticEmbedder(name="another-model").model_hash != static.model_hash


def test_any_local_model2vec_folder_loads(static: StaticEmbedder, tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    shutil.copytree(BUNDLED_STATIC_DIR, folder)
    custom = StaticEmbedder(folder)
    assert custom.name == "model2vec-my-model"
    assert custom.model_hash != static.model_hash
    np.testing.assert_array_equal(custom.embed([BREAD]), static.embed([BREAD]))


def test_missing_folder_raises_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelNotFoundError, match="no-such-model") as raised:
        StaticEmbedder(missing)
    assert raised.value.folder == missing
    assert "does not exist" in str(raised.value)


def test_incomplete_folder_names_the_missing_files(tmp_path: Path) -> None:
    folder = tmp_path / "partial"
    shutil.copytree(BUNDLED_STATIC_DIR, folder)
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelNotFoundError, match=r"missing model\.safetensors"):
        StaticEmbedder(folder)


def test_a_hub_style_name_is_never_fetched() -> None:
    """A missing path must fail locally, not be handed to the hub as a repository id."""
    with pytest.raises(ModelNotFoundError, match="minishlab/potion-base-8M"):
        StaticEmbedder("minishlab/potion-base-8M")


def test_registry_creates_engines_by_short_name() -> None:
    assert create_embedder("static").name == "minilm-static-256"
    with pytest.raises(ValueError, match="unknown embedding engine 'bert'"):
        create_embedder("bert")


def test_pooling_equals_model2vec_on_real_chunks(static: StaticEmbedder) -> None:
    """The engine reimplements Model2Vec's encode (to skip its imports); it must not drift."""
    model2vec = pytest.importorskip("model2vec")
    reference = model2vec.StaticModel.from_pretrained(BUNDLED_STATIC_DIR, normalize=True)
    notes = sorted(EXAMPLE_VAULT.rglob("*.md"))
    texts = [path.read_text(encoding="utf-8") for path in notes]
    texts += ["", "   ", "😀", "word " * 5000, "한국어와 English 섞인 text", "[UNK] [CLS]"]
    ours = static.embed(texts)
    theirs = reference.encode(texts, normalize=True)
    assert ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() < 1e-5


def test_model_hash_is_the_same_before_and_after_loading_the_model(tmp_path: Path) -> None:
    """The hash is read from the weights' header before loading; it must match the tokenizer's."""
    unloaded = StaticEmbedder()
    loaded = StaticEmbedder()
    loaded.embed(["load it"])
    assert unloaded.model_hash == loaded.model_hash
    from vaultctx.embed.static import _vocab_size_without_loading

    assert (
        _vocab_size_without_loading(BUNDLED_STATIC_DIR)
        == loaded._loaded().tokenizer.get_vocab_size()
    )


# Characters where splitting on whitespace could disagree with BERT's own normaliser: control
# characters Python counts as whitespace, Unicode spaces, accents, CJK, punctuation, specials.
TRICKY = "ab Z1.,-_#`'\"()[]\t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2003\u3000\u200b\x00\ufffdé\u0301中한😀"


def _whole_text_vectors(static: StaticEmbedder, texts: list[str]) -> np.ndarray:
    """The reference: every text tokenised whole by the Rust tokenizer, no word cache."""
    words = static._loaded().words
    words._by_word = False
    try:
        return static.embed(texts)
    finally:
        words._by_word = True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=TRICKY, max_size=60),
            st.lists(st.sampled_from(["[UNK]", "[PAD]", "naïve", "Get-Item", "x" * 120])).map(
                " ".join
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_word_cache_tokenises_exactly_as_the_whole_text(
    static: StaticEmbedder, texts: list[str]
) -> None:
    np.testing.assert_array_equal(static.embed(texts), _whole_text_vectors(static, texts))


def test_word_cache_matches_on_real_notes_and_past_the_token_limit(
    static: StaticEmbedder,
) -> None:
    texts = [path.read_text(encoding="utf-8") for path in sorted(EXAMPLE_VAULT.rglob("*.md"))]
    texts += ["word, " * 400, "Get-ChildItem -Path C:\\ " * 300]  # over 512 tokens
    np.testing.assert_array_equal(static.embed(texts), _whole_text_vectors(static, texts))


def test_a_full_word_cache_is_emptied_without_changing_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vaultctx.embed.static_model as static_module

    monkeypatch.setattr(static_module, "WORD_CACHE_BYTES", 2_000)
    small = StaticEmbedder()
    texts = [f"note {i} about kernels, schedulers and word{i}" for i in range(200)]
    expected = StaticEmbedder().embed(texts)
    for start in range(0, len(texts), 7):
        np.testing.assert_array_equal(
            small.embed(texts[start : start + 7]), expected[start : start + 7]
        )
    assert small._loaded().words._cache_bytes < 4_000


def test_a_tokenizer_that_looks_across_spaces_is_never_split_into_words(tmp_path: Path) -> None:
    """Only BERT-style normalisation and pre-tokenisation keep words independent."""
    import json

    folder = tmp_path / "sequence-model"
    shutil.copytree(BUNDLED_STATIC_DIR, folder)
    spec = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    # A Sequence could hold anything, so it is tokenised whole (here: BERT's own, in a Sequence).
    spec["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "BertPreTokenizer"}]}
    (folder / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    custom = StaticEmbedder(folder)
    vectors = custom.embed([BREAD, KERNEL])
    assert custom._loaded().words._by_word is False
    bundled = StaticEmbedder()
    np.testing.assert_array_equal(vectors, bundled.embed([BREAD, KERNEL]))
    assert bundled._loaded().words._by_word is True
