"""A reader process for the killed-indexer tests: searches the index in a loop until a stop file
appears, then writes how many searches answered and every error, as JSON, to an output file.

Run as ``python -m tests.postgres.search_loop VAULT DB STOP OUT`` (DB: a file or a URL)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from vaultctx.api import Vault

QUERIES = ("lighthouse keeper", "tide table", "storm log", "harbour lamp oil")


def main() -> None:
    vault, db, stop, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    answered, errors = 0, []
    n = 0
    while not stop.exists():
        query = QUERIES[n % len(QUERIES)]
        n += 1
        try:
            with Vault(Path(vault), db=db) as reader:  # a fresh handle: a reader that starts now
                reader.search(query, limit=5, mode="bm25")
            answered += 1
        except Exception as exc:  # the test asserts there are none, whatever they are
            errors.append(f"{type(exc).__name__}: {exc}")
        time.sleep(0.05)
    out.write_text(json.dumps({"answered": answered, "errors": errors}))


if __name__ == "__main__":
    main()
