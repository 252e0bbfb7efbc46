"""Wall time per indexing phase, so a slow run says where its time went.

Its own module: the indexer times the scan of a no-op run without importing file preparation.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def timed(phases: dict[str, float], phase: str) -> Iterator[None]:
    """Accumulate wall time per phase into ``phases``."""
    started = time.perf_counter()
    try:
        yield
    finally:
        phases[phase] = phases.get(phase, 0.0) + time.perf_counter() - started
