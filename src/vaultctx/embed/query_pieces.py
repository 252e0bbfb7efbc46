"""A Unigram tokenizer for a few short plain-ASCII texts, built from only the pieces they can use.

Building multilingual e5's full tokenizer means constructing a Unigram model of 71,443 pieces:
100-150 ms of CPU, holding the GIL the whole time, so nothing else of a cold search runs
meanwhile (docs/benchmarks.md, "Cold search, session 14"). A question's segmentation only ever
uses pieces that are substrings of its own pre-tokenised text, though: a tokenizer of just those
pieces (plus the special tokens and the lowest-scored piece, which sets the unknown-token score)
finds the same best segmentation, and maps back to the full vocabulary's ids. The tokenizers
library itself segments, with the model's own normaliser and pre-tokeniser, so the rules are
the library's, not a copy of them.

The candidates come from ``query_pieces.tsv`` beside the bundled model, derived from its
tokenizer.json (``table_text``; ``scripts/build_query_pieces.py`` writes it, a test keeps it
equal): every piece made of printable ASCII and the metaspace ``▁``, sorted, so a piece is found
by bisection without parsing 2.6 MB of JSON. The table names the digest of the tokenizer.json it
was derived from; any other tokenizer.json, or a text holding anything but printable ASCII and
spaces, gets the full tokenizer.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tokenizers import Tokenizer

TABLE_NAME = "query_pieces.tsv"
HEADER = "vaultctx query pieces v1"
METASPACE = "\u2581"
VOCAB_KEY = b'"vocab": ['
VOCAB_END = b"]]"
# Only short texts: a question, and the prefix e5 puts before it. A longer text (a passage being
# indexed) gets the full tokenizer, built once for all of them.
MAX_TEXT_CHARS = 512
PRINTABLE = frozenset(chr(code) for code in range(0x20, 0x7F))  # the space included


class _Ids(NamedTuple):
    ids: list[int]


class TokenizerLike(Protocol):
    """What the ONNX engine asks of a tokenizer (the library's ``Tokenizer`` has all three)."""

    def encode(self, sequence: str, *, add_special_tokens: bool = ...) -> Any: ...

    def encode_batch_fast(self, inputs: list[str], *, add_special_tokens: bool = ...) -> Any: ...

    def token_to_id(self, token: str) -> int | None: ...


@dataclass(frozen=True)
class SubsetTokenizer:
    """A tokenizer of a vocabulary subset whose ids are mapped back to the full vocabulary's."""

    tokenizer: Tokenizer
    full_ids: list[int]  # the full vocabulary's id of each subset id

    def encode(self, sequence: str, *, add_special_tokens: bool = False) -> _Ids:
        return self.encode_batch_fast([sequence], add_special_tokens=add_special_tokens)[0]

    def encode_batch_fast(
        self, inputs: list[str], *, add_special_tokens: bool = False
    ) -> list[_Ids]:
        encodings = self.tokenizer.encode_batch_fast(inputs, add_special_tokens=add_special_tokens)
        return [_Ids([self.full_ids[i] for i in encoding.ids]) for encoding in encodings]

    def token_to_id(self, token: str) -> int | None:
        subset_id = self.tokenizer.token_to_id(token)
        return None if subset_id is None else self.full_ids[subset_id]


class QueryPieces:
    """The pieces table of one tokenizer.json, read once; ``tokenizer_for`` per set of texts."""

    def __init__(
        self, head: str, tail: str, fixed: list[str], rows: list[str], longest: int
    ) -> None:
        self._head = head  # tokenizer.json up to its vocabulary list
        self._tail = tail  # and after it
        self._fixed = fixed  # rows always kept: the special tokens and the lowest score
        self._rows = rows  # "piece\tid\tscore", sorted
        self._longest = longest  # characters in the longest piece of ``rows``
        self._special = [row.split("\t", 1)[0] for row in fixed]

    @classmethod
    def load(cls, table_file: Path, tokenizer_file: Path) -> QueryPieces | None:
        """The table of ``tokenizer_file``, or None when there is none or it was derived from
        another tokenizer.json (then only the full tokenizer is right)."""
        try:
            table = table_file.read_text(encoding="utf-8")
            data = tokenizer_file.read_bytes()
        except OSError:
            return None
        header, _, rest = table.partition("\n")
        fixed, _, rows = rest.partition("\n\n")
        name, _, longest = header.rpartition(" ")
        if name != f"{HEADER} {_digest(data)}" or not fixed or not longest.isdigit():
            return None
        start, end = data.find(VOCAB_KEY), data.rfind(VOCAB_END)
        if start < 0 or end < start:
            return None
        head = data[: start + len(VOCAB_KEY) - 1].decode("utf-8")
        tail = data[end + len(VOCAB_END) :].decode("utf-8")
        rows = rows.rstrip("\n")
        return cls(head, tail, fixed.split("\n"), rows.split("\n") if rows else [], int(longest))

    def tokenizer_for(self, texts: Sequence[str]) -> SubsetTokenizer | None:
        """A tokenizer giving the full tokenizer's ids for ``texts`` (any other text may differ);
        None when a text is too long, holds anything but printable ASCII, or holds a special
        token (``<s>``)."""
        if any(len(text) > MAX_TEXT_CHARS or not PRINTABLE.issuperset(text) for text in texts):
            return None
        if any(piece in text for piece in self._special for text in texts):
            return None  # split off before the model: the pieces after it start a new word
        rows = dict.fromkeys(self._fixed)
        for text in texts:
            for piece in self._candidates(text):
                if (row := self._row(piece)) is not None:
                    rows[row] = None
        vocab: list[tuple[str, float]] = []
        full_ids: list[int] = []
        for row in rows:
            piece, full_id, score = row.split("\t")
            vocab.append((piece, float(score)))
            full_ids.append(int(full_id))
        from tokenizers import Tokenizer

        spec = f"{self._head}{json.dumps(vocab, ensure_ascii=False)}{self._tail}"
        return SubsetTokenizer(Tokenizer.from_str(spec), full_ids)

    def _candidates(self, text: str) -> set[str]:
        """Every substring (up to the longest piece) of the text as the pre-tokeniser sees it:
        spaces become ``▁`` and one leads. Substrings across words are harmless extras."""
        marked = METASPACE + METASPACE.join(text.split(" "))
        longest = self._longest
        return {
            marked[start:stop]
            for start in range(len(marked))
            for stop in range(start + 1, min(len(marked), start + longest) + 1)
        }

    def _row(self, piece: str) -> str | None:
        key = piece + "\t"
        at = bisect.bisect_left(self._rows, key)
        if at < len(self._rows) and self._rows[at].startswith(key):
            return self._rows[at]
        return None


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def table_text(data: bytes) -> str:
    """The pieces table of a Unigram tokenizer.json (its bytes): the header naming the file's
    digest and the longest listed piece's length; the rows always kept, in id order (the added
    special tokens, which must be the first ids, and the lowest-scored piece, which sets the
    unknown token's score); a blank line; then every piece of printable ASCII and ``▁``,
    sorted. Scores are written as Python's shortest round-trip form of the same double."""
    spec = json.loads(data.decode("utf-8"))
    model = spec["model"]
    if model.get("type") != "Unigram":
        raise ValueError("a pieces table is for Unigram tokenizers only")
    vocab = [(str(piece), float(score)) for piece, score in model["vocab"]]
    special = {int(token["id"]) for token in spec.get("added_tokens") or []}
    lowest = min(range(len(vocab)), key=lambda i: vocab[i][1])
    fixed = sorted(special | {lowest})
    allowed = PRINTABLE - {" "} | {METASPACE}
    kept = [
        (piece, i, score)
        for i, (piece, score) in enumerate(vocab)
        if piece and allowed.issuperset(piece) and i not in special
    ]
    rows = sorted(f"{piece}\t{i}\t{score!r}" for piece, i, score in kept)
    longest = max((len(piece) for piece, _, _ in kept), default=0)
    lines = [f"{HEADER} {_digest(data)} {longest}"]
    lines += [f"{vocab[i][0]}\t{i}\t{vocab[i][1]!r}" for i in fixed]
    return "\n".join([*lines, "", *rows]) + "\n"
