"""Embedding throughput of the two bundled engines on 2,000-character chunks (DESIGN "Embedding").

Chunks are consecutive 2,000-character slices of the BEIR SciFact abstracts joined together, so
every chunk is full length, like the longest chunks of a real vault. They are fed in batches of
64, as the indexer does (docs/reference.md#indexing); models are loaded and warmed up before timing.

    PYTHONPATH=src .venv/bin/python bench/embed_speed.py [--static-chunks 3000] [--onnx-chunks 256]

Prints one line per figure: static, onnx windowed, onnx truncated (first 256 tokens only), each
as chunks per wall-clock second and per CPU-second of this process, with the 1-minute load
average: on a shared machine the wall figure drops with other load, the CPU figure much less.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from vaultctx.embed.base import Embedder
from vaultctx.embed.onnx import OnnxEmbedder
from vaultctx.embed.static import StaticEmbedder

CORPUS = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "beir-scifact" / "corpus.jsonl"
).resolve()
CHUNK_CHARS = 2000
INDEXER_BATCH = 64


def scifact_chunks(count: int) -> list[str]:
    """The first ``count`` full 2,000-character slices of the concatenated abstracts."""
    chunks: list[str] = []
    buffer = ""
    with CORPUS.open(encoding="utf-8") as corpus:
        for line in corpus:
            buffer += json.loads(line)["text"] + "\n\n"
            while len(buffer) >= CHUNK_CHARS:
                chunks.append(buffer[:CHUNK_CHARS])
                buffer = buffer[CHUNK_CHARS:]
                if len(chunks) == count:
                    return chunks
    raise SystemExit(f"{CORPUS} holds only {len(chunks)} chunks of {CHUNK_CHARS} characters")


def batches(texts: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(texts), INDEXER_BATCH):
        yield texts[start : start + INDEXER_BATCH]


def chunks_per_second(embedder: Embedder, chunks: list[str]) -> tuple[float, float]:
    """Throughput per wall-clock second and per CPU-second (all threads of this process)."""
    embedder.embed(chunks[:INDEXER_BATCH])  # load the model and warm caches outside the timing
    wall, cpu = time.perf_counter(), time.process_time()
    for batch in batches(chunks):
        embedder.embed(batch)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return len(chunks) / wall, len(chunks) / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static-chunks", type=int, default=3000)
    parser.add_argument("--onnx-chunks", type=int, default=256)
    args = parser.parse_args()

    chunks = scifact_chunks(max(args.static_chunks, args.onnx_chunks))
    engines: list[tuple[str, Embedder, int]] = [
        ("static", StaticEmbedder(), args.static_chunks),
        ("onnx windowed", OnnxEmbedder(windowed=True), args.onnx_chunks),
        ("onnx truncated", OnnxEmbedder(windowed=False), args.onnx_chunks),
    ]
    for label, embedder, count in engines:
        per_wall, per_cpu = chunks_per_second(embedder, chunks[:count])
        print(
            f"{label:15s} {embedder.name:18s} {per_wall:8.1f} chunks/s "
            f"({per_cpu:.1f} per CPU-second; {count} chunks of {CHUNK_CHARS} chars, "
            f"batches of {INDEXER_BATCH}, load {os.getloadavg()[0]:.1f})"
        )


if __name__ == "__main__":
    main()
