"""Index speed, memory and size on the PowerShell corpus (issue "Index core" targets).

Run: .venv/bin/python bench/index_scale.py
Prints one line per figure: full index seconds and files/s, peak RSS, database size against the
corpus's markdown bytes, per-phase seconds, no-op incremental, incremental after editing 100 files.
Each run is a real `vaultctx index` process, as a user would start it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import markdown_bytes, powershell_corpus

VAULTCTX = str(Path(sys.executable).with_name("vaultctx"))


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (Linux /proc), in MB."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
        pending.extend(int(child) for child in children)
    return total / 1024


def run_index(vault: Path, db: Path, *extra: str) -> tuple[float, dict[str, object], float]:
    """Wall seconds, the --json summary, and the peak summed RSS of the indexer and its workers."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [VAULTCTX, "index", "--vault", str(vault), "--db", str(db), "--json", "--fast", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, tree_rss_mb(process.pid))
        time.sleep(0.1)
    out, err = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"vaultctx index failed: {err}")
    return time.perf_counter() - started, json.loads(out), peak


def table_sizes(db: Path) -> list[tuple[str, int]]:
    """Bytes per table/index (SQLite's dbstat), largest first: where the database size goes."""
    import apsw

    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
        return [(str(name), int(size)) for name, size in rows]
    except apsw.SQLError:
        return []
    finally:
        conn.close()


def main() -> None:
    source = powershell_corpus()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        subprocess.run(["cp", "-r", str(source), str(vault)], check=True)
        db = Path(tmp) / "index.db"
        corpus_bytes = markdown_bytes(vault)

        # One worker first (the serial path), then the default (one worker process per core).
        (vault / "vaultctx.toml").write_text("index_workers = 1\n", encoding="utf-8")
        wall, summary, peak_mb = run_index(vault, db)
        print(f"full index, 1 process: {wall:.1f} s wall, peak RSS {peak_mb:.0f} MB")
        (vault / "vaultctx.toml").unlink()
        db.unlink()
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)

        wall, summary, peak_mb = run_index(vault, db)
        files = summary["files"]["added"]  # type: ignore[index]
        print(f"full index: {wall:.1f} s wall, {summary['seconds']} s in-process")
        print(
            f"full index files/s: {files / wall:.0f} ({files} files, "
            f"{summary['chunks']['written']} chunks)"
        )  # type: ignore[index]
        print(f"full index peak RSS (indexer + workers): {peak_mb:.0f} MB")
        db_bytes = sum(
            Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists()
        )
        print(
            f"database size: {db_bytes / 1e6:.1f} MB = {db_bytes / corpus_bytes:.2f} x corpus "
            f"markdown ({corpus_bytes / 1e6:.1f} MB)"
        )
        for name, size in table_sizes(db)[:8]:
            print(f"database part {name}: {size / 1e6:.1f} MB")
        for phase, seconds in summary["phase_seconds"].items():  # type: ignore[attr-defined]
            print(f"full index phase {phase}: {seconds:.2f} s")

        noops = [run_index(vault, db)[:2] for _ in range(5)]
        inside = sorted(float(summary["seconds"]) * 1000 for _, summary in noops)  # type: ignore[arg-type]
        walls = sorted(wall * 1000 for wall, _ in noops)
        print(
            f"no-op incremental (5 runs): median {inside[2]:.0f} ms in-process "
            f"(min {inside[0]:.0f}), {walls[2]:.0f} ms wall (process start included)"
        )

        edited = random.Random(7).sample(sorted(vault.rglob("*.md")), 100)
        for path in edited:
            with path.open("a", encoding="utf-8") as handle:
                handle.write("\n\nEdited for the incremental benchmark: quarterly review notes.\n")
        wall, summary, _ = run_index(vault, db)
        print(
            f"incremental after editing 100 files: {summary['seconds']:.2f} s in-process, "
            f"{wall:.2f} s wall ({summary['files']['changed']} changed, "  # type: ignore[index]
            f"{summary['chunks']['embedded']} chunks embedded, "  # type: ignore[index]
            f"{summary['chunks']['vectors_reused']} vectors reused)"
        )  # type: ignore[index]


if __name__ == "__main__":
    main()
