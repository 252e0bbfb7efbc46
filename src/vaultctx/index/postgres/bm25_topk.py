"""BM25's top k without scoring every posting of a common word (MaxScore), same scores as FTS5.

A word's share of a row's BM25 score is ``idf * f(k1 + 1) / (f + K)`` with ``K > 0``, so it is
always below ``idf * (k1 + 1)``: its upper bound, known from the word's number of rows (``df``)
alone. A common word's idf is small ("set" is in 62,850 of the PowerShell docs' 130,470 chunks:
idf 0.07, bound 0.16) while a rare word's is large ("vlan", 348 chunks: bound 13). So the query's
words are split: the *essential* ones (the largest bounds) find the candidates, every posting of
theirs scored; the others are looked up only for those candidates, by primary key. A row that
holds none of the essential words scores less than the sum of the others' bounds; when that sum
is below the k-th best candidate's full score, no such row can enter the top k, and the answer is
exactly the full ranking's: the same rows, each scored by the same statement over all of its
words with the whole vault's idf. When the check fails, the k-th score just found is a floor of
the true one, which picks a split that must pass; with none left, the caller ranks in full.

What a search still reads of a common word: its number of rows (an index-only count of its
postings, kept per ``data_version`` like every other reader cache, so a served vault counts each
word once per index change), and its postings in the candidates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# A statement counts these words' rows; the vault's version and row count come with them, so the
# counts and N are one snapshot.
_COUNTS_SQL = """
SELECT (SELECT n FROM data_version), (SELECT rows FROM fts_totals),
    array(SELECT (SELECT count(DISTINCT t.chunk_id) FROM fts_terms t WHERE t.term = u.term)
          FROM unnest(%s::text[]) WITH ORDINALITY AS u(term, i) ORDER BY u.i)
"""

# The ranking over the candidates: rows with an essential word (all its postings) or a phrase
# counted in Python (``given``), each also scored for the other words through the primary key:
# one probe per candidate and word (LATERAL), never a scan of a common word's postings, which
# the planner chose on its generic estimate of the candidates (136 of 140 ms for "vlan" among
# "set network adapter", whose 62,850 rows of "set" it hashed).
# The idf of every scorer comes from its ``df`` over the whole vault, as in fts._BM25_SQL; each
# row also carries the vault's version, so a write between the counts and this is noticed.
_PRUNED_HEAD = """
WITH q(idx, term, essential) AS (
    SELECT * FROM unnest(%(idx)s::int[], %(terms)s::text[], %(essential)s::bool[])
),
w(col, weight) AS (SELECT * FROM unnest(ARRAY[0, 1, 2]::int[], %(weights)s::float8[])),
given(idx, chunk_id, f, len) AS (
    SELECT * FROM unnest(
        %(given_idx)s::int[], %(given_chunk)s::bigint[], %(given_f)s::float8[],
        %(given_len)s::int[]
    )
),
e AS MATERIALIZED (
    SELECT q.idx, t.chunk_id, sum(t.n * w.weight) AS f, min(t.tokens) AS len
    FROM q JOIN fts_terms t ON t.term = q.term JOIN w ON w.col = t.col
    WHERE q.essential GROUP BY q.idx, t.chunk_id
),
cand AS MATERIALIZED (SELECT chunk_id FROM e UNION SELECT chunk_id FROM given),
hits AS (
    SELECT * FROM e
    UNION ALL
    SELECT q.idx, c.chunk_id, x.f, x.len FROM cand c CROSS JOIN q CROSS JOIN LATERAL (
        SELECT sum(t.n * w.weight) AS f, min(t.tokens) AS len
        FROM fts_terms t JOIN w ON w.col = t.col
        WHERE t.term = q.term AND t.chunk_id = c.chunk_id
    ) x
    WHERE NOT q.essential AND x.len IS NOT NULL
    UNION ALL
    SELECT * FROM given
),
"""
# The idf of every scorer from its ``df`` over the whole vault, as in fts._BM25_SQL.
IDF_CTE = """idf AS (
    SELECT d.idx, ln(((SELECT rows::float8 FROM fts_totals) - d.df + 0.5::float8)
        / (d.df + 0.5::float8)) AS v
    FROM unnest(%(df_idx)s::int[], %(df)s::float8[]) AS d(idx, df)
)"""
# A row's score from its ``hits`` (h: phrase index, chunk, weighted frequency, length), summed
# in phrase order as in fts._BM25_SQL; bm25_blocks.py scores its blocks with the same words.
# A word's idf as the score uses it (never below 1e-6), and the vault's average row length.
IDF_VALUE = "(CASE WHEN i.v > 0.0 THEN i.v ELSE 1e-6 END)"
AVGDL = "(SELECT tokens::float8 / nullif(rows, 0)::float8 FROM fts_totals)"
SCORE = f"""-1.0 * sum(
    {IDF_VALUE}
    * ((h.f * (%(k1)s + 1.0)) / (h.f + %(k1)s * (1 - %(b)s + %(b)s * h.len::float8 / {AVGDL})))
    ORDER BY h.idx
)"""
# Each row also carries the vault's version.
_SCORED_SQL = f"""{IDF_CTE}
SELECT h.chunk_id, {SCORE} AS score, (SELECT n FROM data_version) AS version
FROM hits h JOIN idf i ON i.idx = h.idx
WHERE (SELECT rows FROM fts_totals) > 0 {{where}}
GROUP BY h.chunk_id ORDER BY score, h.chunk_id LIMIT %(limit)s
"""
_PRUNED_SQL = _PRUNED_HEAD + _SCORED_SQL
IN_NOTES = "AND h.chunk_id IN (SELECT id FROM chunks WHERE file_id = ANY(%(files)s))"

# Words whose counts a reader keeps (per data_version; the oldest go first).
_MAX_COUNTS = 4096
# The first candidates are the rows of the rarest words, at least this many times k of them...
_PROBE_ROWS = 2
# A primary-key probe costs about this many postings scored in a full ranking, and pruning is
# used when it costs less than that ranking. Fitted at 130k chunks (PowerShell docs), one split
# timed against the full ranking on four queries: a probe 1.5-1.75 postings' worth, and each
# split this admits was faster (252 vs 348 ms, 126 vs 195 ms, ... at load ~24; docs/benchmarks.md).
_PROBE_COST = 2
_WORTH = 1.0
# Float rounding of the bounds' sum against the statement's scores.
_MARGIN = 1e-9


@dataclass(frozen=True)
class Scorer:
    """One phrase of the query: a plain word (``term``) or one counted in Python (``df`` known)."""

    idx: int
    term: str | None
    df: int | None = None


@dataclass(frozen=True)
class Ranking:
    """What the statement needs besides the scorers: BM25's constants, the weights, the limit."""

    k1: float
    b: float
    weights: tuple[float, float, float]
    limit: int
    file_ids: Sequence[int] | None


# (data version, the vault's rows, word → its number of rows)
Counted = tuple[int, int, dict[str, int]]


def counts(db: Any, terms: Sequence[str]) -> Counted:
    """(data version, the vault's rows, term → its number of rows), counting only the words the
    reader has not counted at this version."""
    cached: tuple[int, dict[str, int]] | None = getattr(db, "_bm25_counts", None)
    known = cached[1] if cached is not None else {}
    wanted = sorted({t for t in terms if t not in known})
    version, rows, found = db.run(_COUNTS_SQL, (wanted,)).fetchone()
    if cached is None or cached[0] != version:
        if cached is not None and len(wanted) < len(set(terms)):
            db._bm25_counts = None  # the index changed since: count every word afresh
            return counts(db, terms)
        known = {}
    known.update(zip(wanted, (int(n) for n in found), strict=True))
    while len(known) > _MAX_COUNTS:
        del known[next(iter(known))]
    db._bm25_counts = (int(version), known)
    return int(version), int(rows), {t: known[t] for t in terms}


def bound(df: int, rows: int, k1: float) -> float:
    """The largest share of a row's score a scorer found in ``df`` of ``rows`` rows can add."""
    idf = math.log((rows - df + 0.5) / (df + 0.5)) if rows else 0.0
    return (idf if idf > 0.0 else 1e-6) * (k1 + 1.0)


def split(bounds: dict[int, float], must: set[int], floor: float) -> set[int]:
    """The essential scorers once the k-th score is known to be at least ``floor``: ``must``
    and the largest bounds, leaving out the smallest bounds while they add up to less."""
    left_out: set[int] = set()
    total = 0.0
    for idx in sorted(bounds, key=lambda i: (bounds[i], -i)):  # smallest bound first
        if idx in must:
            continue
        if (total + bounds[idx]) * (1 + _MARGIN) >= floor:
            break
        total += bounds[idx]
        left_out.add(idx)
    return set(bounds) - left_out


def worth_it(dfs: dict[int, int], essential: set[int]) -> bool:
    """Whether ranking from ``essential`` reads less than every posting: its words' postings,
    plus for each of their rows one primary-key probe per other word (``_PROBE_COST`` postings'
    worth each), against all postings of the query."""
    read = sum(dfs[i] for i in essential)
    probes = read * (len(dfs) - len(essential))
    return read + _PROBE_COST * probes < _WORTH * sum(dfs.values())


def first_split(dfs: dict[int, int], must: set[int], limit: int) -> set[int] | None:
    """The first candidates: ``must`` and the rarest words, until they are in ``_PROBE_ROWS``
    times ``limit`` rows: cheap to score in full, and enough to give the k-th score a floor (or
    to pass the check at once). None when that costs about as much as scoring every posting:
    every word of the query is common, and only a full ranking answers it."""
    chosen = set(must)
    found = sum(dfs[i] for i in must)
    for idx in sorted((i for i in dfs if i not in must), key=lambda i: (dfs[i], i)):
        if found >= _PROBE_ROWS * limit:
            break
        chosen.add(idx)
        found += dfs[idx]
    if chosen == set(dfs) or not worth_it(dfs, chosen):
        return None
    return chosen


def top(
    db: Any,
    scorers: Sequence[Scorer],
    given: Sequence[tuple[int, int, float, int]],
    ranking: Ranking,
    most: float = 1.0,
    counted: Counted | None = None,
) -> list[tuple[int, float]] | None:
    """The exact top ``ranking.limit`` (chunk id, score), or None where pruning cannot help (the
    caller then ranks every posting): one scorer, a negative weight, only common words, no
    split that leaves a word out, or a first split reading more than ``most`` of the query's
    postings. ``counted``: what ``counts`` gave for the query's words, when already asked."""
    plain = [s for s in scorers if s.term is not None]
    if len(scorers) < 2 or not plain or min(ranking.weights) < 0:
        return None
    version, rows, df = counted or counts(db, [str(s.term) for s in plain])
    dfs = scorer_dfs(scorers, df)
    bounds = {idx: bound(n, rows, ranking.k1) for idx, n in dfs.items()}
    must = {s.idx for s in scorers if s.term is None}
    essential = first_split(dfs, must, ranking.limit)
    if essential is not None and sum(dfs[i] for i in essential) > most * sum(dfs.values()):
        return None
    for _ in range(2):  # a failed check's floor picks a split that passes (module docstring)
        if essential is None or essential == set(bounds):
            break
        found = _ranked(db, plain, essential, given, dfs, ranking)
        if any(v != version for _, _, v in found):
            db._bm25_counts = None  # written meanwhile: rank in full, as one snapshot
            return None
        rest = sum(bounds[i] for i in set(bounds) - essential)
        theta = -found[-1][1] if len(found) >= ranking.limit else 0.0
        if rest * (1 + _MARGIN) < theta:
            return [(chunk_id, score) for chunk_id, score, _ in found]
        essential = split(bounds, must, theta)
        if not worth_it(dfs, essential):
            return None
    return None


def _ranked(
    db: Any,
    plain: Sequence[Scorer],
    essential: set[int],
    given: Sequence[tuple[int, int, float, int]],
    dfs: dict[int, int],
    ranking: Ranking,
) -> list[tuple[int, float, int]]:
    params = {
        **scored_params(given, dfs, ranking),
        "idx": [s.idx for s in plain],
        "terms": [s.term for s in plain],
        "essential": [s.idx in essential for s in plain],
    }
    sql = _PRUNED_SQL.format(where="" if ranking.file_ids is None else IN_NOTES)
    return [(int(c), float(s), int(v)) for c, s, v in db.run(sql, params)]


def scorer_dfs(scorers: Sequence[Scorer], df: dict[str, int]) -> dict[int, int]:
    """Each scorer's number of rows: a word's from ``counts``, a phrase's as counted in Python."""
    return {s.idx: df[str(s.term)] if s.term is not None else int(s.df or 0) for s in scorers}


def scored_params(
    given: Sequence[tuple[int, int, float, int]], dfs: dict[int, int], ranking: Ranking
) -> dict[str, Any]:
    """The scoring's parameters (``IDF_CTE``, ``SCORE``) and the ``given`` rows'."""
    return {
        "weights": list(ranking.weights),
        "given_idx": [g[0] for g in given],
        "given_chunk": [g[1] for g in given],
        "given_f": [g[2] for g in given],
        "given_len": [g[3] for g in given],
        "df_idx": list(dfs),
        "df": [float(n) for n in dfs.values()],
        "k1": ranking.k1,
        "b": ranking.b,
        "limit": ranking.limit,
        "files": None if ranking.file_ids is None else list(ranking.file_ids),
    }
