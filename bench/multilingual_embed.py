"""Speed and vectors-only quality of the multilingual engine (issue 25), on this machine's data.

    PYTHONPATH=src:bench .venv/bin/python bench/multilingual_embed.py speed [--chunks 128]
        [--data ../shared/data]
    PYTHONPATH=src:bench .venv/bin/python bench/multilingual_embed.py quality
        [--engine e5-multilingual] [--max-documents N]
        [--sets obsidian-en-ko,obsidian-ko-en,ko-autorag,scifact]

speed: 2,000-character chunks of SciFact (English) and of ko-autorag (Korean) in batches of 64, as
the indexer feeds them, model loaded and warmed first; chunks per wall second and per CPU-second.

quality: vectors alone, nDCG@10 at document level. Documents are cut into 2,000-character chunks
(the longest a vault chunk gets) and a document scores its best chunk. Questions go through
``embed_queries`` when the engine has it (e5's ``query:`` prefix), documents through ``embed``.

- obsidian-en-ko / obsidian-ko-en: the English and Korean Obsidian Help vaults are translations
  of each other, paired by their ``permalink``. The question is a note's title and its first
  sentence in one language; the answer is the parallel note among all notes of the other one.
- ko-autorag: 114 Korean questions over 720 Korean pages (one gold page each).
- scifact: BEIR SciFact test questions over its 5,183 abstracts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import quality
from vaultctx.embed.base import Embedder
from vaultctx.embed.registry import create_embedder

DATA = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data").resolve()
CHUNK_CHARS = 2000
BATCH = 64
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
PERMALINK = re.compile(r"^permalink:\s*(\S+)", re.MULTILINE)


def two_thousand_character_chunks(path: Path, count: int) -> list[str]:
    """Consecutive full 2,000-character slices of a BEIR corpus's texts joined together."""
    chunks: list[str] = []
    buffer = ""
    with path.open(encoding="utf-8") as corpus:
        for line in corpus:
            buffer += json.loads(line)["text"] + "\n\n"
            while len(buffer) >= CHUNK_CHARS and len(chunks) < count:
                chunks.append(buffer[:CHUNK_CHARS])
                buffer = buffer[CHUNK_CHARS:]
    return chunks


def speed(embedder: Embedder, count: int) -> None:
    engine = embedder.name
    corpora = {"en": DATA / "beir-scifact" / "corpus.jsonl"}
    corpora["ko"] = DATA / "ko-autorag-retrieval" / "corpus.jsonl"
    for language, path in corpora.items():
        chunks = two_thousand_character_chunks(path, count)
        embedder.embed(chunks[:8])  # load and warm outside the timing
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(chunks), BATCH):
            embedder.embed(chunks[start : start + BATCH])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{engine} {language}: {len(chunks) / wall:.1f} chunks/s "
            f"({len(chunks) / cpu:.1f} per CPU-second; {len(chunks)} chunks of {CHUNK_CHARS} "
            f"chars; load {os.getloadavg()[0]:.1f})",
            flush=True,
        )


Documents = dict[str, str]
Questions = dict[str, str]
Answers = dict[str, set[str]]


def obsidian_notes(language: str) -> dict[str, tuple[str, str]]:
    """permalink → (title, body without front matter) for one language's vault."""
    notes: dict[str, tuple[str, str]] = {}
    for path in sorted((DATA / "obsidian-help" / language).rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        link = PERMALINK.search(text[:2000])
        if link:
            notes[link.group(1)] = (path.stem, FRONT_MATTER.sub("", text, count=1).strip())
    return notes


def first_sentence(body: str) -> str:
    """The first line of prose: not a heading, callout, embed or list marker."""
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ">", "!", "|", "-", "*", "`", "<")):
            return re.split(r"(?<=[.!?。])\s", line)[0][:200]
    return ""


def obsidian_set(
    question_language: str, note_language: str
) -> tuple[Documents, Questions, Answers]:
    asked, answering = obsidian_notes(question_language), obsidian_notes(note_language)
    documents = {link: f"{title}\n{body}" for link, (title, body) in answering.items()}
    questions = {
        link: f"{title}: {first_sentence(body)}".strip(": ")
        for link, (title, body) in asked.items()
        if link in answering
    }
    return documents, questions, {link: {link} for link in questions}


def beir_set(folder: str) -> tuple[Documents, Questions, Answers]:
    quality.SHARED_DATA = DATA  # type: ignore[attr-defined]  # load_beir reads it per call
    corpus, questions, qrels = quality.load_beir(folder)
    documents = {doc: f"{row['title']}\n{row['text']}".strip() for doc, row in corpus.items()}
    return documents, questions, {query: set(relevant) for query, relevant in qrels.items()}


SETS: dict[str, Callable[[], tuple[Documents, Questions, Answers]]] = {
    "obsidian-en-ko": lambda: obsidian_set("en", "ko"),
    "obsidian-ko-en": lambda: obsidian_set("ko", "en"),
    "ko-autorag": lambda: beir_set("ko-autorag-retrieval"),
    "scifact": lambda: beir_set("beir-scifact"),
}


def embed_documents(embedder: Embedder, documents: Documents) -> tuple[list[str], Any]:
    """Every 2,000-character chunk of every document; returns each chunk's document id."""
    owners, texts = [], []
    for doc, text in documents.items():
        for start in range(0, max(len(text), 1), CHUNK_CHARS):
            owners.append(doc)
            texts.append(text[start : start + CHUNK_CHARS])
    vectors = np.concatenate(
        [embedder.embed(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
    )
    return owners, vectors


def subset(documents: Documents, answers: Answers, size: int) -> Documents:
    """Every answer document and random others (seed 0) up to ``size`` documents."""
    import random

    keep = {doc for docs in answers.values() for doc in docs if doc in documents}
    others = sorted(set(documents) - keep)
    random.Random(0).shuffle(others)
    keep |= set(others[: max(0, size - len(keep))])
    return {doc: text for doc, text in documents.items() if doc in keep}


def evaluate(embedder: Embedder, name: str, max_documents: int | None = None) -> None:
    documents, questions, answers = SETS[name]()
    if max_documents is not None and len(documents) > max_documents:
        documents = subset(documents, answers, max_documents)
    started = time.perf_counter()
    owners, chunk_vectors = embed_documents(embedder, documents)
    embed_queries = getattr(embedder, "embed_queries", embedder.embed)
    ids = list(questions)
    query_vectors = embed_queries([questions[q] for q in ids])
    doc_ids = sorted(set(owners))
    column = {doc: i for i, doc in enumerate(doc_ids)}
    owner_column = np.array([column[doc] for doc in owners])
    scores = []
    for row, query in enumerate(ids):
        similarities = chunk_vectors @ query_vectors[row]
        best = np.full(len(doc_ids), -2.0)
        np.maximum.at(best, owner_column, similarities)
        ranking = [doc_ids[i] for i in np.argsort(-best)[:10]]
        scores.append(quality.ndcg_at(ranking, dict.fromkeys(answers[query], 1)))
    print(
        f"{embedder.name} {name}: nDCG@10 {np.mean(scores):.4f} ({len(ids)} questions, "
        f"{len(documents)} documents, {len(owners)} chunks, {time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["speed", "quality"])
    parser.add_argument("--engine", default="e5-multilingual")
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--model-dir", type=Path, help="a model folder for --engine")
    parser.add_argument("--max-documents", type=int, help="answer documents + random others")
    parser.add_argument("--data", type=Path, help="the shared data folder (from a worktree)")
    args = parser.parse_args()
    if args.data is not None:
        global DATA
        DATA = args.data.resolve()
    embedder = create_embedder(args.engine, args.model_dir)
    if args.mode == "speed":
        speed(embedder, args.chunks)
        return
    for name in args.sets.split(","):
        evaluate(embedder, name, args.max_documents)


if __name__ == "__main__":
    main()
