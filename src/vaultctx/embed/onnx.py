"""The quality engine: all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime and tokenizers only.

MiniLM was trained on 256-token inputs but a chunk holds up to 2,000 characters (about 450
tokens), so a long text is cut into overlapping windows whose vectors are averaged: the end of a
chunk counts as much as its start. The graph already mean-pools and normalises each window
(see scripts/build_models.py); this module only forms windows, batches them and averages.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from vaultctx.embed.base import Vectors, model_hash
from vaultctx.embed.model_files import MODELS_DIR, require_model_files
from vaultctx.embed.side_load import SideLoad

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

    from vaultctx.embed.query_pieces import QueryPieces, TokenizerLike

BUNDLED_ONNX_DIR = MODELS_DIR / "minilm-onnx"
BUNDLED_ONNX_NAME = "minilm-onnx-384"
ONNX_FILES = ("model.onnx", "tokenizer.json")
OUTPUT_NAME = "sentence_embedding"
# Two special tokens wrap every window: [CLS] ... [SEP].
SPECIAL_TOKENS_PER_WINDOW = 2
# MiniLM's position table has 512 entries.
MAX_WINDOW_TOKENS = 512
# The bundled tokenizer.json's vocabulary size, by the file's blake2b-128 digest: the model hash
# of every cold query and no-op index run needs it, and parsing the file takes ~15 ms. A test
# keeps each entry equal to the parsed count (tests/embed/test_onnx.py).
KNOWN_VOCAB_SIZES = {"865394eda149516b04a30602d6b19444": 30522}
# Generous upper bound on characters per token (the average is about 4.5), used to cut
# pathological inputs before tokenising them costs seconds.
MAX_CHARS_PER_TOKEN = 10


def window_starts(n_tokens: int, span: int, max_stride: int, max_windows: int) -> list[int]:
    """Start offsets of the fewest evenly spaced windows of ``span`` tokens covering the text.

    Even spacing keeps the last window full instead of a short tail, and needing no more windows
    than ``max_stride`` demands keeps the cost near one pass over the text. ``max_windows`` bounds
    the work for a pathological text: the windows then sample it evenly from start to end.
    """
    if n_tokens <= span or max_windows == 1:
        return [0]
    last_start = n_tokens - span
    count = min(max_windows, 1 + math.ceil(last_start / max_stride))
    return [round(i * last_start / (count - 1)) for i in range(count)]


@dataclass(frozen=True)
class _Window:
    text_index: int
    token_ids: list[int]


class OnnxEmbedder:
    """Embeds with the bundled int8 ONNX MiniLM (384 dims) or any folder with the same layout:
    ``model.onnx`` taking input_ids/attention_mask/token_type_ids and returning a normalised
    ``sentence_embedding``, plus the matching ``tokenizer.json``.

    Windows hold 256 tokens, MiniLM's training length, and start at most 224 tokens apart: a
    2,000-character chunk (about 450 tokens) then takes two windows where a 192 stride would
    need three for half of them, and compute is proportional to windows. ``max_windows`` bounds
    the cost of a pathological text.

    Windows run one per model call by default (``batch_size=1``). The graph quantises its
    activations to int8 with one scale per call, so in a batch every window's vector moved with
    its batch mates and their padding (cosine down to 0.986 against the window alone): alone, a
    chunk's vector depends on its text only, whatever else is being embedded, and no compute is
    spent on padding. On this project's 2-core machine one window per call was also faster than
    batches of 16 once idle worker threads stop spinning (docs/benchmarks.md, "Pass 2 speed").
    A larger ``batch_size`` still groups windows of similar token count, so little is padded.
    ``threads=None`` lets onnxruntime use one thread per physical core.

    Subclasses for other BERT-family models set ``special_tokens`` (the tokens that wrap a
    window) and ``passage_prefix`` (tokens every window of a passage starts with, e.g. e5's
    ``passage: ``), and may list their tokenizer's vocabulary size in ``known_vocab_sizes``.

    ``windowed=False`` keeps only the first window (the model's usual truncation); it shares the
    model hash, since the vector space is the same. ``windowed_by_default`` is what a subclass
    reads when the caller does not say (e5.py reads first windows only). A text with no tokens
    embeds to the zero vector, as in StaticEmbedder.
    """

    special_tokens: tuple[str, str] = ("[CLS]", "[SEP]")
    passage_prefix = ""
    known_vocab_sizes: dict[str, int] = KNOWN_VOCAB_SIZES
    bundled_dir = BUNDLED_ONNX_DIR
    bundled_name = BUNDLED_ONNX_NAME
    windowed_by_default = True
    # The pieces table beside the model (embed/query_pieces.py), for models that ship one.
    query_pieces_table: str | None = None

    def __init__(
        self,
        model_dir: Path | str | None = None,
        *,
        name: str | None = None,
        windowed: bool | None = None,
        window_tokens: int = 256,
        max_stride_tokens: int = 224,
        max_windows: int = 8,
        batch_size: int = 1,
        threads: int | None = None,
    ) -> None:
        if importlib.util.find_spec("onnxruntime") is None:
            raise ImportError("the ONNX engine needs onnxruntime: pip install onnxruntime")
        span = window_tokens - SPECIAL_TOKENS_PER_WINDOW
        if not 0 < span <= MAX_WINDOW_TOKENS - SPECIAL_TOKENS_PER_WINDOW:
            raise ValueError(f"window_tokens must be 3..{MAX_WINDOW_TOKENS}, got {window_tokens}")
        if not 0 < max_stride_tokens <= span:
            raise ValueError(f"max_stride_tokens must be in 1..{span}, got {max_stride_tokens}")
        if max_windows < 1 or batch_size < 1:
            raise ValueError("max_windows and batch_size must be at least 1")
        folder = Path(model_dir) if model_dir is not None else self.bundled_dir
        self._folder = require_model_files(folder, ONNX_FILES)
        if name is not None:
            self._name = name
        elif model_dir is None:
            self._name = self.bundled_name
        else:
            self._name = f"onnx-{folder.resolve().name}"
        self._span = span
        self._max_stride = max_stride_tokens
        if windowed is None:
            windowed = self.windowed_by_default
        self._max_windows = max_windows if windowed else 1
        self._batch_size = batch_size
        self._threads = threads
        self._session: InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._dimension: int | None = None
        self._specials: tuple[int, int] | None = None
        self._query_pieces: QueryPieces | Literal[False] | None = None  # False: no table

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._run([[]]).shape[1])
        return self._dimension

    @property
    def model_hash(self) -> str:
        if self._tokenizer is not None:
            return model_hash(self._name, self._tokenizer.get_vocab_size())
        return model_hash(
            self._name, _vocab_size_without_loading(self._folder, self.known_vocab_sizes)
        )

    def embed(self, texts: list[str]) -> Vectors:
        """Average of each text's window vectors, L2-normalised; shape (len(texts), dimension)."""
        return self._embed(texts, self.passage_prefix)

    def _embed(self, texts: list[str], prefix: str) -> Vectors:
        """``embed`` with ``prefix`` tokens at the start of every window."""
        tokenizer = self._cold_query_tokenizer(texts, prefix)
        if tokenizer is None:
            self._load_both()
        else:
            self._loaded_session()
        import numpy as np  # not at module level: creating the engine must stay cheap

        windows = self._windows(texts, prefix, tokenizer)
        if windows:
            window_vectors = self._embed_windows(windows)
            sums = np.zeros((len(texts), window_vectors.shape[1]), dtype=np.float32)
            np.add.at(sums, [window.text_index for window in windows], window_vectors)
        else:
            sums = np.zeros((len(texts), self.dimension), dtype=np.float32)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        np.divide(sums, norms, out=sums, where=norms > 0)
        return sums

    def _cold_query_tokenizer(self, texts: list[str], prefix: str) -> TokenizerLike | None:
        """Before the full tokenizer is built, a short plain-ASCII question is tokenised by one
        of just the pieces it can use (embed/query_pieces.py), where the model ships their
        table: building the full one is the longest step of a cold multilingual query."""
        if self._tokenizer is not None or self.query_pieces_table is None:
            return None
        if self._query_pieces is None:
            from vaultctx.embed.query_pieces import QueryPieces

            table = self._folder / self.query_pieces_table
            self._query_pieces = QueryPieces.load(table, self._folder / "tokenizer.json") or False
        if self._query_pieces is False:
            return None
        try:
            tokenizer = self._query_pieces.tokenizer_for([prefix, *texts] if prefix else texts)
        except Exception:  # a damaged table (the library's own errors are plain Exceptions)
            self._query_pieces = False  # the full tokenizer then answers, as without a table
            return None
        if tokenizer is not None and self._specials is None:
            self._specials = self._special_ids_of(tokenizer)
        return tokenizer

    def _load_both(self) -> None:
        """The tokenizer and the session, loaded side by side the first time (embed/side_load.py):
        a cold query waits for the session only."""
        if self._session is not None or self._tokenizer is not None:
            return
        tokenizer = SideLoad(self._loaded_tokenizer, "vaultctx-onnx-tokenizer")
        try:
            self._loaded_session()
        finally:
            tokenizer.result()

    def _windows(
        self, texts: list[str], prefix: str = "", tokenizer: TokenizerLike | None = None
    ) -> list[_Window]:
        """A chunk is at most 2,000 characters; anything far longer is cut to what
        ``max_windows`` windows could read, so a stray megabyte costs milliseconds. A prefix
        is tokenised once and starts every window, so each window reads as the model expects."""
        char_limit = self._max_windows * self._span * MAX_CHARS_PER_TOKEN
        if tokenizer is None:
            tokenizer = self._loaded_tokenizer()
        lead = tokenizer.encode(prefix, add_special_tokens=False).ids if prefix else []
        span = max(1, self._span - len(lead))
        encodings = tokenizer.encode_batch_fast(
            [text[:char_limit] for text in texts], add_special_tokens=False
        )
        windows: list[_Window] = []
        for text_index, encoding in enumerate(encodings):
            ids = encoding.ids
            if not ids:
                continue
            starts = window_starts(len(ids), span, min(self._max_stride, span), self._max_windows)
            windows.extend(
                _Window(text_index, lead + ids[start : start + span]) for start in starts
            )
        return windows

    def _embed_windows(self, windows: list[_Window]) -> npt.NDArray[np.float32]:
        """Batches windows of similar length together so little compute is spent on padding."""
        import numpy as np

        order = sorted(range(len(windows)), key=lambda i: len(windows[i].token_ids))
        vectors: npt.NDArray[np.float32] | None = None
        for begin in range(0, len(order), self._batch_size):
            batch = order[begin : begin + self._batch_size]
            batch_vectors = self._run([windows[i].token_ids for i in batch])
            if vectors is None:
                # Sized from the first answer: asking ``dimension`` first would run the model
                # once more (on an empty window) before a cold query's only window.
                self._dimension = int(batch_vectors.shape[1])
                vectors = np.empty((len(windows), self._dimension), dtype=np.float32)
            vectors[batch] = batch_vectors
        assert vectors is not None  # callers pass at least one window
        return vectors

    def _run(self, token_lists: list[list[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        cls_id, sep_id = self._special_ids()
        width = max(len(ids) for ids in token_lists) + SPECIAL_TOKENS_PER_WINDOW
        input_ids = np.zeros((len(token_lists), width), dtype=np.int64)
        attention_mask = np.zeros_like(input_ids)
        for row, ids in enumerate(token_lists):
            length = len(ids) + SPECIAL_TOKENS_PER_WINDOW
            input_ids[row, :length] = [cls_id, *ids, sep_id]
            attention_mask[row, :length] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        (vectors,) = self._loaded_session().run([OUTPUT_NAME], feeds)
        result: npt.NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
        return result

    def _special_ids(self) -> tuple[int, int]:
        """[CLS] and [SEP] (or the model's own pair) wrap every window, as in training."""
        if self._specials is None:
            self._specials = self._special_ids_of(self._loaded_tokenizer())
        return self._specials

    def _special_ids_of(self, tokenizer: TokenizerLike) -> tuple[int, int]:
        first, last = self.special_tokens
        cls_id, sep_id = tokenizer.token_to_id(first), tokenizer.token_to_id(last)
        if cls_id is None or sep_id is None:
            raise ValueError(
                f"{self._folder / 'tokenizer.json'} has no {first}/{last}: not this model's"
            )
        return cls_id, sep_id

    def _loaded_tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
            # Windows are cut here, not by the tokenizer's own 128-token truncation.
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer

    def _loaded_session(self) -> InferenceSession:
        if self._session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            # 0 lets onnxruntime choose: one thread per physical core. One model call at a time,
            # so no inter-op parallelism; the arena and memory patterns keep their defaults
            # (input shapes vary per window, so a memory pattern is never reused anyway).
            options.intra_op_num_threads = self._threads or 0
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            # The graph is fused offline (scripts/build_models.py); ENABLE_ALL adds the
            # CPU-specific rewrites in memory at load. Nothing is written next to the model.
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            # Waiting worker threads sleep instead of spinning: a spinning thread burns a core
            # that the user's own work (and pass 1) needs; on 2 loaded cores this gave 40% more
            # chunks per CPU-second and more chunks per second too (docs/benchmarks.md).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(
                str(self._folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
        return self._session


def _vocab_size_without_loading(folder: Path, known_sizes: dict[str, int]) -> int:
    """The tokenizer's vocabulary size (added tokens included, as ``get_vocab_size`` counts it)
    without importing tokenizers and building the tokenizer, for a no-op index run and a cold
    query that only check the model hash: the bundled tokenizer is known by its digest (~1 ms),
    any other is counted from its JSON (~15 ms)."""
    data = (folder / "tokenizer.json").read_bytes()
    known = known_sizes.get(hashlib.blake2b(data, digest_size=16).hexdigest())
    return known if known is not None else parsed_vocab_size(folder, data)


def parsed_vocab_size(folder: Path, data: bytes) -> int:
    """The count from tokenizer.json itself: a token-to-id table (WordPiece) or a list of
    (piece, score) pairs (Unigram). Any other model type is counted by the tokenizer itself."""
    spec = json.loads(data.decode("utf-8"))
    vocab = spec.get("model", {}).get("vocab") if isinstance(spec, dict) else None
    added = {token.get("content") for token in (spec.get("added_tokens") or [])} if vocab else set()
    if isinstance(vocab, dict):
        return len(vocab.keys() | added)
    if isinstance(vocab, list) and all(isinstance(entry, list) and entry for entry in vocab):
        return len({entry[0] for entry in vocab} | added)
    from tokenizers import Tokenizer

    return int(Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size())
