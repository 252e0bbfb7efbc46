"""Do two trees build the same index of a vault? (a check for indexer speed work)

Run: .venv/bin/python bench/index_equal.py --old <src of the old tree> [--new <src>]
     --vault <folder> [--workers N]

Indexes the vault (`vaultctx index --fast --full`) once with each tree, then compares what a
reader can see, ignoring only timestamps: every file row (path, hash, title, front matter,
tags, aliases, problems), every chunk (file, ordinal, section, heading path, context, text hash,
text after decompression), the tags and links tables, every static vector (bytes), the chunk ids
that each of a set of BM25 queries returns (FTS5 `MATCH`, ranked), and the secrets count. Prints
one line per comparison and exits 1 if anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import apsw

# `python -m vaultctx`, not the venv's `vaultctx` script: that script imports the entry point of
# whichever tree was installed, and each run here must use only the tree on PYTHONPATH.
VAULTCTX = [sys.executable, "-m", "vaultctx"]
QUERIES = (
    "get help",
    "execution policy",
    "remote session credential",
    "module manifest",
    "pipeline object property",
    "registry key",
    "error action preference",
    "install windows feature",
    "note link",
    "password",
    "vault",
    "markdown table",
)


def build(src: Path, vault: Path, db: Path) -> dict[str, Any]:
    done = subprocess.run(
        [*VAULTCTX, "index", "--vault", str(vault), "--db", str(db), "--json", "--fast", "--full"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(src)},
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"vaultctx index failed ({src}): {done.stderr}")
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def contents(db: Path) -> dict[str, list[Any]]:
    import sqlite_vec

    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    try:
        out: dict[str, list[Any]] = {
            "files": list(
                conn.execute(
                    "SELECT id, path, mtime_ns, size, content_hash, title, type, status, "
                    "front_matter, tags, aliases, problems FROM files ORDER BY id"
                )
            ),
            "chunks": [
                (*row[:-1], zlib.decompress(row[-1]).decode("utf-8"))
                for row in conn.execute(
                    "SELECT id, file_id, ordinal, section, heading_path, heading_context, "
                    "text_hash, mtime_ns, embedded_at IS NULL, body FROM chunks ORDER BY id"
                )
            ],
            "file_tags": sorted(conn.execute("SELECT file_id, tag FROM file_tags")),
            "links": sorted(
                conn.execute(
                    "SELECT file_id, target, coalesce(heading, ''), coalesce(block, ''), "
                    "coalesce(alias, ''), kind, line FROM links"
                )
            ),
            "vectors": list(conn.execute("SELECT rowid, embedding FROM chunk_vecs ORDER BY rowid")),
            "bm25": [
                list(
                    conn.execute(
                        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
                        "ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.3), rowid LIMIT 50",
                        (" OR ".join(query.split()),),
                    )
                )
                for query in QUERIES
            ],
        }
        return out
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="src folder of the old tree")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--workers", type=int, help="index_workers (default: the vault's own)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        subprocess.run(["cp", "-r", str(args.vault), str(vault)], check=True)
        if args.workers is not None:
            (vault / "vaultctx.toml").write_text(f"index_workers = {args.workers}\n")
        results = {}
        for name, src in (("old", args.old), ("new", args.new)):
            db = Path(tmp) / f"{name}.db"
            summary = build(src.resolve(), vault, db)
            results[name] = (summary, contents(db))
    (old_summary, old), (new_summary, new) = results["old"], results["new"]
    same = True
    for table in old:
        equal = old[table] == new[table]
        same = same and equal
        rows = sum(map(len, old[table])) if table == "bm25" else len(old[table])
        print(f"{table}: {rows} rows, identical: {equal}")
    for key in ("secrets_redacted", "files", "chunks"):
        equal = old_summary[key] == new_summary[key]
        same = same and equal
        print(f"summary {key}: identical: {equal}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
