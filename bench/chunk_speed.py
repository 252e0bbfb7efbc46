"""Chunker throughput on the PowerShell docs corpus (docs/reference.md#chunking; budget: < 0.3 ms
per average file).

The indexer must do about 350 files/s end to end on a 14k-file vault, so chunking has to be a small
slice of that. Files are read into memory first; only `chunk_text` is timed.

    PYTHONPATH=src .venv/bin/python bench/chunk_speed.py [--compare-markdown-it]

`--compare-markdown-it` also times the fence-aware line scan the chunker uses against a
markdown-it-py block parse of the same bodies: the reason the chunker does not use markdown-it.
Measured on a busy shared 2-core box (CPU time per file): chunk_text 0.19-0.21 ms, line scan
0.09-0.11 ms, markdown-it-py block parse 1.1-1.7 ms (2.5 ms with inline parsing on).
"""

from __future__ import annotations

import argparse
import statistics
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from vaultctx.vault.chunker import chunk_text
from vaultctx.vault.markdown_blocks import outline

CORPUS = (
    Path(__file__).resolve().parents[1]
    / ".."
    / "shared"
    / "data"
    / "md-corpus-windows-powershell-docs"
    / "windows-powershell-docs.tar.gz"
).resolve()


def strip_front_matter(text: str) -> str:
    """Crude on purpose: the real reader parses YAML; here we only keep it out of the body."""
    if text.startswith("---\n"):
        close = text.find("\n---", 4)
        if close != -1:
            return text[text.find("\n", close + 4) + 1 :] if "\n" in text[close + 4 :] else ""
    return text


def load_bodies(archive: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as folder, tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
        paths = sorted(Path(folder).rglob("*.md"))
        return [strip_front_matter(p.read_text(encoding="utf-8")) for p in paths]


def time_per_file(bodies: list[str], work: Callable[[str], object]) -> tuple[list[float], float]:
    """Wall time of each call, plus the process CPU time of the whole run.

    CPU time is the steadier number on a shared machine, where other processes stretch wall time.
    """
    timings = []
    cpu_started = time.process_time()
    for body in bodies:
        started = time.perf_counter()
        work(body)
        timings.append(time.perf_counter() - started)
    return timings, time.process_time() - cpu_started


def report(label: str, measured: tuple[list[float], float]) -> None:
    timings, cpu = measured
    wall = sum(timings)
    ordered = sorted(timings)
    p99 = ordered[int(len(ordered) * 0.99)]
    print(
        f"{label}: {len(timings) / wall:,.0f} files/s, {wall / len(timings) * 1000:.3f} ms/file "
        f"wall (median {statistics.median(timings) * 1000:.3f}, p99 {p99 * 1000:.3f}, "
        f"max {ordered[-1] * 1000:.2f}); CPU {cpu / len(timings) * 1000:.3f} ms/file"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=CORPUS)
    parser.add_argument(
        "--compare-markdown-it", action="store_true", help="also time a markdown-it-py parse"
    )
    args = parser.parse_args()

    bodies = load_bodies(args.archive)
    size = sum(len(body) for body in bodies)
    print(f"{len(bodies)} files, {size / len(bodies) / 1000:.1f} K characters per body on average")

    report("chunk_text", time_per_file(bodies, chunk_text))
    chunks = [chunk for body in bodies for chunk in chunk_text(body)]
    lengths = [len(chunk.text) for chunk in chunks]
    print(
        f"{len(chunks)} chunks, {len(chunks) / len(bodies):.1f} per file, average "
        f"{statistics.mean(lengths):.0f} chars (min {min(lengths)}, max {max(lengths)})"
    )

    if args.compare_markdown_it:
        from markdown_it import MarkdownIt

        # Inline parsing off: headings and fences are block structure, the fair comparison.
        block_parser = MarkdownIt("commonmark").disable("inline")
        report("line scan (markdown_blocks.outline)", time_per_file(bodies, outline))
        report("markdown-it-py block parse", time_per_file(bodies, block_parser.parse))


if __name__ == "__main__":
    main()
