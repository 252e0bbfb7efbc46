"""Keyword search on PostgreSQL with the same tokens and the same BM25 as SQLite's FTS5.

PostgreSQL's own text search analyses text differently and ``ts_rank`` is not BM25, so its
answers would drift from the SQLite store's. Instead each chunk's three analysed columns (chunk
text, section, heading context: ``prepare.fts_columns``) are tokenized by SQLite's own tokenizer
(``porter unicode61 remove_diacritics 2`` through apsw, the very code FTS5 runs), and the store
keeps, per chunk, column and term, the token positions and the chunk's number of tokens
(``fts_terms``), per chunk its number of tokens once more (``fts_docs``: what the vault's totals
and doctor's check count) and for the vault the rows and tokens (``fts_totals``), kept in the
same transaction as the chunks.

A query is one of the expressions ``search/fts_query.py`` builds: quoted phrases OR-ed, a ``*``
prefix on a one-word phrase, or a column filter with ``^`` (starts the column). It is parsed into
phrases, each phrase tokenized by the same tokenizer, and ranked with FTS5's ``bm25()`` formula
(fts5_aux.c): k1 = 1.2, b = 0.75, idf = log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, the
phrase's frequency the column-weighted count of its instances (adjacent tokens for a phrase of
several), D the row's tokens in all columns, avgdl the vault's tokens over its rows, negated so
that lower is better.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import apsw

from vaultctx.index.postgres import bm25_blocks, bm25_topk
from vaultctx.index.postgres.bm25_blocks import BLOCK_BITS

K1 = 1.2
B = 0.75
COLUMNS = ("chunk_text", "section", "heading_context")
_PHRASE = re.compile(r'\s*(?:(\w+)\s*:\s*)?(\^)?"((?:[^"]|"")*)"(\*)?\s*')
_LAST_CODE_POINT = "\U0010ffff"


@functools.lru_cache(maxsize=1)
def _tokenizer() -> Any:
    connection = apsw.Connection(":memory:")
    return connection.fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])


def tokens(text: str, *, query: bool = False, prefix: bool = False) -> list[str]:
    """``text``'s tokens exactly as FTS5 sees them in a document (or in a query)."""
    if not text:
        return []
    flags = apsw.FTS5_TOKENIZE_DOCUMENT
    if query:
        flags = apsw.FTS5_TOKENIZE_QUERY | (apsw.FTS5_TOKENIZE_PREFIX if prefix else 0)
    found = _tokenizer()(text.encode(), flags, None, include_offsets=False, include_colocated=False)
    return [str(token) for token in found]


# ---------------------------------------------------------------------------------- writes


def write_rows(db: Any, rows: Sequence[tuple[int, tuple[str, str, str]]]) -> None:
    """Index (chunk id, analysed columns), as an INSERT into the FTS5 table does.

    The postings go in as one COPY in its text format, spelled here: psycopg's per-row array
    adaptation was two thirds of the indexer's write time on SciFact. Each posting carries its
    row's token count (BM25's document length, read with the posting: migration pg002). The
    COPY is streamed ``_STREAM_CHUNKS`` chunks at a time, so the server parses and stores one
    part while this process spells the next, instead of each waiting for the other. The words'
    block bounds (migration pg003) go in with them, appended: a block a write shares with older
    rows gets a second row, and readers take the larger bound of the two."""
    if not rows:
        return
    docs: list[str] = []
    lines: list[str] = []
    total = 0
    escaped: dict[str, str] = {}
    blocks: dict[int, dict[str, list[Any]]] = {}
    counts: dict[str, int] = {}
    with db.reporting_loss(), db.conn.cursor() as cursor:
        with cursor.copy(
            "COPY fts_terms (term, chunk_id, col, n, positions, tokens) FROM STDIN"
        ) as copy:
            for chunk_id, columns in rows:
                text, length = _chunk_postings(chunk_id, columns, escaped, counts)
                _add_bounds(blocks, chunk_id, length, counts)
                lines.append(text)
                docs.append(f"{chunk_id}\t{length}\n")
                total += length
                if len(lines) == _STREAM_CHUNKS:
                    copy.write("".join(lines))
                    lines.clear()
            copy.write("".join(lines))
        with cursor.copy("COPY fts_docs (chunk_id, tokens) FROM STDIN") as copy:
            copy.write("".join(docs))
        with cursor.copy("COPY fts_blocks (term, block, n, ratio, rows) FROM STDIN") as copy:
            copy.write(
                "".join(
                    f"{escaped[term]}\t{block}\t{n}\t{ratio!r}\t{found}\n"
                    for block, terms in blocks.items()
                    for term, (n, ratio, found) in terms.items()
                )
            )
        cursor.execute(
            "UPDATE fts_totals SET rows = rows + %s, tokens = tokens + %s", (len(docs), total)
        )


def _add_bounds(
    blocks: dict[int, dict[str, list[Any]]], chunk_id: int, length: int, counts: dict[str, int]
) -> None:
    """Fold one row's words (``counts``: word → its count in all columns, emptied here) into
    its block's bounds: the largest count, the smallest length per count, the rows. Run once
    per posting, so written for speed."""
    terms = blocks.get(chunk_id >> BLOCK_BITS)
    if terms is None:
        terms = blocks[chunk_id >> BLOCK_BITS] = {}
    get = terms.get
    for term, n in counts.items():
        known = get(term)
        if known is None:
            terms[term] = [n, length / n, 1]
            continue
        if n > known[0]:
            known[0] = n
        if length / n < known[1]:
            known[1] = length / n
        known[2] += 1
    counts.clear()


# About 170 kB of postings: large enough that each write is one cheap call, small enough that
# the server starts on a batch's first chunks long before its last ones are spelled.
_STREAM_CHUNKS = 128

_DOCUMENT = apsw.FTS5_TOKENIZE_DOCUMENT
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _chunk_postings(
    chunk_id: int, columns: tuple[str, str, str], escaped: dict[str, str], counts: dict[str, int]
) -> tuple[str, int]:
    """One chunk's COPY lines (term, chunk, column, count, positions, the chunk's tokens) and
    its number of tokens. This runs once per posting, millions of times on a large vault, so
    it is written for speed: a term is escaped once per batch (``escaped``; the tokenizer never
    emits COPY's special characters, but a term is data, so it is escaped all the same), and
    the row's length, known only after the last column, is added by the final join. Each
    word's count over all columns is added to ``counts`` (the block bounds)."""
    fields: list[str] = []
    append = fields.append
    tokenize = _tokenizer()
    length = 0
    for col, text in enumerate(columns):
        if not text:
            continue
        # ``tokens(text)`` without its per-token copy: the tokenizer already returns strings.
        found = tokenize(
            text.encode(), _DOCUMENT, None, include_offsets=False, include_colocated=False
        )
        length += len(found)
        where: dict[str, list[int]] = {}
        get = where.get
        for position, term in enumerate(found):
            at = get(term)
            if at is None:
                where[term] = [position]
            else:
                at.append(position)
        middle = f"\t{chunk_id}\t{col}\t"
        for term, at in where.items():
            counts[term] = counts.get(term, 0) + len(at)
            spelled = escaped.get(term)
            if spelled is None:
                spelled = escaped[term] = term.translate(_COPY_ESCAPES)
            if len(at) == 1:
                append(f"{spelled}{middle}1\t{{{at[0]}}}")
            else:
                append(f"{spelled}{middle}{len(at)}\t{{{','.join(map(str, at))}}}")
    if not fields:
        return "", length
    end = f"\t{length}\n"
    return end.join(fields) + end, length


def delete_rows(db: Any, chunk_ids: Sequence[int]) -> None:
    ids = list(chunk_ids)
    if not ids:
        return
    db.run(
        "WITH gone AS (DELETE FROM fts_docs WHERE chunk_id = ANY(%s) RETURNING tokens) "
        "UPDATE fts_totals SET rows = rows - (SELECT count(*) FROM gone), "
        "tokens = tokens - (SELECT coalesce(sum(tokens), 0) FROM gone)",
        (ids,),
    )
    db.run("DELETE FROM fts_terms WHERE chunk_id = ANY(%s)", (ids,))


def delete_all(db: Any) -> None:
    db.run("DELETE FROM fts_blocks")
    db.run("DELETE FROM fts_terms")
    db.run("DELETE FROM fts_docs")
    db.run("UPDATE fts_totals SET rows = 0, tokens = 0")


# The keyword tables' indexes, by name, as migrations pg001 to pg003 leave them.
_TERM_INDEXES = (
    (
        "fts_terms_pkey",
        "ALTER TABLE fts_terms ADD CONSTRAINT fts_terms_pkey "
        "PRIMARY KEY (term, chunk_id, col) INCLUDE (n, tokens)",
    ),
    ("fts_terms_chunk", "CREATE INDEX fts_terms_chunk ON fts_terms(chunk_id)"),
    (
        "fts_terms_first",
        "CREATE INDEX fts_terms_first ON fts_terms(term, col) WHERE positions[1] = 0",
    ),
    (
        "fts_blocks_term",
        "CREATE INDEX fts_blocks_term ON fts_blocks(term, block) INCLUDE (n, ratio, rows)",
    ),
)


# Building fts_terms_chunk at 130k chunks (5.8M postings): 5.2-5.7 s with 64 MB, 4.0-4.4 s with
# this (docs/benchmarks.md).
_BUILD_MEMORY = "256MB"


def defer_term_indexes(db: Any) -> None:
    """Before an indexing run: an empty keyword table (a first or rebuilt index) loses its
    indexes, which ``build_term_indexes`` puts back after the load. Keeping three b-trees up to
    date row by row made loading SciFact's 683,630 postings 2-2.5x slower than loading them bare
    and sorting each index once (docs/benchmarks.md). A table with rows gets back any index an
    interrupted load left out, so the run's deletes find their rows by index."""
    if db.run("SELECT EXISTS (SELECT 1 FROM fts_terms)").fetchone()[0]:
        build_term_indexes(db)
        return
    with db.transaction():
        db.run("ALTER TABLE fts_terms DROP CONSTRAINT IF EXISTS fts_terms_pkey")
        db.run("DROP INDEX IF EXISTS fts_terms_chunk")
        db.run("DROP INDEX IF EXISTS fts_terms_first")
        db.run("DROP INDEX IF EXISTS fts_blocks_term")


def missing_term_indexes(db: Any) -> list[str]:
    """The statements that build the keyword table's missing indexes."""
    present = {
        str(row[0])
        for row in db.run(
            "SELECT indexname FROM pg_indexes "
            "WHERE schemaname = current_schema() AND tablename IN ('fts_terms', 'fts_blocks')"
        )
    }
    return [sql for name, sql in _TERM_INDEXES if name not in present]


def build_term_indexes(db: Any) -> None:
    """The keyword table's indexes that are missing, then fresh planner statistics (a table
    loaded in one go has none until autovacuum's next visit)."""
    missing = missing_term_indexes(db)
    if not missing:
        return
    # Sorting millions of postings in 64 MB (the server's default) spills to disk; more memory
    # for this session's builds only, and never less than the server already allows.
    db.run(
        "SELECT set_config('maintenance_work_mem', %s, false) WHERE "
        "pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes(%s)",
        (_BUILD_MEMORY, _BUILD_MEMORY),
    )
    try:
        for sql in missing:
            db.run(sql)
    finally:
        db.run("RESET maintenance_work_mem")
    db.run("ANALYZE fts_terms, fts_docs, fts_blocks, chunks")


def statistics_problems(db: Any) -> list[str]:
    """Where the stored totals disagree with the rows they count (BM25 would drift)."""
    rows, tokens_total = db.run("SELECT rows, tokens FROM fts_totals").fetchone()
    counted, summed = db.run("SELECT count(*), coalesce(sum(tokens), 0) FROM fts_docs").fetchone()
    problems = []
    if (int(rows), int(tokens_total)) != (int(counted), int(summed)):
        problems.append(
            f"keyword statistics: totals say {rows} rows and {tokens_total} tokens, the rows "
            f"hold {counted} and {summed}"
        )
    missing = db.run(
        "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
        "(SELECT 1 FROM fts_docs d WHERE d.chunk_id = c.id)"
    ).fetchone()[0]
    if missing:
        problems.append(f"keyword index: {missing} chunks have no keyword entry")
    return problems


# ---------------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class Phrase:
    """One quoted phrase of a query: its tokens, the last one a prefix when ``prefix``; only in
    column ``column`` (None: any); ``initial``: it must start the column."""

    terms: tuple[str, ...]
    prefix: bool
    column: int | None
    initial: bool


def parse(match: str) -> list[Phrase]:
    """The phrases of an expression ``search/fts_query.py`` built (ValueError on others)."""
    phrases: list[Phrase] = []
    for part in re.split(r"\s+OR\s+", match.strip()):
        found = _PHRASE.fullmatch(part)
        if found is None:
            raise ValueError(f"not a query vaultctx builds: {match!r}")
        column_name, caret, text, star = found.groups()
        column = None if column_name is None else COLUMNS.index(column_name)
        terms = tokens(text.replace('""', '"'), query=True, prefix=bool(star))
        phrases.append(Phrase(tuple(terms), bool(star), column, bool(caret)))
    return phrases


# (chunk id, column) → term → (count, positions or None)
_Postings = dict[tuple[int, int], dict[str, tuple[int, list[int] | None]]]


# Most phrases of several tokens (``get aduser`` from "Get-ADUser") pair a common token with a
# rare one. Only the rows holding every token of the phrase can count, so PostgreSQL joins the
# tokens' postings (from the rare side, through the primary key) and sends back just those rows:
# the common token's tens of thousands of postings never cross the wire. More distinct tokens
# than this are fetched whole, to keep the planner's join search short.
_MAX_JOINED = 6


def _joined(phrase: Phrase) -> bool:
    return not phrase.prefix and 2 <= len(set(phrase.terms)) <= _MAX_JOINED


def _joined_sql(count: int) -> str:
    joins = " ".join(
        f"JOIN fts_terms a{i} ON a{i}.chunk_id = a0.chunk_id AND a{i}.col = a0.col "
        f"AND a{i}.term = %s"
        for i in range(1, count)
    )
    return (
        "SELECT t.term, t.chunk_id, t.col, t.n, t.positions, t.tokens FROM fts_terms t "
        f"JOIN (SELECT a0.chunk_id, a0.col FROM fts_terms a0 {joins} WHERE a0.term = %s) m "
        "ON t.chunk_id = m.chunk_id AND t.col = m.col WHERE t.term = ANY(%s)"
    )


@dataclass
class _Fetched:
    """The postings of a query's phrases, per prefix the terms it matched, and the token count
    of every row they are in (BM25's document length)."""

    postings: _Postings
    matched: dict[str, list[str]]
    lengths: dict[int, int]


def _fetch(db: Any, phrases: list[Phrase]) -> _Fetched:
    """The postings of every term the phrases name (of a joined phrase only where all its
    terms are), and per prefix the terms it matched."""
    exact: set[str] = set()
    need_positions: set[str] = set()
    prefixes: set[str] = set()
    joined: list[list[str]] = []
    for phrase in phrases:
        if _joined(phrase):
            joined.append(sorted(set(phrase.terms)))
            continue
        whole = phrase.terms[:-1] if phrase.prefix else phrase.terms
        exact.update(whole)
        if phrase.prefix and phrase.terms:
            prefixes.add(phrase.terms[-1])
        if len(phrase.terms) > 1 or phrase.initial:
            need_positions.update(phrase.terms)
    sql = [
        "SELECT term, chunk_id, col, n, CASE WHEN term = ANY(%s) OR %s THEN positions END, "
        "tokens FROM fts_terms WHERE term = ANY(%s)"
    ]
    params: list[Any] = [sorted(need_positions), False, sorted(exact)]
    for terms in joined:
        sql.append(_joined_sql(len(terms)))
        params += [*terms[1:], terms[0], terms]
    for prefix in sorted(prefixes):
        sql.append(
            "SELECT term, chunk_id, col, n, CASE WHEN %s THEN positions END, tokens "
            "FROM fts_terms WHERE term >= %s AND term < %s"
        )
        params += [prefix in need_positions, prefix, prefix + _LAST_CODE_POINT]
    found = _Fetched({}, {prefix: [] for prefix in prefixes}, {})
    postings, matched = found.postings, found.matched
    for term, chunk_id, col, count, positions, length in db.run(" UNION ALL ".join(sql), params):
        found.lengths[int(chunk_id)] = int(length)
        entry = postings.setdefault((int(chunk_id), int(col)), {})
        known = entry.get(term)  # a term both asked for and matched by a prefix comes twice
        entry[term] = (int(count), positions if known is None else known[1] or positions)
        for prefix in prefixes:
            if term.startswith(prefix):
                matched[prefix].append(term)
    return found


def _instances(phrase: Phrase, terms: dict[str, tuple[int, list[int] | None]]) -> int:
    """How many times ``phrase`` occurs in one column of one row (its postings ``terms``)."""
    if not phrase.terms:
        return 0
    last_prefix = phrase.terms[-1] if phrase.prefix else None
    if len(phrase.terms) == 1 and not phrase.initial:
        if last_prefix is None:
            return terms[phrase.terms[0]][0] if phrase.terms[0] in terms else 0
        return sum(count for term, (count, _) in terms.items() if term.startswith(last_prefix))
    sets: list[set[int]] = []
    for index, term in enumerate(phrase.terms):
        if last_prefix is not None and index == len(phrase.terms) - 1:
            where = {
                p for t, (_, ps) in terms.items() if t.startswith(last_prefix) for p in ps or ()
            }
        else:
            where = set(terms[term][1] or ()) if term in terms else set()
        if not where:
            return 0
        sets.append(where)
    starts = sets[0] & {0} if phrase.initial else sets[0]
    return sum(1 for p in starts if all(p + i in s for i, s in enumerate(sets[1:], 1)))


def _frequencies(
    phrases: list[Phrase], postings: _Postings, weights: Sequence[float]
) -> list[dict[int, float]]:
    """Per phrase: chunk id → the weighted count of its instances (FTS5's ``aFreq``)."""
    found: list[dict[int, float]] = [{} for _ in phrases]
    for (chunk_id, col), terms in postings.items():
        for index, phrase in enumerate(phrases):
            if phrase.column is not None and phrase.column != col:
                continue
            count = _instances(phrase, terms)
            if count:
                weight = weights[col] if col < len(weights) else 1.0
                frequency = found[index].get(chunk_id, 0.0)
                for _ in range(count):  # FTS5 adds the weight once per instance
                    frequency += weight
                found[index][chunk_id] = frequency
    return found


def _is_plain(phrase: Phrase) -> bool:
    """One whole token in any column: counted by PostgreSQL from ``fts_terms.n`` alone."""
    return len(phrase.terms) == 1 and not phrase.prefix and not phrase.initial


def matching_chunks(db: Any, match: str) -> set[int]:
    """The chunks ``match`` finds (the title lookup: a filter, not a ranking). A phrase that
    must start its column is looked up from its rarest token, each other token checked by
    primary key (``_initial_statement``); others go through ``_frequencies``."""
    found: set[int] = set()
    for phrase in parse(match):
        if _looked_up_at_start(phrase):
            found |= {int(r[0]) for r in db.run(*_initial_statement(phrase))}
        else:
            postings = _fetch(db, [phrase]).postings
            found |= set(_frequencies([phrase], postings, (1.0, 1.0, 1.0))[0])
    return found


# The notes of the chunks found, in the order the title lookup reads them.
_NOTES_OF = (
    "SELECT f.id, f.title, c.ordinal, c.id FROM ({found}) m JOIN chunks c ON c.id = m.chunk_id "
    "JOIN files f ON f.id = c.file_id ORDER BY c.ordinal, c.id"
)


def matching_notes(db: Any, match: str) -> list[tuple[int, str, int, int]]:
    """(note id, title, chunk ordinal, chunk id) of each chunk ``match`` finds, by ordinal then
    chunk id. The title query (one phrase that starts its column: ``build_title_query``) is
    looked up and joined to its notes in one statement: a search sends it every time, and the
    second round trip (with its JSON list of ids) was ~5 % of a served search's samples under
    the interpreter lock (py-spy; docs/benchmarks.md, "Plans made once per reader ...")."""
    phrases = parse(match)
    if len(phrases) == 1 and _looked_up_at_start(phrases[0]):
        sql, params = _initial_statement(phrases[0])
        rows = db.run(_NOTES_OF.format(found=sql), params)
    else:
        found = sorted(matching_chunks(db, match))
        rows = db.run(
            _NOTES_OF.format(found="SELECT unnest(%(ids)s::bigint[]) AS chunk_id"), {"ids": found}
        )
    return [
        (int(note), str(title), int(ordinal), int(chunk)) for note, title, ordinal, chunk in rows
    ]


def _looked_up_at_start(phrase: Phrase) -> bool:
    """A phrase of whole tokens that must start one column: read from the index of column-initial
    tokens or from its rarest token (``_initial_statement``)."""
    return phrase.initial and phrase.column is not None and not phrase.prefix and bool(phrase.terms)


# A one-token phrase that starts its column: the partial index fts_terms_first lists exactly
# the rows whose column begins with a token.
_INITIAL_TOKEN_SQL = (
    "SELECT chunk_id FROM fts_terms WHERE term = %(term)s AND col = %(col)s AND positions[1] = 0"
)

# A phrase of several tokens that starts its column is looked up from its RAREST token: each
# token's postings in the column are counted up to ``_RARITY_CAP`` (a few index pages each), the
# token with the fewest (the earliest on a tie) drives, and every other token is checked at its
# offset by primary key. The planner cannot choose this itself: it estimates the partial index's
# ``positions[1] = 0`` at a fixed 0.5 %, so on the PowerShell docs it started every "Get-…" title
# from the 33,587 headings that begin with "get" (200-500 ms) where a rare token (or one with no
# postings at all) answers in a few milliseconds (docs/benchmarks.md). One statement text for
# every phrase, and its shape (one driving row) is the same under a generic plan.
_RARITY_CAP = 1000
_INITIAL_PHRASE_SQL = """
WITH p(term, pos) AS (SELECT * FROM unnest(%(terms)s::text[], %(offsets)s::int[])),
d AS (
    SELECT p.term, p.pos FROM p ORDER BY (
        SELECT count(*) FROM (
            SELECT 1 FROM fts_terms x WHERE x.term = p.term AND x.col = %(col)s LIMIT %(cap)s
        ) s
    ), p.pos LIMIT 1
)
SELECT a.chunk_id FROM d JOIN fts_terms a
ON a.term = d.term AND a.col = %(col)s AND d.pos = ANY(a.positions)
WHERE NOT EXISTS (
    SELECT 1 FROM p WHERE NOT EXISTS (
        SELECT 1 FROM fts_terms x
        WHERE x.term = p.term AND x.chunk_id = a.chunk_id AND x.col = %(col)s
        AND p.pos = ANY(x.positions)
    )
)
"""


def _initial_statement(phrase: Phrase) -> tuple[str, dict[str, Any]]:
    """The statement (and its parameters) whose rows are the chunk ids whose column
    ``phrase.column`` starts with the phrase's tokens, in order; each chunk once."""
    if len(phrase.terms) == 1:
        return _INITIAL_TOKEN_SQL, {"term": phrase.terms[0], "col": phrase.column}
    params = {
        "terms": list(phrase.terms),
        "offsets": list(range(len(phrase.terms))),
        "col": phrase.column,
        "cap": _RARITY_CAP,
    }
    return _INITIAL_PHRASE_SQL, params


# FTS5's bm25() over the hits: plain phrases counted here from fts_terms, the others' weighted
# frequencies passed in (``given``); idf from each phrase's number of rows, over the whole vault;
# each row's length read from its postings (the covering primary key), so the cost follows the
# query's postings: a join to fts_docs for it hashed that whole table on every search. The
# vault's totals are scalar subqueries (computed once, and no join for the planner to misjudge),
# read in the same round trip. The score is bm25_topk's, word for word, so every ranker's
# scores agree to the bit; only the idf's counts differ (here: from the hits themselves).
_BM25_SQL = f"""
WITH q(idx, term) AS (SELECT * FROM unnest(%(idx)s::int[], %(terms)s::text[])),
w(col, weight) AS (SELECT * FROM unnest(ARRAY[0, 1, 2]::int[], %(weights)s::float8[])),
hits AS (
    SELECT q.idx, t.chunk_id, sum(t.n * w.weight) AS f, min(t.tokens) AS len
    FROM q JOIN fts_terms t ON t.term = q.term JOIN w ON w.col = t.col
    GROUP BY q.idx, t.chunk_id
    UNION ALL
    SELECT * FROM unnest(
        %(given_idx)s::int[], %(given_chunk)s::bigint[], %(given_f)s::float8[],
        %(given_len)s::int[]
    )
),
idf AS (
    SELECT idx, ln(((SELECT rows::float8 FROM fts_totals) - count(*) + 0.5::float8)
        / (count(*) + 0.5::float8)) AS v
    FROM hits GROUP BY idx
)
SELECT h.chunk_id, {bm25_topk.SCORE} AS score
FROM hits h JOIN idf i ON i.idx = h.idx
WHERE (SELECT rows FROM fts_totals) > 0 {{where}}
GROUP BY h.chunk_id ORDER BY score, h.chunk_id LIMIT %(limit)s
"""
_IN_NOTES = "AND h.chunk_id IN (SELECT id FROM chunks WHERE file_id = ANY(%(files)s))"


# MaxScore is tried first when its first candidates are the rows of words holding at most this
# share of the query's postings: then its check passed on every one of the PowerShell bench's
# questions and it beat the blocks (one very rare word among common ones, "set network adapter
# VLAN"); above it, it failed or was slower on about half of them, and the blocks rank instead
# (docs/benchmarks.md, "Block bounds").
_MAXSCORE_SHARE = 0.03

# Below this many rows over the query's words (each word's rows, plus the rows of phrases
# counted in Python), scoring every posting costs less than either pruned ranking's extra work,
# so neither is tried. Measured per question, both ways alternated: on the Obsidian Help vault
# (1,749 chunks) the full ranking was the faster for all 94 questions (up to 1,655 rows; the
# pruned ones took 1.6x its time at the median); on the PowerShell docs (130k chunks) the two
# crossed between 3,242 and 3,970 rows, and from 11,167 rows on the pruned ones were 1.3-28x
# faster (docs/benchmarks.md, "Plans made once per reader, small questions ranked in full").
PRUNE_FROM = 2000


def bm25(
    db: Any,
    match: str,
    limit: int,
    weights: tuple[float, float, float],
    file_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, FTS5 bm25 score) best (lowest) first, as ``search_queries.bm25_candidates``:
    statistics over the whole vault, rows only from ``file_ids``' notes when given.

    PostgreSQL aggregates and ranks, so only the top ``limit`` rows cross the wire: a common
    word's thousands of postings never reach Python. Phrases that need token positions (several
    tokens, a prefix) are counted in Python first and handed over with their frequencies. The
    top ``limit`` is found without scoring every posting where that provably gives the same
    rows: by MaxScore around a very rare word (bm25_topk.py), else block by block from stored
    bounds (bm25_blocks.py); every posting is scored when neither applies, or when the query's
    words hold so few rows (``PRUNE_FROM``) that scoring them all is the cheaper way.
    """
    phrases = parse(match)
    plain = [(index, p.terms[0]) for index, p in enumerate(phrases) if _is_plain(p)]
    other = [(index, p) for index, p in enumerate(phrases) if not _is_plain(p)]
    given: list[tuple[int, int, float, int]] = []
    if other:
        fetched = _fetch(db, [p for _, p in other])
        frequencies = _frequencies([p for _, p in other], fetched.postings, weights)
        for (index, _), found in zip(other, frequencies, strict=True):
            given += [(index, c, f, fetched.lengths[c]) for c, f in found.items()]
    scorers = [bm25_topk.Scorer(i, t) for i, t in plain]
    scorers += [bm25_topk.Scorer(i, None, sum(1 for g in given if g[0] == i)) for i, _ in other]
    ranking = bm25_topk.Ranking(K1, B, weights, limit, file_ids)
    counted = bm25_topk.counts(db, [t for _, t in plain]) if plain else None
    if counted is None or sum(counted[2].values()) + len(given) >= PRUNE_FROM:
        pruned = bm25_topk.top(db, scorers, given, ranking, _MAXSCORE_SHARE, counted)
        if pruned is None:  # a version MaxScore saw move is noticed here again, and ranked in full
            pruned = bm25_blocks.top(db, scorers, given, ranking, counted)
        if pruned is not None:
            return pruned
    params = {
        "idx": [i for i, _ in plain],
        "terms": [t for _, t in plain],
        "weights": list(weights),
        "given_idx": [g[0] for g in given],
        "given_chunk": [g[1] for g in given],
        "given_f": [g[2] for g in given],
        "given_len": [g[3] for g in given],
        "k1": K1,
        "b": B,
        "limit": limit,
        "files": None if file_ids is None else list(file_ids),
    }
    sql = _BM25_SQL.format(where="" if file_ids is None else _IN_NOTES)
    return [(int(chunk_id), float(score)) for chunk_id, score in db.run(sql, params)]
