"""Every number that decides how results rank, in one place, each with where it was measured.

Change ranking here and re-run the benches that measured it (docs/benchmarks.md: "Retrieval
quality", "Fusion", "Weak matches", "Graph RAG"), then ``bench/ranking_snapshot.py --compare`` to
see every result that moved. A change meant to leave ranking alone must leave that file identical.
"""

from __future__ import annotations

# --- the lists each ranker returns ----------------------------------------------------------------

# FTS5 bm25() column weights: chunk text, section, heading context (docs/reference.md#retrieval).
BM25_WEIGHTS = (1.0, 0.5, 0.3)
# Hits per ranked list: fusion was measured on each ranker's top 30 (bench/fusion_explore.py).
BM25_TOP_K = 30
VECTOR_TOP_K = 30
# With one result per note a list holds this many hits per result asked for (when more than its
# top k), so notes with many matching chunks do not crowd the others out of the pool.
NOTE_POOL_PER_RESULT = 3

# --- fusion (docs/benchmarks.md, "Fusion") --------------------------------------------------------

# The keyword list's weight; every other weight is relative to it.
BM25_WEIGHT = 1.0
# Fusion weights of the vector lists, from bench/fusion_explore.py on BEIR SciFact: the static
# model is much weaker than BM25, so it only nudges; 0.67 is min-max fusion with a = 0.6 on BM25
# (0.5–0.7 all measured within 0.005).
STATIC_VECTOR_WEIGHT = 0.25
QUALITY_VECTOR_WEIGHT = 0.67
# The multilingual vectors' weight (search/language_routing.py), measured on ko-autorag and the
# cross-language dev sets (bench/multilingual_quality.py; docs/benchmarks.md, "Across languages").
MULTILINGUAL_VECTOR_WEIGHT = 0.5
# Whether the multilingual list also ranks chunks in the question's own language when BM25 (and,
# for English, the English models) read them. Off: with USE-multilingual it lowered ko-autorag at
# every weight measured (0.943 without; 0.934 at 0.25, 0.922 at 0.5), and so does the shipped
# e5-multilingual (bench/e5_variants.py, 2026-12-06): first-window vectors 0.935 / 0.926 / 0.920
# at 0.15 / 0.3 / 0.5, every-window vectors 0.941 / 0.938 / 0.936 at 0.05 / 0.1 / 0.2.
MULTILINGUAL_SAME_LANGUAGE = False
# ... except when BM25 plainly missed the question's words: its best hit holds under
# KEYWORD_COVERAGE_TRUSTED of the question's terms (each weighed by its IDF, search/
# keyword_coverage.py). Then the multilingual list ranks the question's own language too, at
# MEANING_WHEN_KEYWORDS_MISS × (1 − coverage / KEYWORD_COVERAGE_TRUSTED) of BM25's weight: the
# less BM25 matched, the more meaning counts. Measured on hand-written Korean paraphrases
# (bench/ko_conceptual_ohs.tsv, docs/benchmarks.md "Korean conceptual questions"): their best
# BM25 hit holds a median 0.31 of the question (ko-autorag's 0.70, Korean Obsidian Help's first
# sentences 1.0), so ko-autorag, which every fixed weight lowered, keeps BM25's ranking. Tried
# (weight, coverage): (2, 0.5) 0.352, (2, 0.6) 0.368, (2, 0.7) 0.366 but ko-autorag 0.949,
# (3, 0.5) 0.361, (3, 0.6) 0.366, (1, 0.7) 0.345; BM25 alone 0.324.
KEYWORD_COVERAGE_TRUSTED = 0.6
MEANING_WHEN_KEYWORDS_MISS = 2.0
# BM25's weight, relative to the above, for a question in a language no note is written in.
FOREIGN_KEYWORD_WEIGHT = 0.0
# A language counts as present in a vault from this share of its chunks; English from a larger
# one, as Latin script turns up in notes of every language: Korean Obsidian Help has 7 % of its
# chunks mostly Latin (lists of names, plugin and product names, code), and BM25 matching an
# English question against them was the noise that drowned the multilingual list.
MIN_LANGUAGE_SHARE = 0.01
ENGLISH_PRESENT_SHARE = 0.15
# Reciprocal rank fusion's k (score = Σ weight / (k + rank)), the value of the RRF paper.
RRF_K = 60

# --- weak matches (bench/weak_match.py; docs/benchmarks.md, "Weak matches") -----------------------

# Below these cosines the nearest chunk is not about the query (measured on the example vault,
# Obsidian Help and SciFact): no on-topic query's best hit scored lower (static 0.432, transformer
# 0.329), while half (static) or 96 % (transformer) of off-topic queries did. Without a keyword
# hit either, a search says so.
STATIC_WEAK_BELOW = 0.40
QUALITY_WEAK_BELOW = 0.30
# e5-multilingual's cosines sit in a narrow high band, so the cut-off has little room. Measured
# on the Korean Obsidian Help vault, the English one with multilingual vectors and the example
# vault (bench/weak_match.py --multilingual; docs/benchmarks.md, "Weak matches across languages"):
# the best hit of 568 on-topic questions scored 0.803-0.923, of 234 off-topic ones 0.742-0.873.
# At 0.80 no on-topic search said "weak matches" and 41 off-topic ones did; at 0.84 (measured on
# the example vault alone) 129 on-topic searches did, every one a question across languages, 69
# of them with the answer in their top ten.
MULTILINGUAL_WEAK_BELOW = 0.80

# --- graph expansion (docs/reference.md#graph-search; docs/benchmarks.md, "Graph RAG") ------------

# Links followed from the vector hits: 1 by default, at most 3 (depth 0, 1 and 2 measured alike).
DEFAULT_DEPTH = 1
MAX_DEPTH = 3
# A neighbour's relevance: 0.6 × its own normalised similarity + 0.4 × its seed's; below 0.55 it
# is dropped; its score is the relevance × 0.5 per link followed.
OWN_WEIGHT = 0.6
SEED_WEIGHT = 0.4
MIN_RELEVANCE = 0.55
DECAY_PER_HOP = 0.5
# The graph ranking is fused with the keyword ranking by RRF, keywords at 0.5, and two result
# slots are kept for keyword-only hits so exact identifiers are not pushed out by meaning.
KEYWORD_WEIGHT = 0.5
GRAPH_WEIGHT = 1.0
RESERVED_KEYWORD_SLOTS = 2
# Each candidate note costs a stored-vector read per chunk (~10 µs): a hub linked from thousands
# of notes must not turn one query into seconds. Candidates are taken best seed first.
MAX_CANDIDATES_PER_HOP = 100
