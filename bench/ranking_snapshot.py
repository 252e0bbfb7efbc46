"""Every ranking the quality benches see, written out so two trees can be compared byte for byte.

Run: PYTHONPATH=src:bench .venv/bin/python bench/ranking_snapshot.py OUT.jsonl [--fast]
     .venv/bin/python bench/ranking_snapshot.py --compare BEFORE.jsonl AFTER.jsonl

A refactor that says "behaviour unchanged" must leave every search result where it was. This
indexes each set into a fresh vault (or ``--workdir``, reused between runs), runs its queries in
every mode of ``bench/quality.py`` (and RRF fusion, and chunk-level results where a set has
sections), and writes one JSON line per query and per result: the rank, the note, the chunk, the
section, ``repr`` of the score (every bit of the float), the per-ranker ranks and a hash of the
text. The sets: BEIR SciFact and the Korean AutoRAG set from ``../shared/data`` (quality.py's
queries), the bundled ``examples/vault`` and Obsidian Help (each note's title and headings).
Which ``vaultctx`` answered goes to stderr, never into the file, so the files compare.
``--compare`` prints the first differing lines and exits 1 when the files differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpora import REPO, SHARED_DATA
from quality import MODES, build_vault, load_beir

# quality.py's modes, plus the other fusion rule; each set runs them all.
RUNS: dict[str, dict[str, Any]] = {**MODES, "hybrid-rrf": {"mode": "hybrid", "fusion": "rrf"}}
BEIR_SETS = ("beir-scifact", "ko-autorag-retrieval")
NOTE_SETS = {"example-vault": REPO / "examples" / "vault", "obsidian-help": None}
SETS = (*BEIR_SETS, *NOTE_SETS)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def note_queries(root: Path) -> dict[str, str]:
    """Each note's file name and headings outside code fences, by a parser of this file's own so
    the queries stay the same whichever tree is measured."""
    queries: dict[str, str] = {}
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        texts, fenced = [path.stem], False
        for line in path.read_text(encoding="utf-8").splitlines():
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and (heading := _HEADING.match(line)):
                texts.append(heading.group(1))
        for number, text in enumerate(dict.fromkeys(t for t in texts if t.strip())):
            queries[f"{rel}#{number}"] = text
    return queries


def result_line(rank: int, result: Any) -> dict[str, Any]:
    graph = result.graph
    return {
        "rank": rank,
        "path": result.file_path,
        "chunk": result.chunk_id,
        "section": result.section,
        "score": repr(result.score),
        "bm25_rank": result.bm25_rank,
        "vec_rank": result.vec_rank,
        "graph": None if graph is None else repr(graph),
        "text_sha1": hashlib.sha1(result.text.encode("utf-8")).hexdigest()[:16],
    }


def snapshot_lines(
    name: str, vault: Any, queries: dict[str, str], shapes: list[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """One line per (query, run) with what the response says besides its results, then one per
    result; runs in a fixed order, since a retriever ranks from memory from its third query on."""
    for label, options in RUNS.items():
        for shape in shapes:
            run = f"{label} limit={shape['limit']} notes={shape['notes']}"
            for qid, text in queries.items():
                response = vault.search(text, **shape, **options)
                yield {
                    "set": name,
                    "run": run,
                    "qid": qid,
                    "query": text,
                    "count": response.count,
                    "notices": response.notices,
                    "mocs": [repr(moc) for moc in response.related_mocs],
                }
                for rank, result in enumerate(response.results, start=1):
                    yield {"set": name, "run": run, "qid": qid, **result_line(rank, result)}


def prepare_set(name: str, workdir: Path) -> tuple[Path, dict[str, str], list[dict[str, Any]]]:
    """The set's vault (built or copied into ``workdir``), its queries and the result shapes."""
    if name in BEIR_SETS:
        corpus, queries, _ = load_beir(name)
        build_vault(corpus, workdir / "vault")
        deep = {"limit": 100, "max_tokens": 10**9, "notes": True}
        return workdir / "vault", queries, [{**deep, "limit": 10}, deep]
    source = NOTE_SETS[name] or SHARED_DATA / "obsidian-help" / "en"
    if not (workdir / "vault").exists():
        shutil.copytree(source, workdir / "vault")
    shapes = [{"limit": 10, "notes": False}, {"limit": 10, "notes": True}]
    return workdir / "vault", note_queries(workdir / "vault"), shapes


def write_snapshot(out: Path, sets: list[str], workdir: Path, *, fast: bool) -> None:
    import vaultctx
    from vaultctx.api import Vault

    print(f"vaultctx from {Path(vaultctx.__file__).parent}", file=sys.stderr)
    lines = 0
    with out.open("w", encoding="utf-8") as handle:
        for name in sets:
            started = time.perf_counter()
            root, queries, shapes = prepare_set(name, workdir / name)
            with Vault(root, db=workdir / name / "index.db") as vault:
                vault.index(fast=fast)
                # Vectors are ranked from memory from a retriever's third query on, loaded in the
                # background; until then sqlite-vec answers, whose scores differ in the last
                # rounded digit. Loaded before the first query, every run ranks the same way.
                vault.retriever().hold_vectors_in_memory(wait=True)
                indexed = time.perf_counter() - started
                for line in snapshot_lines(name, vault, queries, shapes):
                    handle.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                    lines += 1
            print(
                f"{name}: {len(queries)} queries, indexed in {indexed:.0f} s, "
                f"searched in {time.perf_counter() - started - indexed:.0f} s",
                file=sys.stderr,
            )
    print(f"{lines} lines written to {out}", file=sys.stderr)


def compare(before: Path, after: Path, shown: int = 10) -> int:
    """0 when the files are equal line for line; otherwise the first differences, and 1."""
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    differ = [i for i in range(max(len(old), len(new))) if old[i : i + 1] != new[i : i + 1]]
    queries = sum(1 for line in old if '"count":' in line)
    print(f"{len(old)} lines ({queries} query runs, {len(old) - queries} results) vs {len(new)}")
    for i in differ[:shown]:
        print(f"line {i + 1}:\n- {old[i] if i < len(old) else '(none)'}")
        print(f"+ {new[i] if i < len(new) else '(none)'}")
    print(f"{len(differ)} differing lines" if differ else "identical")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="the JSON lines file to write")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--fast", action="store_true", help="pass 1 only (static vectors)")
    parser.add_argument(
        "--workdir", type=Path, help="keep the vaults and indexes here (default: a fresh temp dir)"
    )
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    if args.out is None:
        parser.error("give the file to write, or --compare BEFORE AFTER")
    if args.workdir is not None:
        write_snapshot(args.out, args.sets, args.workdir, fast=args.fast)
        return
    with tempfile.TemporaryDirectory(prefix="ranking-snapshot-") as temp:
        write_snapshot(args.out, args.sets, Path(temp), fast=args.fast)


if __name__ == "__main__":
    main()
