"""The Python WordPiece for ASCII words gives the tokenizers library's ids, word for word."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from tests.conftest import EXAMPLE_VAULT
from vaultctx.embed.ascii_wordpiece import MAX_WORD_CHARS, AsciiWordPiece
from vaultctx.embed.static import BUNDLED_STATIC_DIR, StaticEmbedder

PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    loaded = Tokenizer.from_file(str(BUNDLED_STATIC_DIR / "tokenizer.json"))
    loaded.no_truncation()
    return loaded


@pytest.fixture(scope="module")
def fast(tokenizer: Tokenizer) -> AsciiWordPiece:
    wordpiece = AsciiWordPiece.for_tokenizer(tokenizer, tokenizer.get_vocab())
    assert wordpiece is not None
    return wordpiece


def library_ids(tokenizer: Tokenizer, word: str) -> list[int]:
    return list(tokenizer.encode(word, add_special_tokens=False).ids)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(alphabet=PRINTABLE, min_size=1, max_size=40),
        st.lists(
            st.sampled_from(
                [
                    "Get",
                    "-",
                    "ChildItem",
                    "[UNK]",
                    "[PAD]",
                    "##",
                    "ing",
                    "x" * 101,
                    "https://",
                    "a.b",
                    "QWZX",
                    "0x1F",
                    "naïve",
                    "_",
                    "é",
                ]
            ),
            min_size=1,
            max_size=8,
        ).map("".join),
    )
)
def test_any_word_it_takes_gets_the_librarys_ids(
    tokenizer: Tokenizer, fast: AsciiWordPiece, word: str
) -> None:
    ids = fast.ids(word)
    if ids is not None:
        assert ids == library_ids(tokenizer, word)


def test_real_notes_words_are_taken_and_match(tokenizer: Tokenizer, fast: AsciiWordPiece) -> None:
    words = sorted(
        {word for path in EXAMPLE_VAULT.rglob("*.md") for word in path.read_text("utf-8").split()}
    )
    taken = 0
    for word in words:
        ids = fast.ids(word)
        if ids is not None:
            taken += 1
            assert ids == library_ids(tokenizer, word), word
    assert taken >= 0.8 * len(words)  # the fast path is really used


def test_it_declines_added_tokens_non_ascii_and_very_long_words(fast: AsciiWordPiece) -> None:
    assert fast.ids("a[UNK]b") is None
    assert fast.ids("[PAD]") is None
    assert fast.ids("naïve") is None
    assert fast.ids("x" * (MAX_WORD_CHARS + 1)) is None
    assert fast.ids("Get-ChildItem") is not None


def test_a_piece_past_the_models_limit_is_one_unknown_token(
    tokenizer: Tokenizer, fast: AsciiWordPiece
) -> None:
    word = "a" * 101 + "-b"
    ids = fast.ids(word)
    assert ids == library_ids(tokenizer, word)
    assert ids is not None and ids[0] == tokenizer.token_to_id("[UNK]")


def test_an_uncased_or_cased_model_is_followed(tmp_path: Path) -> None:
    folder = tmp_path / "cased"
    shutil.copytree(BUNDLED_STATIC_DIR, folder)
    spec = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = False
    (folder / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    cased = Tokenizer.from_file(str(folder / "tokenizer.json"))
    wordpiece = AsciiWordPiece.for_tokenizer(cased, cased.get_vocab())
    assert wordpiece is not None
    for word in ("Get-ChildItem", "README.md", "HTTP/2", "lowercase"):
        assert wordpiece.ids(word) == library_ids(cased, word)


def test_other_tokenizer_shapes_get_no_fast_path(tmp_path: Path) -> None:
    folder = tmp_path / "sequence"
    shutil.copytree(BUNDLED_STATIC_DIR, folder)
    spec = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    spec["pre_tokenizer"] = {"type": "Whitespace"}  # groups punctuation runs: not BERT's split
    (folder / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    other = Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert AsciiWordPiece.for_tokenizer(other, other.get_vocab()) is None


def test_the_static_engine_uses_it() -> None:
    engine = StaticEmbedder()
    engine.embed(["warm up"])
    assert engine._loaded().words._ascii_words is not None
