"""BM25's top k a block of rows at a time, the most promising blocks first (block-max), same
scores as FTS5.

MaxScore (bm25_topk.py) bounds a word's share of a row's score by ``idf * (k1 + 1)``, the most
any row could get. Real rows get about half of that, so a query whose words are all in
thousands of rows ("smb share permissions", "-ErrorAction SilentlyContinue") never passed its
check and scored every posting. The share is ``idf * f(k1 + 1) / (f + k1(1 - b + b D/avgdl))``:
larger with the word's weighted count ``f`` in the row, smaller with the row's length ``D``.
Migration pg003 keeps, per word and block of 64 chunk ids, the largest count of the word in
one of the block's rows and the smallest ``D / count``; with the weights' largest ``w``,
``f <= w * count`` and ``D / f >= (D / count) / w``, so the share of any row of the block is at
most ``idf (k1 + 1) / (1 + k1 (1 - b) / (w n) + k1 b (ratio / w) / avgdl)``, whatever the
vault's average length is when the question is asked. A phrase counted in Python (``given``)
is bounded by its rows' exact shares. The blocks are ranked by the sum of their words' bounds
and scored exactly in two rounds of one statement: the best-bound blocks first, then every
other block whose bound reaches the k-th score the first round found. No row of the blocks left
can enter the top k, so the answer is the full ranking's, each row scored by the same
expression over all of its words.

The bounds stay valid as the vault changes: a write appends its blocks' rows (a reader takes
the largest bound among a block's rows), a delete leaves its rows (a larger bound than needed
is still a bound), and ``N`` and avgdl are taken at question time. A word whose block rows
count fewer rows than it is in (postings written around ``fts.write_rows``) is ranked in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vaultctx.index.postgres import bm25_topk
from vaultctx.index.postgres.bm25_topk import Ranking, Scorer

# 64 chunk ids a block: migration pg003 spells the same number. At 130k chunks a frequent word
# is in ~2,000 blocks; smaller blocks bound more tightly but cost more bound rows to read.
BLOCK_BITS = 6

# One statement, two rounds (one round trip). Per word and block the largest bound among its
# rows (fts.write_rows appends); a block's bound is the sum of its words' and of the given
# phrases' (each phrase's largest exact share among the block's rows). The first round scores
# the best-bound blocks holding about ``budget`` postings, the second every other block whose
# bound reaches the k-th score the first found (all of them when it found fewer than k rows).
# Postings are read by one range scan per word and block (LATERAL: no plan hashes a word's
# whole postings). The last row reports the vault's version and whether every word's blocks
# count all of its rows.
_HITS = """
{name} AS (
    SELECT q.idx, x.chunk_id, sum(x.n * w.weight) AS f, min(x.tokens) AS len
    FROM q CROSS JOIN {blocks} r CROSS JOIN LATERAL (
        SELECT t.chunk_id, t.col, t.n, t.tokens FROM fts_terms t
        WHERE t.term = q.term AND t.chunk_id >= r.block << {bits}
            AND t.chunk_id < (r.block + 1) << {bits}
    ) x JOIN w ON w.col = x.col
    GROUP BY q.idx, x.chunk_id
    UNION ALL
    SELECT g.* FROM given g WHERE g.chunk_id >> {bits} IN (SELECT block FROM {blocks})
),
{top} AS MATERIALIZED (
    SELECT h.chunk_id, {score} AS score
    FROM {name} h JOIN idf i ON i.idx = h.idx
    WHERE (SELECT rows FROM fts_totals) > 0 {{where}}
    GROUP BY h.chunk_id ORDER BY score, h.chunk_id LIMIT %(limit)s
),"""


def _hits(name: str, blocks: str, top: str) -> str:
    return _HITS.format(name=name, blocks=blocks, top=top, bits=BLOCK_BITS, score=bm25_topk.SCORE)


_IDF = bm25_topk.IDF_VALUE
_AVGDL = bm25_topk.AVGDL
# Float rounding of a block's bound against the statement's scores.
_MARGIN = 1e-9
_RANKED_SQL = (
    """
WITH q(idx, term, df) AS (
    SELECT * FROM unnest(%(idx)s::int[], %(terms)s::text[], %(dfs)s::int[])
),
w(col, weight) AS (SELECT * FROM unnest(ARRAY[0, 1, 2]::int[], %(weights)s::float8[])),
given(idx, chunk_id, f, len) AS (
    SELECT * FROM unnest(
        %(given_idx)s::int[], %(given_chunk)s::bigint[], %(given_f)s::float8[],
        %(given_len)s::int[]
    )
),
"""
    + bm25_topk.IDF_CTE
    + f""",
per AS MATERIALIZED (
    SELECT q.idx, b.block, max(b.n) AS n, min(b.ratio) AS ratio, sum(b.rows) AS rows
    FROM q JOIN fts_blocks b ON b.term = q.term GROUP BY q.idx, b.block
),
ub AS MATERIALIZED (
    SELECT block, sum(ub) AS ub, sum(size) AS size FROM (
        SELECT p.block, {_IDF} * (%(k1)s + 1.0) / (1.0 + %(k1)s * (1.0 - %(b)s) / (p.n * %(w)s)
            + %(k1)s * %(b)s * (p.ratio / %(w)s) / {_AVGDL}) AS ub, p.rows AS size
        FROM per p JOIN idf i ON i.idx = p.idx
        UNION ALL
        SELECT g.chunk_id >> {BLOCK_BITS}, max({_IDF} * ((g.f * (%(k1)s + 1.0))
            / (g.f + %(k1)s * (1 - %(b)s + %(b)s * g.len::float8 / {_AVGDL})))), count(*)
        FROM given g JOIN idf i ON i.idx = g.idx GROUP BY g.idx, g.chunk_id >> {BLOCK_BITS}
    ) x GROUP BY block
),
first AS MATERIALIZED (
    SELECT block FROM (
        SELECT block, sum(size) OVER (ORDER BY ub DESC, block) - size AS before FROM ub
    ) x WHERE before < %(budget)s
),"""
    + _hits("hits1", "first", "top1")
    + f"""
second AS MATERIALIZED (
    SELECT block FROM ub WHERE block NOT IN (SELECT block FROM first) AND ub * (1 + {_MARGIN}) >= (
        SELECT CASE WHEN count(*) >= %(limit)s THEN -max(score) ELSE 0.0 END FROM top1
    )
),"""
    + _hits("hits2", "second", "top2")
    + """
found AS (
    SELECT * FROM (SELECT * FROM top1 UNION ALL SELECT * FROM top2) x
    ORDER BY score, chunk_id LIMIT %(limit)s
)
SELECT chunk_id, score, NULL::bigint, NULL::bool FROM found
UNION ALL
SELECT NULL, NULL, (SELECT n FROM data_version), NOT EXISTS (
    SELECT 1 FROM q WHERE q.df > coalesce((SELECT sum(rows) FROM per WHERE per.idx = q.idx), 0)
)
"""
)

# The first round scores blocks holding about this many times k postings: at 130k chunks the
# k-th score it finds leaves a second round of ~0.1-0.5x the query's postings (simulated on the
# PowerShell docs' questions, docs/benchmarks.md).
_FIRST_ROWS = 16
_Given = tuple[int, int, float, int]


def top(
    db: Any,
    scorers: Sequence[Scorer],
    given: Sequence[_Given],
    ranking: Ranking,
    counted: bm25_topk.Counted | None = None,
) -> list[tuple[int, float]] | None:
    """The exact top ``ranking.limit`` (chunk id, score), or None where the blocks cannot help
    (the caller ranks every posting): no plain word, a negative weight, an empty vault, bounds
    missing, or a write between the reads. ``counted``: ``bm25_topk.counts`` of the query's
    words, when already asked."""
    plain = [s for s in scorers if s.term is not None]
    if not plain or min(ranking.weights) < 0 or max(ranking.weights) <= 0:
        return None
    version, rows, df = counted or bm25_topk.counts(db, [str(s.term) for s in plain])
    if rows <= 0:
        return None
    dfs = bm25_topk.scorer_dfs(scorers, df)
    params = {
        **bm25_topk.scored_params(given, dfs, ranking),
        "idx": [s.idx for s in plain],
        "terms": [s.term for s in plain],
        "dfs": [dfs[s.idx] for s in plain],
        "w": max(ranking.weights),
        "budget": _FIRST_ROWS * ranking.limit,
    }
    sql = _RANKED_SQL.format(where="" if ranking.file_ids is None else bm25_topk.IN_NOTES)
    found = db.run(sql, params).fetchall()
    _, _, seen, complete = found[-1]
    if int(seen) != version:
        db._bm25_counts = None  # written meanwhile: rank in full, as one snapshot
        return None
    if not complete:
        return None
    return [(int(chunk_id), float(score)) for chunk_id, score, _, _ in found[:-1]]
