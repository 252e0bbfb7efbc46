"""The server's last scrub of every string it sends, remembered for the strings it sees again.

A search result is scrubbed once more as it leaves the server (mcp/server.py): every field of
the structured result, then the whole text the model reads. On a busy server that was ~1/6 of
the interpreter lock under 20 HTTP clients (docs/benchmarks.md): some 50 strings and 12,000
characters per search, and the same passages, paths and titles come back in answer after
answer. ``scrub_secrets`` depends on its text alone (the rule set is compiled once per process
and never changes), so the text it returned once is the text it would return again: remembering
it changes no answer, and every string still goes through the scrubber the first time.

The memory is bounded by characters, not entries (a passage is a few hundred characters, a whole
answer several thousand): ``BUDGET_CHARS`` in all, least recently used first out, and a string
longer than ``LONGEST_CHARS`` is scrubbed every time and never kept, so a server's memory stays
flat however many distinct answers it gives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from vaultctx.scrub import scrub_secrets

# ~4-16 MB of text at most (1-4 bytes a character), against a server of ~500 MB.
BUDGET_CHARS = 4_000_000
LONGEST_CHARS = 100_000


class ScrubMemory:
    """``scrubbed(text)`` is ``scrub_secrets(text).text``, remembered within a character budget.
    Safe to share between threads: two that miss on one text both scrub it (the same result)."""

    def __init__(
        self, budget_chars: int = BUDGET_CHARS, longest_chars: int = LONGEST_CHARS
    ) -> None:
        self._budget = budget_chars
        self._longest = min(longest_chars, budget_chars // 2)
        self._held: OrderedDict[str, str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def scrubbed(self, text: str) -> str:
        with self._lock:
            known = self._held.get(text)
            if known is not None:
                self._held.move_to_end(text)
                return known
        clean = scrub_secrets(text).text
        if len(text) <= self._longest:
            self._keep(text, clean)
        return clean

    def _keep(self, text: str, clean: str) -> None:
        size = _size(text, clean)
        with self._lock:
            if text in self._held:
                return
            self._held[text] = clean
            self._chars += size
            while self._chars > self._budget:
                old, old_clean = self._held.popitem(last=False)
                self._chars -= _size(old, old_clean)

    @property
    def chars(self) -> int:
        """Characters held (each text, and its scrubbed text when that differs)."""
        with self._lock:
            return self._chars

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)


def _size(text: str, clean: str) -> int:
    """Characters a kept pair holds: most texts have nothing to redact and are their own result."""
    return len(text) if clean is text else len(text) + len(clean)
