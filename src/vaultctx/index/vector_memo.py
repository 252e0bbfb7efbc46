"""Vectors of texts already embedded in this index run, so a repeated chunk is embedded once.

Vaults repeat text: templates, copied notes, and versioned documentation above all. Of the
PowerShell docs' 130,470 chunks only 47,826 are distinct (each cmdlet page exists once per
Windows Server release, ~32k chunks apart), and embedding is ~40 % of a worker's CPU. A repeat
takes the vector its first occurrence got, byte for byte.

That is only the same as embedding it again when an engine's vector for a text does not depend
on the other texts of its batch: the static engine sums exact integers per text, but a
transformer pads a batch to its longest text, which can move a vector's last bits. So only
engines that declare ``batch_invariant = True`` are memoised.

The key is the SHA-256 of the exact text the engine sees, and the memo holds one model's vectors
(it forgets them all when another model's vectors are asked for): nothing it returns can belong
to other text or another model. It lives for one run (one per worker process, one in the
indexer's process) and holds at most ``MEMO_ENTRIES`` vectors, dropping the oldest first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import islice

# ~400 bytes an entry for a 256-dimension int8 vector (key, value, dict slot): ~13 MB at most.
# The PowerShell docs repeat a page's chunks ~32k chunks later in scan order, ~16k later within
# one of two workers: 32k entries catch 45 % of a worker's chunks (all repeats but 1 %), 24k
# catch 40 %, 16k only 29 %.
MEMO_ENTRIES = 32 * 1024


def memoisable(embedder: object) -> bool:
    """True for engines whose vector of a text is the same in any batch (see the docstring)."""
    return getattr(embedder, "batch_invariant", False) is True


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorMemo:
    """Stored vectors (int8 bytes, as written to the index) by model and text."""

    def __init__(self, capacity: int = MEMO_ENTRIES) -> None:
        self._capacity = capacity
        self._model: str | None = None
        self._vectors: dict[bytes, bytes] = {}

    def __len__(self) -> int:
        return len(self._vectors)

    def recall(self, model: str, keys: Sequence[bytes]) -> list[bytes | None]:
        """Each key's vector under ``model``, or None where it was not embedded yet."""
        found = self._for_model(model).get
        return [found(key) for key in keys]

    def remember(self, model: str, keys: Sequence[bytes], vectors: Sequence[bytes]) -> None:
        stored = self._for_model(model)
        stored.update(zip(keys, vectors, strict=True))
        excess = len(stored) - self._capacity
        if excess > 0:  # a dict keeps insertion order: its first keys are the oldest
            for key in list(islice(stored, excess)):
                del stored[key]

    def _for_model(self, model: str) -> dict[bytes, bytes]:
        if model != self._model:
            self._vectors.clear()
            self._model = model
        return self._vectors
