"""Which scrubber produced a text: the hash of the scrubber's own code and rules.

Search output is scrubbed again before it leaves (docs/reference.md#credential-scrubbing, defence
in depth), which cost ~5 ms of
a 25 ms query for text the indexer had already scrubbed. When every stored chunk was scrubbed by
this very scrubber, running it again cannot find anything, so the index records this fingerprint
and readers skip the second pass only when it matches; any change to the rules or the code makes
a new fingerprint, and output is scrubbed again until a full reindex.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_SOURCES = ("scrubber.py", "patterns.py", "gitleaks_rules.json")

# Model meta key of the fingerprint that scrubbed every stored chunk (absent or stale: unknown).
SCRUBBER_META = "scrubber"


@cache
def scrubber_fingerprint() -> str:
    folder = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()[:16]
