"""Meaning search across languages: nDCG@10 per dev set, with and without multilingual vectors.

Run: .venv/bin/python bench/multilingual_quality.py [--engine e5-multilingual] [--sets NAME ...]

Prints one line per (dev set, configuration): ``main`` is search as it was before multilingual
routing (the index's multilingual vectors are not used), ``routed`` is the default routing with the
engine given by ``--engine`` (the lead re-runs with the shipped one). Indexes are kept in
$VAULTCTX_BENCH_CACHE (default /tmp/vaultctx-bench) between runs. The dev sets, all built from
the shared benchmark data (corpora.py) by the loaders below (nothing is copied into the repo):

- ``ohs-en-to-ko`` / ``ohs-ko-to-en``: the English and Korean Obsidian Help vaults are parallel
  translations paired by their front matter ``permalink``. A question is the first prose sentence
  of one language's note (front matter, headings, callouts, embeds and list markers skipped; cut at
  24 words), asked over the other language's vault; the answer is the twin note.
- ``tldr-en-to-ko`` / ``tldr-ko-to-en``: tldr pages paired by relative path
  (``pages/common/git.md`` ↔ ``pages.ko/common/git.md``). A vault holds 600 pages of one language
  (a seeded sample of the pairs in ``common/``); 100 of them are asked with the first description
  line (``> …``) of their twin in the other language.
- ``ko-conceptual``: ko-autorag's questions that share fewest words with their answer: the quarter
  with the lowest share of their Korean words (by two-syllable stem) found in the answer document.
- ``ko-autorag``: every ko-autorag question, as bench/quality.py runs it.
- ``ohs-ko-concepts`` (loader ``concepts``): 92 Korean questions written by hand for vaultctx
  (bench/ko_conceptual_ohs.tsv), each paraphrasing the idea of one Korean Obsidian Help note
  without its distinctive words (synonyms, the problem it solves), asked over the Korean vault.
  ``ohs-en-concepts-to-ko``: 23 of them also asked in English over the Korean vault;
  ``ohs-ko-concepts-to-en``: the Korean questions over the English vault (the twin note, by
  ``permalink``). Only the questions and note paths are in the repo; the vault stays outside.

``--methods`` adds the rankers alone on the routed index: ``bm25`` (keywords only) and
``vector`` (the multilingual vectors alone, every chunk, whatever the question's language).
``korean``: bench/korean_keywords.py's ``ohs-ko`` and ``tldr-ko`` (Korean questions taken from
the notes' own text), routed. ``--metrics`` prints recall@10 and MRR@10 beside nDCG@10.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from corpora import CACHE, SHARED_DATA
from quality import Qrels, build_vault, load_beir, mrr_at, ndcg_at, recall_at
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.search import language_routing


@dataclass
class DevSet:
    name: str
    vault: Path  # a folder of notes
    queries: dict[str, str]
    qrels: Qrels  # query id → {note path relative to the vault: grade}
    all_chunks: bool = False  # questions in another language than every note: embed them all


# --- Obsidian Help, en ↔ ko ----------------------------------------------------------------------

_PERMALINK = re.compile(r"^permalink:\s*(\S+)\s*$", re.M)
_SKIP_LINE = re.compile(r"^\s*(#|>|!\[\[|\||```|---|-\s*$|<)")


def _first_sentence(text: str, words: int = 24) -> str | None:
    """The first prose sentence after the front matter, without markdown links' targets."""
    body = text.split("\n---", 2)[-1] if text.startswith("---") else text
    for line in body.splitlines():
        if not line.strip() or _SKIP_LINE.match(line):
            continue
        line = re.sub(r"\[\[([^]|]*\|)?([^]]*)\]\]", r"\2", line)
        line = re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", line)
        line = re.sub(r"^\s*([-*]|\d+\.)\s+", "", line).strip(" *_`")
        sentence = re.split(r"(?<=[.!?。])\s", line)[0]
        if len(sentence) >= 15:
            return " ".join(sentence.split()[:words])
    return None


def _permalinks(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*.md")):
        match = _PERMALINK.search(path.read_text(encoding="utf-8")[:2000])
        if match:
            found[match.group(1)] = path.relative_to(root).as_posix()
    return found


def ohs_sets() -> list[DevSet]:
    root = SHARED_DATA / "obsidian-help"
    en, ko = _permalinks(root / "en"), _permalinks(root / "ko")
    sets = []
    for asked, answered, name in (("en", "ko", "ohs-en-to-ko"), ("ko", "en", "ohs-ko-to-en")):
        links = {"en": en, "ko": ko}
        queries, qrels = {}, {}
        for link in sorted(set(en) & set(ko)):
            question = _first_sentence(
                (root / asked / links[asked][link]).read_text(encoding="utf-8")
            )
            if question:
                queries[link] = question
                qrels[link] = {links[answered][link]: 1}
        sets.append(DevSet(name, root / answered, queries, qrels, all_chunks=answered == "en"))
    return sets


# --- tldr pages, en ↔ ko -------------------------------------------------------------------------


def _tldr_pairs() -> dict[str, tuple[str, str]]:
    archive = SHARED_DATA / "md-corpus-tldr-en-ko" / "tldr-pages-en-ko.tar.gz"
    pages: dict[str, dict[str, str]] = {"en": {}, "ko": {}}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if len(parts) == 4 and parts[2] == "common" and member.isfile():
                lang = "en" if parts[1] == "pages" else "ko" if parts[1] == "pages.ko" else ""
                handle = tar.extractfile(member)
                if lang and handle is not None:
                    pages[lang][parts[3]] = handle.read().decode("utf-8")
    return {
        name: (pages["en"][name], pages["ko"][name]) for name in pages["en"] if name in pages["ko"]
    }


def _description(page: str) -> str | None:
    for line in page.splitlines():
        if line.startswith(">") and "<http" not in line:
            return line.lstrip("> ").strip()
    return None


def tldr_sets() -> list[DevSet]:
    pairs = _tldr_pairs()
    names = sorted(pairs)
    random.Random(25).shuffle(names)
    kept, asked = names[:600], names[:100]
    sets = []
    for target, name in ((1, "tldr-en-to-ko"), (0, "tldr-ko-to-en")):
        folder = CACHE / "multilingual" / f"{name}-vault"
        folder.mkdir(parents=True, exist_ok=True)
        for page in kept:
            note = folder / page
            if not note.exists():
                note.write_text(pairs[page][target], encoding="utf-8")
        queries, qrels = {}, {}
        for page in asked:
            question = _description(pairs[page][1 - target])
            if question:
                queries[page] = question
                qrels[page] = {page: 1}
        sets.append(DevSet(name, folder, queries, qrels, all_chunks=target == 0))
    return sets


# --- ko-autorag, whole and its conceptual quarter -------------------------------------------------

_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]{2,}")


def _shared_share(question: str, answer: str) -> float:
    stems = {word[:2] for word in _HANGUL_WORD.findall(question)}
    return sum(stem in answer for stem in stems) / len(stems) if stems else 1.0


def autorag_sets() -> list[DevSet]:
    corpus, queries, qrels = load_beir("ko-autorag-retrieval")
    folder = CACHE / "multilingual" / "ko-autorag-vault"
    paths = build_vault(corpus, folder)
    by_doc = {doc: path for path, doc in paths.items()}
    note_qrels = {q: {by_doc[d]: g for d, g in rel.items()} for q, rel in qrels.items()}
    shares = {
        q: _shared_share(text, " ".join(corpus[d]["text"] for d in qrels[q]))
        for q, text in queries.items()
    }
    hardest = sorted(shares, key=lambda q: (shares[q], q))[: len(shares) // 4]
    return [
        DevSet("ko-autorag", folder, queries, note_qrels),
        DevSet("ko-conceptual", folder, {q: queries[q] for q in hardest}, note_qrels),
    ]


# --- hand-written Korean conceptual questions over Obsidian Help -------------------------------

CONCEPTS = Path(__file__).with_name("ko_conceptual_ohs.tsv")


def concept_sets() -> list[DevSet]:
    root = SHARED_DATA / "obsidian-help"
    lines = CONCEPTS.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")][1:]
    en = _permalinks(root / "en")
    ko_to_en = {ko: en[link] for link, ko in _permalinks(root / "ko").items() if link in en}
    korean = {qid: question for qid, _, question, _ in rows}
    english = {qid: question for qid, _, _, question in rows if question}
    answers = {qid: path for qid, path, _, _ in rows}
    answer = {q: {path: 1} for q, path in answers.items()}
    return [
        DevSet("ohs-ko-concepts", root / "ko", korean, answer),
        DevSet("ohs-en-concepts-to-ko", root / "ko", english, answer),
        DevSet(
            "ohs-ko-concepts-to-en",
            root / "en",
            korean,
            {q: {ko_to_en[answers[q]]: 1} for q in korean},
            all_chunks=True,
        ),
    ]


def korean_sets() -> list[DevSet]:
    """bench/korean_keywords.py's Korean Obsidian Help and tldr sets (questions from the notes'
    own text), read here with the multilingual vectors: a change to Korean routing must not
    lower them."""
    from korean_keywords import ohs_ko_sets, tldr_ko_sets

    return [*ohs_ko_sets(), *tldr_ko_sets()]


# --- running --------------------------------------------------------------------------------------

LOADERS: dict[str, Callable[[], list[DevSet]]] = {
    "ohs": ohs_sets,
    "tldr": tldr_sets,
    "autorag": autorag_sets,
    "concepts": concept_sets,
    "korean": korean_sets,
}
# Configurations: how the index is read (routed or not) and which rankers rank.
METHODS = ("main", "routed", "bm25", "vector")


def _vault(dev: DevSet, engine: str, *, routed: bool) -> Vault:
    chunks = "all" if dev.all_chunks else "auto"
    db = CACHE / "multilingual" / f"{dev.vault.name}-{engine}-{chunks}.db"
    settings = Settings(multilingual_engine=engine, multilingual_chunks=chunks)
    vault = Vault(config=Config(dev.vault, db, settings))
    if routed:
        return vault
    # Today's search: the same index, read without its multilingual vectors.
    return Vault(config=Config(dev.vault, db, replace(settings, multilingual_engine="")))


def evaluate(dev: DevSet, vault: Vault, mode: str = "hybrid") -> tuple[float, float, float]:
    """Mean nDCG@10, recall@10 and MRR@10 of the first ten notes."""
    scores = []
    for qid, text in dev.queries.items():
        response = vault.search(text, limit=10, max_tokens=10**9, notes=True, mode=mode)
        ranked, relevant = [r.file_path for r in response.results], dev.qrels[qid]
        scores.append(
            (ndcg_at(ranked, relevant), recall_at(ranked, relevant, 10), mrr_at(ranked, relevant))
        )
    return tuple(sum(column) / len(scores) for column in zip(*scores, strict=True))  # type: ignore[return-value]


def run_method(dev: DevSet, engine: str, method: str) -> tuple[float, float, float]:
    """``vector`` lets the multilingual list rank every chunk, the question's language too."""
    vault = _vault(dev, engine, routed=method != "main")
    same_language = language_routing.MULTILINGUAL_SAME_LANGUAGE
    language_routing.MULTILINGUAL_SAME_LANGUAGE = method == "vector" or same_language
    try:
        mode = {"bm25": "bm25", "vector": "vector"}.get(method, "hybrid")
        return evaluate(dev, vault, mode)
    finally:
        language_routing.MULTILINGUAL_SAME_LANGUAGE = same_language
        vault.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="e5-multilingual")
    parser.add_argument("--sets", nargs="+", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--methods", nargs="+", default=["main", "routed"], choices=METHODS)
    parser.add_argument("--only", nargs="+", help="run these dev sets of the loaders only")
    parser.add_argument("--metrics", action="store_true", help="recall@10 and MRR@10 too")
    args = parser.parse_args()
    for loader in args.sets:
        for dev in LOADERS[loader]():
            if args.only and dev.name not in args.only:
                continue
            indexing = _vault(dev, args.engine, routed=True)
            started = time.perf_counter()
            report = indexing.index()
            print(
                f"{dev.name}: {len(dev.queries)} questions; index {report.chunks_written} chunks "
                f"written, {report.multilingual_embedded} multilingual vectors in "
                f"{time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
            indexing.close()
            for method in args.methods:
                ndcg, recall, mrr = run_method(dev, args.engine, method)
                extra = f"  recall@10 {recall:.4f}  MRR@10 {mrr:.4f}" if args.metrics else ""
                print(f"{dev.name} {method} nDCG@10: {ndcg:.4f}{extra}", flush=True)


if __name__ == "__main__":
    main()
