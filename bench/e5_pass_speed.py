"""The multilingual pass's speed on real Korean vault chunks, engine variants measured alternately.

    VAULTCTX_SHARED_DATA=DATA PYTHONPATH=src:bench .venv/bin/python \
        bench/e5_pass_speed.py [--chunks 160] [--rounds 3] [--variants windowed first256 ...] \
        [--graph NAME=DIR ...]

``--graph NAME=DIR`` adds a variant NAME: the shipped engine (first window) reading DIR's
model.onnx and tokenizer.json, e.g. the graph shipped before a rebuild, or the float32 graph
before quantisation as a reference. The last round's vectors of every variant are compared,
chunk by chunk, with the first variant's and with the ``fp32`` variant's when there is one
(cosine: minimum, 1st percentile, median).

The chunks are what the indexer stores for the Korean dev vaults of bench/multilingual_quality.py
(Korean Obsidian Help, Korean tldr pages, ko-autorag): a pass-1 index of each is built once in
$VAULTCTX_BENCH_CACHE, then a seeded sample of its Korean chunks is embedded as the pass feeds
them (heading context + text, sorted by length, in one call per batch of 64). The machine is
shared, so every round runs each variant once, in turn, on the same chunks: compare medians, and
the per-CPU-second figures, which load moves less. The load average is printed with each round.
Also prints the token-count distribution of the sample (e5's tokenizer, no special tokens).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from corpora import CACHE
from multilingual_quality import LOADERS
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.base import embedding_input
from vaultctx.embed.e5 import BUNDLED_E5_NAME, E5Embedder
from vaultctx.index.db import open_index
from vaultctx.index.text_codec import unpack_text

BATCH = 64
KOREAN_VAULTS = {"ohs-en-to-ko", "tldr-en-to-ko", "ko-autorag"}
VARIANTS: dict[str, Callable[[], E5Embedder]] = {
    "shipped": E5Embedder,
    "windowed": lambda: E5Embedder(windowed=True),
    "first256": lambda: E5Embedder(windowed=False),
    "first512": lambda: E5Embedder(windowed=False, window_tokens=512),
    "first192": lambda: E5Embedder(windowed=False, window_tokens=192, max_stride_tokens=160),
    "first128": lambda: E5Embedder(windowed=False, window_tokens=128, max_stride_tokens=100),
    "windowed-batch8": lambda: E5Embedder(windowed=True, batch_size=8),
    "first256-batch8": lambda: E5Embedder(windowed=False, batch_size=8),
    "first256-1thread": lambda: E5Embedder(windowed=False, threads=1),
}


def korean_chunks() -> dict[str, list[str]]:
    """Every Korean chunk's embedding input, by dev vault (pass-1 indexes, built once)."""
    found: dict[str, list[str]] = {}
    for loader in ("ohs", "tldr", "autorag"):
        for dev in LOADERS[loader]():
            if dev.name not in KOREAN_VAULTS or dev.name in found:
                continue
            path = CACHE / "pass1" / f"{dev.vault.name}.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            settings = Settings(multilingual_engine="", multilingual_chunks="off")
            vault = Vault(config=Config(dev.vault, path, settings))
            vault.index(fast=True)
            vault.close()
            db = open_index(path, readonly=True)
            rows = db.execute("SELECT heading_context, body FROM chunks WHERE lang = 'ko'")
            found[dev.name] = [embedding_input(str(c), unpack_text(b)) for c, b in rows]
            db.close()
    return found


def token_counts(texts: list[str]) -> list[int]:
    tokenizer = E5Embedder()._loaded_tokenizer()
    return [len(e.ids) for e in tokenizer.encode_batch_fast(texts, add_special_tokens=False)]


def time_once(embedder: E5Embedder, texts: list[str]) -> tuple[float, float, Any]:
    """(chunks per wall second, chunks per CPU-second, vectors in ``texts``' order) for one pass
    over ``texts``, embedded in order of length as the pass takes them."""
    import numpy as np

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.zeros((len(texts), 384), dtype=np.float32)
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(order), BATCH):
        part = order[start : start + BATCH]
        vectors[part] = embedder.embed([texts[i] for i in part])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return len(texts) / wall, len(texts) / cpu, vectors


def agreement(vectors: dict[str, Any], against: str) -> None:
    """Per-chunk cosine of every variant's vectors with ``against``'s."""
    import numpy as np

    for name, found in vectors.items():
        if name != against:
            cosines = (found * vectors[against]).sum(axis=1)
            low, one, mid = np.min(cosines), np.percentile(cosines, 1), np.median(cosines)
            print(f"cosine {name} vs {against}: min {low:.4f}, 1st pct {one:.4f}, median {mid:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=160)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", nargs="+", default=["windowed", "first256"])
    parser.add_argument("--graph", action="append", default=[], metavar="NAME=DIR")
    args = parser.parse_args()
    for spec in args.graph:
        name, folder = spec.split("=", 1)
        VARIANTS[name] = partial(E5Embedder, folder, name=BUNDLED_E5_NAME)
        args.variants.append(name)
    by_vault = korean_chunks()
    pool = [text for texts in by_vault.values() for text in texts]
    sample = random.Random(25).sample(pool, min(args.chunks, len(pool)))
    counts = sorted(token_counts(sample))
    sources = ", ".join(f"{name} {len(texts)}" for name, texts in by_vault.items())
    print(
        f"{len(sample)} Korean chunks of {len(pool)} ({sources}); "
        f"tokens mean {statistics.mean(counts):.0f}, median {statistics.median(counts):.0f}, "
        f"deciles {[round(q) for q in statistics.quantiles(counts, n=10)]}, "
        f"> 254: {sum(c > 254 for c in counts)}, > 510: {sum(c > 510 for c in counts)}"
    )
    engines: dict[str, Any] = {name: VARIANTS[name]() for name in args.variants}
    for engine in engines.values():
        engine.embed(sample[:4])  # load and warm
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in engines}
    vectors: dict[str, Any] = {}
    for round_no in range(args.rounds):
        for name, engine in engines.items():
            wall, cpu, vectors[name] = time_once(engine, sample)
            results[name].append((wall, cpu))
        print(f"round {round_no + 1}: load average {os.getloadavg()[0]:.1f}", flush=True)
    for name, figures in results.items():
        wall = statistics.median(f[0] for f in figures)
        cpu = statistics.median(f[1] for f in figures)
        rounds = ", ".join(f"{f[0]:.1f}" for f in figures)
        print(f"{name}: median {wall:.1f} chunks/s ({cpu:.1f} per CPU-s); rounds {rounds}")
    for against in dict.fromkeys([args.variants[0], "fp32"]):
        if against in vectors:
            agreement(vectors, against)


if __name__ == "__main__":
    main()
