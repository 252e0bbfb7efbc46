"""The static engine's loaded model: the token-vector table, the tokenizer and the pooling.

Split from ``static`` so that creating a ``StaticEmbedder`` (name, dimension, model hash: all a
no-op index run or a keyword search needs) imports neither numpy nor tokenizers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vaultctx.embed.ascii_wordpiece import AsciiWordPiece
from vaultctx.embed.base import Vectors

if TYPE_CHECKING:
    from tokenizers import Tokenizer

DEFAULT_MAX_TOKENS = 512  # Model2Vec's default truncation
# Python's str.split() treats these as whitespace; BERT's normaliser deletes them instead (they
# are control characters), joining the words on either side. Texts holding one are tokenised
# whole, so splitting on whitespace never changes a token.
_SPLITS_UNLIKE_BERT = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
# The cache is emptied when its words and ids would pass this many bytes (an estimate).
WORD_CACHE_BYTES = 48 * 1024 * 1024


class LoadedModel:
    """Token vectors (one row per token id) plus what pooling needs."""

    def __init__(
        self,
        folder: Path,
        config: dict[str, Any],
        read_tokenizer: Callable[[], Tokenizer] | None = None,
    ) -> None:
        """``read_tokenizer`` hands over the folder's tokenizer when the caller reads it in a
        thread meanwhile (embed/side_load.py); by default it is read here."""
        from tokenizers import Tokenizer

        from vaultctx.embed.safetensors_file import load_safetensors

        tensors = load_safetensors(folder / "model.safetensors")
        table = tensors["embeddings"]
        mapping = tensors.get("mapping")
        if mapping is not None:  # vocabulary-reduced models map token ids to rows
            table = table[np.asarray(mapping, dtype=np.int64)]
        weights = tensors.get("weights")
        if weights is not None:
            table = table.astype(np.float32) * np.asarray(weights, dtype=np.float32)[:, None]
        # An int8 table stays int8 and is summed exactly in float32 (512 × 127 < 2**24):
        # gathering a quarter of the bytes is what makes pooling fast (~200 tokens per chunk).
        self.table = table if table.dtype == np.int8 else table.astype(np.float32)
        self.tokenizer: Tokenizer = (
            read_tokenizer()
            if read_tokenizer is not None
            else Tokenizer.from_file(str(folder / "tokenizer.json"))
        )
        self.tokenizer.no_padding()
        max_tokens = config.get("max_length", DEFAULT_MAX_TOKENS)
        self.max_tokens = int(max_tokens) if max_tokens else None
        if self.max_tokens:
            self.tokenizer.enable_truncation(self.max_tokens)
        vocab = self.tokenizer.get_vocab()
        self.unk_id: int | None = _unknown_token_id(self.tokenizer)
        if self.unk_id is not None:
            # Model2Vec drops unknown tokens after truncating; a zero row adds nothing to the
            # sum, and the count it would add to the mean vanishes when the vector is normalised.
            self.table = self.table.copy()
            self.table[self.unk_id] = 0
        by_word = _splits_on_whitespace(self.tokenizer)
        self.words = _WordTokens(
            self.tokenizer,
            self.max_tokens,
            by_word,
            AsciiWordPiece.for_tokenizer(self.tokenizer, vocab) if by_word else None,
        )
        # Model2Vec cuts texts to max_tokens × the median token length before tokenising.
        self.max_chars = (
            self.max_tokens * int(np.median([len(t) for t in vocab])) if self.max_tokens else None
        )

    def embed(self, texts: list[str]) -> Vectors:
        if self.max_chars is not None:
            texts = [text[: self.max_chars] for text in texts]
        ids, lengths = self.words.token_ids(texts)
        rows = self.table[ids]
        sums = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        # One reduce per text: numpy's reduceat along axis 0 was 3× slower than this loop.
        stops = np.cumsum(lengths).tolist()
        for i, (start, stop) in enumerate(pairwise([0, *stops])):
            if stop > start:
                np.add.reduce(rows[start:stop], axis=0, dtype=np.float32, out=sums[i])
        # The mean's scale vanishes in normalisation; dividing by the count is left out.
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        np.divide(sums, norms, out=sums, where=norms > 0)
        return sums


class _WordTokens:
    """Tokenises each distinct whitespace-separated word once and reuses its token ids.

    A BERT-style tokenizer treats every whitespace-separated word on its own: it normalises
    character by character, splits on whitespace and punctuation, and runs WordPiece per piece.
    So a text's tokens are its words' tokens in order, and a vault repeats its words: the Rust
    tokenizer, at ~2,600 chunks/s per core, was most of the indexing CPU. Tokenisers that look
    across whitespace (SentencePiece, byte-level BPE) are tokenised whole, text by text.

    Known words live in flat numpy arrays (each word's ids at ``_starts[w]:+_lengths[w]`` of
    ``_ids``), so a batch is assembled by array indexing rather than a Python loop per word.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        max_tokens: int | None,
        by_word: bool,
        ascii_words: AsciiWordPiece | None = None,
    ) -> None:
        self._tokenizer = tokenizer
        self._max_tokens = max_tokens
        self._by_word = by_word
        self._ascii_words = ascii_words
        self._number: dict[str, int] = {}  # word -> its entry in the arrays below
        self._starts = np.zeros(1024, dtype=np.int64)
        self._lengths = np.zeros(1024, dtype=np.int64)
        self._ids = np.zeros(1 << 16, dtype=np.int64)
        self._entries = 0
        self._used_ids = 0
        self._cache_bytes = 0

    def token_ids(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """All texts' token ids, concatenated, and each text's count (after truncation)."""
        if self._cache_bytes > WORD_CACHE_BYTES:  # before lookups, so no word goes missing
            self._number.clear()
            self._entries = self._used_ids = self._cache_bytes = 0
        words_of = [
            text.split() if self._by_word and not _SPLITS_UNLIKE_BERT.search(text) else None
            for text in texts
        ]
        words = list(chain.from_iterable(w for w in words_of if w is not None))
        missing = list(set(words).difference(self._number))
        if missing:
            first = self._store(self._encode_words(missing))
            self._number.update(zip(missing, range(first, first + len(missing)), strict=True))
        numbers = np.fromiter(map(self._number.__getitem__, words), np.int64, count=len(words))
        whole = [i for i, w in enumerate(words_of) if w is None]
        if whole:  # stored as one-off entries, each standing for its whole text
            first = self._store(self._encode([texts[i] for i in whole]))
            numbers = _spliced(numbers, words_of, range(first, first + len(whole)))
        per_text = np.fromiter((1 if w is None else len(w) for w in words_of), np.int64, len(texts))
        return self._gather(numbers, per_text)

    def _gather(self, numbers: np.ndarray, per_text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ids of entries ``numbers`` in order, ``per_text`` entries per text, each text cut
        to its first ``max_tokens`` ids."""
        lengths = self._lengths[numbers]
        token_end = np.cumsum(lengths)
        total = int(token_end[-1]) if token_end.size else 0
        # Position in _ids of the batch's k-th token: its entry's start plus its offset within.
        shift = self._starts[numbers] - (token_end - lengths)
        ids = self._ids[np.repeat(shift, lengths) + np.arange(total)]
        entry_end = np.cumsum(per_text)
        text_end = np.concatenate(([0], token_end))[entry_end]
        text_start = np.concatenate(([0], text_end[:-1]))
        counts = text_end - text_start
        if self._max_tokens is not None and counts.size and counts.max() > self._max_tokens:
            offset = np.arange(total) - np.repeat(text_start, counts)
            ids = ids[offset < self._max_tokens]
            counts = np.minimum(counts, self._max_tokens)
        return ids, counts

    def _store(self, encoded: list[list[int]]) -> int:
        """Appends entries; returns the number of the first."""
        lengths = np.fromiter(map(len, encoded), np.int64, count=len(encoded))
        first, stop = self._entries, self._entries + len(encoded)
        added = int(lengths.sum())
        self._starts = _room(self._starts, stop)
        self._lengths = _room(self._lengths, stop)
        self._ids = _room(self._ids, self._used_ids + added)
        self._starts[first:stop] = self._used_ids + np.cumsum(lengths) - lengths
        self._lengths[first:stop] = lengths
        self._ids[self._used_ids : self._used_ids + added] = np.fromiter(
            chain.from_iterable(encoded), np.int64, count=added
        )
        self._entries, self._used_ids = stop, self._used_ids + added
        self._cache_bytes += 8 * added + 100 * len(encoded)
        return first

    def _encode(self, texts: list[str]) -> list[list[int]]:
        encodings = self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        return [encoding.ids for encoding in encodings]

    def _encode_words(self, words: list[str]) -> list[list[int]]:
        """Plain ASCII words through the Python WordPiece (``ascii_wordpiece``), the rest
        through the library in one batch."""
        if self._ascii_words is None:
            return self._encode(words)
        fast = self._ascii_words.ids
        encoded = [fast(word) for word in words]
        rest = [word for word, ids in zip(words, encoded, strict=True) if ids is None]
        library = iter(self._encode(rest) if rest else [])
        return [next(library) if ids is None else ids for ids in encoded]


def _room(array: np.ndarray, size: int) -> np.ndarray:
    """``array`` with room for ``size`` items, doubled when it must grow."""
    if size <= array.size:
        return array
    grown = np.zeros(max(size, 2 * array.size), dtype=array.dtype)
    grown[: array.size] = array
    return grown


def _spliced(numbers: np.ndarray, words_of: list[list[str] | None], extra: range) -> np.ndarray:
    """``numbers`` (the entries of every split text's words) with each whole text's one entry
    put at its place between them."""
    parts, at, extras = [], 0, iter(extra)
    for words in words_of:
        if words is None:
            parts.append(np.array([next(extras)], dtype=np.int64))
        else:
            parts.append(numbers[at : at + len(words)])
            at += len(words)
    return np.concatenate(parts) if parts else numbers


def _splits_on_whitespace(tokenizer: Tokenizer) -> bool:
    """True for the BERT normaliser and pre-tokenizer (WordPiece models such as MiniLM's).
    Read off the loaded tokenizer: parsing tokenizer.json again cost ~23 ms per cold query."""
    added = (token.content for token in tokenizer.get_added_tokens_decoder().values())
    return (
        type(tokenizer.normalizer).__name__ == "BertNormalizer"
        and type(tokenizer.pre_tokenizer).__name__
        in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit")
        and not any(char.isspace() for content in added for char in content)
    )


def _unknown_token_id(tokenizer: Tokenizer) -> int | None:
    """As Model2Vec decides it: WordPiece, BPE and word-level models name their unk token;
    only a Unigram model needs its serialised form read (for ``unk_id``)."""
    model = tokenizer.model
    if hasattr(model, "unk_token"):
        token = model.unk_token
        return None if token is None else tokenizer.token_to_id(token)
    unk_id = json.loads(tokenizer.to_str())["model"].get("unk_id")
    return unk_id if isinstance(unk_id, int) else None
