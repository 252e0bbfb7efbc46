"""How close the nearest chunk is for queries a vault can answer, and for queries it cannot.

Run: PYTHONPATH=src .venv/bin/python bench/weak_match.py [--limit-queries N]
For each vault (the example vault, the Obsidian Help vault, BEIR SciFact) and each vector model
(the static one of pass 1, the transformer of pass 2) it records the cosine similarity of the best
vector hit and whether BM25 found anything, for on-topic queries (questions the vault answers:
hand-written for the example vault, the sanity questions for Obsidian Help, the test queries with
relevant documents for SciFact) and off-topic ones (another vault's queries, everyday questions,
word salad). It prints the similarity distributions and, for candidate thresholds, how many
on-topic queries would be called weak (wrongly) and how many off-topic ones (rightly): the
numbers behind ``WEAK_MATCH_BELOW`` in ``vaultctx.api``.

``--multilingual`` measures the multilingual vectors instead (``MULTILINGUAL_WEAK_BELOW``) with
the indexes of bench/multilingual_quality.py: the Korean Obsidian Help vault (its own
multilingual vectors), the English one (every chunk given multilingual vectors, as for questions
in another language) and the example vault. On-topic are bench/multilingual_quality.py's Obsidian
Help questions (hand-written Korean and English concept questions, and each note's first sentence
asked over its twin in the other language) and the example vault's questions; off-topic the
everyday questions and word salads in English and in Korean, and SciFact claims. Beside the
nearest chunk's cosine it counts how many whole searches said "weak matches" (that notice needs
every vector list weak and no keyword hit).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from corpora import REPO, SHARED_DATA, dataset_index_dir
from quality import build_vault, load_beir
from vaultctx.api import Vault
from vaultctx.embed.base import embed_query
from vaultctx.index.quality_pass import QUALITY_TABLE
from vaultctx.index.schema import MULTI_TABLE
from vaultctx.search.bm25 import bm25_search
from vaultctx.search.vector import vector_search

sys.path.insert(0, str(REPO))
from tests.e2e.test_obsidian_help_sanity import QUESTIONS

EXAMPLE_QUESTIONS = [
    "why did the invoice job fail in March",
    "what does the busy timeout do in SQLite",
    "how does reciprocal rank fusion combine rankings",
    "which embedding model should I use for Korean",
    "what is on the code review checklist",
    "who is on call and how do I escalate",
    "how do I package a Python project",
    "what did we decide in the postmortem review meeting",
    "how is the billing service deployed",
    "what runs in the home lab",
    "how do asyncio tasks get cancelled",
    "what is the roadmap for vaultctx",
    "how does FTS5 rank documents",
    "ideas for summarising meetings with a local model",
    "what changed in the sqlite-vec release",
]
EVERYDAY = [
    "banana bread recipe with walnuts",
    "who won the football world cup in 1998",
    "how to tune a guitar to drop D",
    "best time of year to visit Patagonia",
    "what is the capital of Mongolia",
    "how to remove red wine stains from a carpet",
    "symptoms of vitamin D deficiency in cats",
    "lyrics of a famous opera aria",
    "how many moons does Neptune have",
    "train tickets from Lisbon to Porto",
    "knitting pattern for a wool scarf",
    "how to change a flat bicycle tyre",
    "rules of cricket for beginners",
    "where to buy cheap flights to Tokyo",
    "how long to boil an egg",
]
SALAD = [
    "flurb zantic quorble vexnip",
    "purple elephant calculus umbrella",
    "zxqv plonk wibble snorf",
    "seventeen marmalade horizons sing",
    "glorp fizzlewick tranquil spoon",
]

KOREAN_EVERYDAY = [
    "호두를 넣은 바나나 빵 만드는 법",
    "1998년 월드컵 우승팀은 어디인가요",
    "기타를 드롭 D로 조율하는 방법",
    "파타고니아 여행하기 좋은 계절",
    "몽골의 수도는 어디인가요",
    "카펫에 묻은 레드 와인 얼룩 지우는 법",
    "고양이 비타민 D 결핍 증상",
    "해왕성의 위성은 몇 개인가요",
    "김치찌개 맛있게 끓이는 법",
    "한라산 등산 코스 추천",
    "겨울철 수도관 동파 예방 방법",
    "강아지 산책은 하루에 몇 번 해야 하나요",
    "전세 계약할 때 주의할 점",
    "세종대왕의 업적",
    "마라톤 완주를 위한 훈련 계획",
]
KOREAN_SALAD = [
    "파란 계단 우산 번개 고등어",
    "연필 구름 냉장고 춤추는 호랑이",
    "빨간 월요일 수박 철학 자전거",
]


@dataclass(frozen=True)
class Probe:
    similarity: float  # cosine of the best vector hit (0 when there is none)
    keyword_hit: bool


def probe(vault: Vault, table: str, queries: Sequence[str]) -> list[Probe]:
    retriever = vault.retriever()
    engines = {QUALITY_TABLE: vault.quality_embedder, MULTI_TABLE: vault.multilingual_embedder}
    engine = engines.get(table, vault.embedder)()
    assert engine is not None
    probes = []
    for query in queries:
        hits = vector_search(retriever.db, table, embed_query(engine, query), 1)
        keyword = bool(bm25_search(retriever.db, query, 1))
        probes.append(Probe(hits[0][1] if hits else 0.0, keyword))
    return probes


def summary(label: str, probes: list[Probe]) -> str:
    values = sorted(p.similarity for p in probes)

    def at(share: float) -> float:
        return values[min(len(values) - 1, int(share * len(values)))]

    no_keyword = sum(not p.keyword_hit for p in probes)
    return (
        f"  {label:10} n={len(values):4}  min {values[0]:.3f}  p5 {at(0.05):.3f}  p10 "
        f"{at(0.10):.3f}  median {statistics.median(values):.3f}  p90 {at(0.9):.3f}  max "
        f"{values[-1]:.3f}  no keyword hit: {no_keyword}"
    )


def thresholds(on: list[Probe], off: list[Probe], candidates: Sequence[float]) -> str:
    """Share of on-topic queries a threshold calls weak, and of off-topic ones."""
    parts = []
    for threshold in candidates:
        wrong = sum(p.similarity < threshold for p in on) / len(on)
        right = sum(p.similarity < threshold for p in off) / len(off)
        parts.append(f"<{threshold:.2f}: on {wrong:5.1%} off {right:5.1%}")
    return "  " + " | ".join(parts)


def indexed(name: str, folder: Path) -> Vault:
    vault = Vault(folder, db=dataset_index_dir(name) / "index.db")
    vault.index()
    return vault


def searched(
    vault: Callable[[], Vault],
    queries: dict[str, str] | Sequence[str],
    weak_below: float,
    answers: dict[str, dict[str, int]] | None = None,
) -> tuple[int, int]:
    """How many of ``queries`` a whole search (hybrid, one result per note, default settings)
    calls weak matches with ``MULTILINGUAL_WEAK_BELOW`` at ``weak_below``, and how many of those
    had an answer (``answers``: query id → relevant notes) in their top ten anyway."""
    from vaultctx.search import vector_sources

    asked = queries if isinstance(queries, dict) else dict(enumerate(queries))
    shipped = vector_sources.MULTILINGUAL_WEAK_BELOW
    vector_sources.MULTILINGUAL_WEAK_BELOW = weak_below
    opened = vault()
    weak = answered = 0
    try:
        for qid, query in asked.items():
            response = opened.search(query, limit=10, notes=True)
            if any(notice.startswith("weak matches") for notice in response.notices):
                weak += 1
                found = {result.file_path for result in response.results}
                answered += bool(answers and found & set(answers.get(str(qid), {})))
    finally:
        opened.close()
        vector_sources.MULTILINGUAL_WEAK_BELOW = shipped
    return weak, answered


def multilingual(claims: list[str]) -> None:
    """``MULTILINGUAL_WEAK_BELOW``: the multilingual table's nearest chunk, and the notice."""
    from multilingual_quality import DevSet, _vault, concept_sets, ohs_sets

    rng = random.Random(7)
    off_topic = [*EVERYDAY, *SALAD, *KOREAN_EVERYDAY, *KOREAN_SALAD, *rng.sample(claims, 40)]
    by_vault: dict[str, list[DevSet]] = {}
    example = DevSet(
        "example", REPO / "examples" / "vault", {q: q for q in EXAMPLE_QUESTIONS}, {}, True
    )
    for dev in [*ohs_sets(), *concept_sets(), example]:
        by_vault.setdefault(f"{dev.vault.name}{'-all' if dev.all_chunks else ''}", []).append(dev)
    every_on: list[Probe] = []
    every_off: list[Probe] = []
    for key, devs in by_vault.items():
        vault = _vault(devs[0], "e5-multilingual", routed=True)
        report = vault.index()
        print(f"{key}: {report.multilingual_embedded} multilingual vectors added", flush=True)
        on_topic = [question for dev in devs for question in dev.queries.values()]
        on, off = probe(vault, MULTI_TABLE, on_topic), probe(vault, MULTI_TABLE, off_topic)
        vault.close()
        print(f"{key} / {MULTI_TABLE}")
        print(summary("on-topic", on))
        print(summary("off-topic", off))
        print(thresholds(on, off, MULTI_CANDIDATES))
        reopen = partial(_vault, devs[0], "e5-multilingual", routed=True)
        print("  whole searches saying weak matches, at " + ", ".join(map(str, MULTI_CANDIDATES)))
        print("  (on-topic: weak / of which the answer was in the top ten anyway)")
        for dev in devs:
            counts = [searched(reopen, dev.queries, below, dev.qrels) for below in MULTI_CANDIDATES]
            shown = ", ".join(f"{weak}/{answered}" for weak, answered in counts)
            print(f"    {dev.name:24} on-topic  {shown} of {len(dev.queries)}", flush=True)
        counts = [searched(reopen, off_topic, below) for below in MULTI_CANDIDATES]
        shown = ", ".join(str(weak) for weak, _ in counts)
        print(f"    {'off-topic':24} off-topic {shown} of {len(off_topic)}", flush=True)
        every_on.extend(on)
        every_off.extend(off)
    print(f"all three vaults / {MULTI_TABLE}")
    print(summary("on-topic", every_on))
    print(summary("off-topic", every_off))
    print(thresholds(every_on, every_off, MULTI_CANDIDATES))


MULTI_CANDIDATES = (0.78, 0.80, 0.81, 0.82, 0.84)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit-queries", type=int, default=0, help="SciFact queries (0: all)")
    parser.add_argument(
        "--multilingual", action="store_true", help="the multilingual vectors' threshold instead"
    )
    args = parser.parse_args()
    corpus, scifact_queries, _ = load_beir("beir-scifact")
    claims = list(scifact_queries.values())
    if args.limit_queries:
        claims = claims[: args.limit_queries]
    if args.multilingual:
        multilingual(claims)
        return
    root = dataset_index_dir("beir-scifact")
    build_vault(corpus, root / "vault")
    # The sanity questions, the one marked as a known miss (a pytest.param) included.
    help_questions = [str(getattr(q, "values", q)[0]) for q in QUESTIONS]
    rng = random.Random(7)
    cases = {
        "example": (
            indexed("example-vault", REPO / "examples" / "vault"),
            EXAMPLE_QUESTIONS,
            [*EVERYDAY, *SALAD, *rng.sample(claims, 15)],
        ),
        "obsidian-help": (
            indexed("obsidian-help-en", SHARED_DATA / "obsidian-help" / "en"),
            help_questions,
            [*EVERYDAY, *SALAD, *rng.sample(claims, 40)],
        ),
        "scifact": (
            indexed("beir-scifact", root / "vault"),
            claims,
            [*EVERYDAY, *SALAD, *EXAMPLE_QUESTIONS, *help_questions],
        ),
    }
    totals: dict[str, tuple[list[Probe], list[Probe]]] = {}
    for name, (vault, on_topic, off_topic) in cases.items():
        for table in ("chunk_vecs", QUALITY_TABLE):
            on, off = probe(vault, table, on_topic), probe(vault, table, off_topic)
            print(f"{name} / {table}")
            print(summary("on-topic", on))
            print(summary("off-topic", off))
            both = totals.setdefault(table, ([], []))
            both[0].extend(on)
            both[1].extend(off)
        vault.close()
    for table, (on, off) in totals.items():
        print(f"all vaults / {table}")
        print(summary("on-topic", on))
        print(summary("off-topic", off))
        candidates = (0.3, 0.35, 0.4, 0.45, 0.5) if table == "chunk_vecs" else (0.2, 0.25, 0.3)
        print(thresholds(on, off, candidates))


if __name__ == "__main__":
    main()
