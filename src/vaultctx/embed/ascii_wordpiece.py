"""WordPiece for plain ASCII words in Python, giving the same ids as the tokenizers library.

The static engine tokenises each distinct word of a vault once (``static_model._WordTokens``),
and that first encounter was the largest part of embedding: the Rust tokenizer spends ~15 µs on
a single word (normalising with offsets, pre-tokenising, building an ``Encoding``), and a worker
meets ~20 new words per chunk early in a run. For a printable-ASCII word the BERT pipeline
reduces to: lowercase, split off each punctuation character (every printable ASCII character
that is not a letter or digit is punctuation to BERT), then greedy longest-match WordPiece per
piece. Done here with a cache per piece, it costs ~2 µs per word.

Only a tokenizer exactly of that shape gets this path (``for_tokenizer`` checks it; anything
else, and any other word, goes to the library), and words holding an added token (``[UNK]`` in
a note is matched before normalisation) are left to the library too.
tests/embed/test_ascii_wordpiece.py compares both on generated words and a vault's vocabulary.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# A longer "word" (a minified line, base64) goes to the library. URLs are common words in notes
# and split into short pieces; a piece's greedy match is quadratic in its length, but pieces over
# the model's ``max_input_chars_per_word`` (100) are one unknown token without matching.
MAX_WORD_CHARS = 1024
# The piece cache is dropped when it grows past this many pieces (~100 bytes each).
MAX_CACHED_PIECES = 200_000
_PIECES = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
_PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))  # no space, no control


class AsciiWordPiece:
    def __init__(
        self,
        vocab: dict[str, int],
        *,
        unk_id: int,
        prefix: str,
        max_piece_chars: int,
        lowercase: bool,
        reserved: tuple[str, ...],
    ) -> None:
        self._vocab = vocab
        self._unk = [unk_id]
        self._prefix = prefix
        self._max_piece_chars = max_piece_chars
        self._lowercase = lowercase
        tokens = [re.escape(token) for token in reserved if token]
        self._reserved = re.compile("|".join(tokens)) if tokens else None
        self._word = re.compile(f"[{re.escape(_PRINTABLE)}]{{1,{MAX_WORD_CHARS}}}")
        self._pieces: dict[str, list[int]] = {}
        # No token is longer than these, so a match is never tried from further away: the
        # greedy search costs at most this many lookups per token found, not the piece's length.
        self._longest = max((len(token) for token in vocab), default=0)
        self._longest_suffix = max(
            (len(token) - len(prefix) for token in vocab if token.startswith(prefix)), default=0
        )

    @classmethod
    def for_tokenizer(cls, tokenizer: Tokenizer, vocab: dict[str, int]) -> AsciiWordPiece | None:
        """The fast path for a BERT-style WordPiece tokenizer, or None for any other shape."""
        normalizer, pre_tokenizer, model = (
            tokenizer.normalizer,
            tokenizer.pre_tokenizer,
            tokenizer.model,
        )
        if (
            type(normalizer).__name__ != "BertNormalizer"
            or type(pre_tokenizer).__name__ != "BertPreTokenizer"
            or type(model).__name__ != "WordPiece"
        ):
            return None
        unk_id = vocab.get(model.unk_token)
        if unk_id is None:
            return None
        added = [token.content for token in tokenizer.get_added_tokens_decoder().values()]
        return cls(
            vocab,
            unk_id=unk_id,
            prefix=str(model.continuing_subword_prefix),
            max_piece_chars=int(model.max_input_chars_per_word),
            lowercase=bool(normalizer.lowercase),
            reserved=tuple(added),
        )

    def ids(self, word: str) -> list[int] | None:
        """The word's token ids, or None when the library must tokenise it."""
        if self._word.fullmatch(word) is None:
            return None
        if self._reserved is not None and self._reserved.search(word) is not None:
            return None
        if self._lowercase:
            word = word.lower()
        cache = self._pieces
        if len(cache) > MAX_CACHED_PIECES:
            cache.clear()
        ids: list[int] = []
        for piece in _PIECES.findall(word):
            known = cache.get(piece)
            if known is None:
                known = cache[piece] = self._wordpiece(piece)
            ids += known
        return ids

    def _wordpiece(self, piece: str) -> list[int]:
        """Greedy longest match first, as the library's WordPiece model: a piece that cannot be
        covered, or is longer than ``max_piece_chars``, is one unknown token."""
        if len(piece) > self._max_piece_chars:
            return self._unk
        vocab, prefix = self._vocab, self._prefix
        ids: list[int] = []
        start = 0
        while start < len(piece):
            end = min(len(piece), start + (self._longest_suffix if start else self._longest))
            while end > start:
                found = vocab.get(piece[start:end] if start == 0 else prefix + piece[start:end])
                if found is not None:
                    ids.append(found)
                    break
                end -= 1
            else:
                return self._unk
            start = end
        return ids


__all__ = ["MAX_WORD_CHARS", "AsciiWordPiece"]
