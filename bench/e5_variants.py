"""Ranking quality of multilingual-engine variants on the dev sets of bench/multilingual_quality.py.

    VAULTCTX_SHARED_DATA=DATA PYTHONPATH=src:bench .venv/bin/python \
        bench/e5_variants.py [--variants windowed first256 ...] [--sets ohs tldr autorag] \
        [--same-language-weights 0.1 0.2 ...] [--other-graph DIR]

``--other-graph DIR`` adds the variant ``other-graph``: the shipped engine (first window) reading
the model.onnx and tokenizer.json in DIR under the bundled engine's name, e.g. the graph shipped
before a rebuild (scripts/build_multilingual_model.py --out DIR on an older commit).
A variant is the shipped engine read differently (every window, or only the first N tokens; see
bench/e5_pass_speed.py). Pass 1 of each dev vault is indexed once (a ``base`` index); each variant
starts from a copy of it, so only the multilingual pass runs per variant, and its time is printed
(chunks per second; on a loaded machine compare variants run side by side only). The English
models' pass 2 is left out (``quality_engine = ""``): no question of these sets is routed to them
(an English question counts English as present from 15 % of chunks, search/language_routing.py),
so ``routed`` is the default routing's figure, while ``main`` (search without multilingual vectors)
is the keyword-and-static figure, not bench/multilingual_quality.py's.
``--same-language-weights`` also scores each given weight for the multilingual list ranking a
question's own-language chunks (search/language_routing.py, ``MULTILINGUAL_SAME_LANGUAGE``), set
in this process only.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import vaultctx.search.language_routing as routing
from corpora import CACHE
from multilingual_quality import LOADERS, DevSet, evaluate
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.e5 import BUNDLED_E5_NAME, E5Embedder
from vaultctx.embed.registry import register_engine

FOLDER = CACHE / "e5-variants"
VARIANTS = {
    "windowed": {"windowed": True},
    "first256": {"windowed": False},
    "first512": {"windowed": False, "window_tokens": 512},
    "first192": {"windowed": False, "window_tokens": 192, "max_stride_tokens": 160},
}


def _register(variant: str, other_graph: Path | None = None) -> str:
    name = f"e5-{variant}"
    if variant == "other-graph" and other_graph is not None:
        register_engine(name, lambda _dir: E5Embedder(other_graph, name=BUNDLED_E5_NAME))
        return name
    options = VARIANTS[variant]
    register_engine(name, lambda _dir: E5Embedder(name=name, **options))  # type: ignore[arg-type]
    return name


def _base(dev: DevSet, chunks: str) -> Path:
    """Pass 1 and pass 2, no multilingual vectors: shared by every variant."""
    path = FOLDER / f"{dev.vault.name}-base-{chunks}.db"
    settings = Settings(quality_engine="", multilingual_engine="", multilingual_chunks=chunks)
    vault = Vault(config=Config(dev.vault, path, settings))
    vault.index()
    vault.close()
    return path


def _variant_vault(dev: DevSet, engine: str) -> Vault:
    chunks = "all" if dev.all_chunks else "auto"
    path = FOLDER / f"{dev.vault.name}-{engine}-{chunks}.db"
    if not path.exists():
        shutil.copyfile(_base(dev, chunks), path)
    settings = Settings(quality_engine="", multilingual_engine=engine, multilingual_chunks=chunks)
    vault = Vault(config=Config(dev.vault, path, settings))
    started = time.perf_counter()
    report = vault.index()
    seconds = time.perf_counter() - started
    if report.multilingual_embedded:
        print(
            f"  {dev.name} {engine}: {report.multilingual_embedded} multilingual vectors in "
            f"{seconds:.1f} s ({report.multilingual_embedded / seconds:.1f} chunks/s)",
            file=sys.stderr,
            flush=True,
        )
    return vault


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", nargs="+", default=["windowed", "first256"])
    parser.add_argument("--sets", nargs="+", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--same-language-weights", nargs="*", type=float, default=[])
    parser.add_argument("--other-graph", type=Path, default=None)
    args = parser.parse_args()
    FOLDER.mkdir(parents=True, exist_ok=True)
    variants = args.variants + (["other-graph"] if args.other_graph else [])
    engines = [_register(variant, args.other_graph) for variant in variants]
    for loader in args.sets:
        for dev in LOADERS[loader]():
            chunks = "all" if dev.all_chunks else "auto"
            settings = Settings(quality_engine="", multilingual_engine="")
            base = Vault(config=Config(dev.vault, _base(dev, chunks), settings))
            print(f"{dev.name} main: {evaluate(dev, base):.4f}", flush=True)
            base.close()
            for engine in engines:
                vault = _variant_vault(dev, engine)
                print(f"{dev.name} {engine} routed: {evaluate(dev, vault):.4f}", flush=True)
                vault.close()
                for weight in args.same_language_weights:
                    print(
                        f"{dev.name} {engine} same-language {weight}: "
                        f"{_same_language(dev, engine, weight):.4f}",
                        flush=True,
                    )


def _same_language(dev: DevSet, engine: str, weight: float) -> float:
    """nDCG@10 with the multilingual list ranking the question's own language at ``weight``,
    on a fresh Vault: a retriever keeps its sources, weights included, once built."""
    import vaultctx.search.vector_sources as sources

    patches: list[tuple[object, str, object]] = [
        (routing, "MULTILINGUAL_SAME_LANGUAGE", True),
        (sources, "MULTILINGUAL_VECTOR_WEIGHT", weight),
    ]
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    for module, name, value in patches:
        setattr(module, name, value)
    vault = _variant_vault(dev, engine)
    try:
        return evaluate(dev, vault)
    finally:
        vault.close()
        for module, name, value in saved:
            setattr(module, name, value)


if __name__ == "__main__":
    main()
