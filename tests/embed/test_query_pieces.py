"""A cold English question to the multilingual model, tokenised by a tokenizer of only the pieces
it can use (embed/query_pieces.py): the same ids and the same vectors as the full tokenizer."""

from __future__ import annotations

import random
import shutil
import string
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from vaultctx.embed.e5 import BUNDLED_E5_DIR, QUERY_PREFIX, E5Embedder
from vaultctx.embed.query_pieces import MAX_TEXT_CHARS, TABLE_NAME, QueryPieces, table_text

REPO = Path(__file__).resolve().parents[2]
TOKENIZER = BUNDLED_E5_DIR / "tokenizer.json"


@pytest.fixture(scope="module")
def full() -> Tokenizer:
    return Tokenizer.from_file(str(TOKENIZER))


@pytest.fixture(scope="module")
def pieces() -> QueryPieces:
    loaded = QueryPieces.load(BUNDLED_E5_DIR / TABLE_NAME, TOKENIZER)
    assert loaded is not None
    return loaded


def _texts() -> list[str]:
    """Questions of every shape plain ASCII allows: the example vault's words, punctuation runs,
    repeated and leading spaces, digits, every printable character alone and in pairs."""
    rng = random.Random(14)
    words = sorted(
        {
            word
            for note in (REPO / "examples" / "vault").rglob("*.md")
            for word in note.read_text(encoding="utf-8").split()
            if word.isascii() and word.isprintable()
        }
    )
    printable = [chr(code) for code in range(0x20, 0x7F)]
    texts = [*printable, *(a + b for a in printable for b in printable[::19])]
    texts += ["", " ", "   leading", "trailing   ", "two  spaces", "<s", "unk>", "<<pad"]
    for _ in range(400):
        texts.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))))
        texts.append("".join(rng.choice(printable) for _ in range(rng.randint(1, 60))))
        alphabet = string.ascii_letters + string.digits + "  .,:;'\"-_/()?!#"
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))))
    return texts


def test_the_bundled_table_is_derived_from_the_bundled_tokenizer() -> None:
    """Regenerate with scripts/build_query_pieces.py after changing the tokenizer."""
    table = (BUNDLED_E5_DIR / TABLE_NAME).read_text(encoding="utf-8")
    assert table == table_text(TOKENIZER.read_bytes())


def test_every_plain_ascii_question_gets_the_full_tokenizers_ids(
    pieces: QueryPieces, full: Tokenizer
) -> None:
    differ = []
    for text in _texts():
        subset = pieces.tokenizer_for([text])
        assert subset is not None
        ids = subset.encode(text, add_special_tokens=False).ids
        if ids != full.encode(text, add_special_tokens=False).ids:
            differ.append(text)
    assert differ == []


def test_the_prefix_and_the_special_tokens_keep_their_ids(
    pieces: QueryPieces, full: Tokenizer
) -> None:
    text = "how do we rotate the api keys"
    subset = pieces.tokenizer_for([QUERY_PREFIX, text])
    assert subset is not None
    for batch in ([QUERY_PREFIX, text], [text, QUERY_PREFIX]):
        got = [e.ids for e in subset.encode_batch_fast(batch, add_special_tokens=False)]
        assert got == [e.ids for e in full.encode_batch_fast(batch, add_special_tokens=False)]
    for token in ("<s>", "</s>", "<unk>", "<pad>", "▁how", "not-a-piece-at-all"):
        assert subset.token_to_id(token) == (
            full.token_to_id(token) if token != "not-a-piece-at-all" else None
        )


@pytest.mark.parametrize(
    "text",
    [
        "한국어 질문",
        "café",
        "tab\there",
        "line\nbreak",
        "x" * (MAX_TEXT_CHARS + 1),
        "a<unk>b",
        "</s>",
    ],
)
def test_anything_but_short_printable_ascii_is_left_to_the_full_tokenizer(
    pieces: QueryPieces, text: str
) -> None:
    assert pieces.tokenizer_for(["fine", text]) is None


def test_a_table_of_another_tokenizer_is_not_used(tmp_path: Path) -> None:
    changed = tmp_path / "tokenizer.json"
    changed.write_bytes(TOKENIZER.read_bytes().replace(b'"unk_id": 3', b'"unk_id": 3 '))
    table = tmp_path / TABLE_NAME
    shutil.copyfile(BUNDLED_E5_DIR / TABLE_NAME, table)
    assert QueryPieces.load(table, changed) is None
    assert QueryPieces.load(tmp_path / "missing.tsv", TOKENIZER) is None


def test_a_cold_question_embeds_exactly_as_with_the_full_tokenizer() -> None:
    """The cold path never builds the full tokenizer and gives byte-identical vectors; a text
    it cannot take (Korean) then builds the full one, as before."""
    questions = ["how do we rotate the api keys", "What is BM25?  (hybrid) search"]
    cold = E5Embedder()
    vectors = [cold.embed_queries([q]) for q in questions]
    assert cold._tokenizer is None
    warm = E5Embedder()
    warm._loaded_tokenizer()
    for question, vector in zip(questions, vectors, strict=True):
        assert np.array_equal(vector, warm.embed_queries([question]))
    korean = cold.embed_queries(["키는 얼마나 자주 교체하나요"])
    assert cold._tokenizer is not None
    assert np.array_equal(korean, warm.embed_queries(["키는 얼마나 자주 교체하나요"]))


def test_a_damaged_table_falls_back_to_the_full_tokenizer(tmp_path: Path) -> None:
    """A table whose header is right but whose rows are not cannot break a search."""
    for name in ("model.onnx", "tokenizer.json"):
        shutil.copyfile(BUNDLED_E5_DIR / name, tmp_path / name)
    header = (BUNDLED_E5_DIR / TABLE_NAME).read_text(encoding="utf-8").partition("\n")[0]
    (tmp_path / TABLE_NAME).write_text(f"{header}\nnot a row\n\n▁how\tx\t0.0\n", encoding="utf-8")
    question = "how do we rotate the api keys"
    damaged = E5Embedder(tmp_path).embed_queries([question])
    assert np.array_equal(damaged, E5Embedder().embed_queries([question]))
