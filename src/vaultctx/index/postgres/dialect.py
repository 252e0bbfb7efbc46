"""SQLite's spelling of the portable statements, translated to PostgreSQL's in one place.

Every statement in ``index/`` is written once, for SQLite, with ``?`` placeholders. The handful of
SQLite idioms they use have exact PostgreSQL equivalents, rewritten here once per statement text
(cached): ``IN (SELECT value FROM json_each(?))`` becomes ``= ANY(%s)`` with the JSON list bound
as an array, ``vec_int8(?)`` a ``halfvec`` value, ``COLLATE NOCASE`` and SQLite's
case-insensitive ``LIKE`` become ``lower()`` and ``ILIKE``, ``CROSS JOIN … ON`` (SQLite's hint
for the join order) a plain ``JOIN``, ``->`` on front matter JSON ``#>``. Text inside string
literals is left alone (its ``%`` doubled for psycopg).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultctx.index.postgres.halfvec import int8_to_halfvec_text

_LITERAL = re.compile(r"'(?:[^']|'')*'")
# Markers for placeholders whose values are converted before binding.
_ARRAY, _VECTOR, _PATH, _PLAIN = "\x01", "\x02", "\x03", "\x04"
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"IN\s*\(\s*SELECT value FROM json_each\(\?\)\s*\)"), f"= ANY({_ARRAY})"),
    (re.compile(r"vec_int8\(\?\)"), f"{_VECTOR}::halfvec"),
    (re.compile(r"([\w.]+) = \? COLLATE NOCASE"), rf"lower(\1) = lower({_PLAIN})"),
    (re.compile(r"GROUP BY ([\w.]+) COLLATE NOCASE"), r"GROUP BY lower(\1)"),
    (re.compile(r"\b(t\.tag) = \?"), rf"lower(\1) = lower({_PLAIN})"),
    (re.compile(r"\(f\.front_matter -> \?\)"), f"(f.front_matter::jsonb #> {_PATH})::text"),
    (re.compile(r"f\.front_matter -> \?"), f"(f.front_matter::jsonb #> {_PATH})::text"),
    (re.compile(r"\bCROSS JOIN\b"), "JOIN"),
    (re.compile(r"\binstr\("), "strpos("),
    (re.compile(r"\bLIKE\b"), "ILIKE"),
)
_KIND = {_ARRAY: "array", _VECTOR: "vector", _PATH: "path", _PLAIN: "plain", "?": "plain"}
_PLACEHOLDER = re.compile(f"[?{_ARRAY}{_VECTOR}{_PATH}{_PLAIN}]")
_PATH_PART = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Statement:
    """A translated statement and, per placeholder, how its value is converted."""

    sql: str
    kinds: tuple[str, ...]

    def bind(self, params: Any) -> Sequence[Any]:
        """The values in PostgreSQL's terms (always a sequence: psycopg then unescapes ``%%``)."""
        if params is None:
            return ()
        values = list(params)
        if all(kind == "plain" for kind in self.kinds):
            return values
        return [_convert(kind, value) for kind, value in zip(self.kinds, values, strict=True)]


def _convert(kind: str, value: Any) -> Any:
    if value is None or kind == "plain":
        return value
    if kind == "array":
        return list(json.loads(value))
    if kind == "vector":
        return int8_to_halfvec_text(bytes(value))
    # A JSON path of SQLite's, '$."a"."b"': the keys as a text[] for #>.
    return [part.replace('\\"', '"') for part in _PATH_PART.findall(str(value))]


@functools.lru_cache(maxsize=2048)
def translate(sql: str) -> Statement:
    """``sql`` (SQLite's spelling) in PostgreSQL's, with its placeholders' conversions."""
    pieces: list[str] = []
    kinds: list[str] = []
    last = 0
    for literal in _LITERAL.finditer(sql):
        pieces.append(_code(sql[last : literal.start()], kinds))
        pieces.append(literal.group().replace("%", "%%"))
        last = literal.end()
    pieces.append(_code(sql[last:], kinds))
    return Statement("".join(pieces), tuple(kinds))


def _code(text: str, kinds: list[str]) -> str:
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    text = text.replace("%", "%%")

    def placeholder(match: re.Match[str]) -> str:
        kinds.append(_KIND[match.group()])
        return "%s"

    return _PLACEHOLDER.sub(placeholder, text)
