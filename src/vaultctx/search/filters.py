"""Search filters: which notes a search or a listing may return.

One ``Filters`` value, built from the strings users and models type and checked by its
constructor, serves the API, the CLI and the MCP tools. It narrows the candidate notes *before*
ranking:
``matching_file_ids`` feeds BM25 and the vector KNN, so ``limit`` results still come back when
enough notes match. Filtering a ranked top-k afterwards would return few or none for a selective
filter.

Folder, tags, type and modification dates are decided by the index (``index/filter_sql.py``).
Front matter conditions are decided here on the values SQLite extracts from the stored JSON,
because they compare by the kind of value asked for (dates as dates, numbers as numbers, lists by
membership), which SQL's own comparisons cannot do.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NoReturn

from vaultctx.errors import VaultctxError
from vaultctx.index.db import IndexDatabase
from vaultctx.index.filter_sql import TAGS_KEY, notes_passing
from vaultctx.vault.paths import normalize_vault_path

Value = str | bool | int | float | dt.date  # dt.datetime is a dt.date too

OPERATORS = ("=", "!=", ">", ">=", "<", "<=", "~")
CONDITION_SYNTAX = (
    "KEY OP VALUE with OP one of = != > >= < <= ~ (contains); "
    "dotted keys reach into nested front matter"
)
CONDITION_EXAMPLES = (
    "e.g. `status = active`, `project.status != done`, `rating >= 4`, `due < 2026-01-31`, "
    '`title ~ meeting`, `owner = "Kim, J."`'
)
TIME_SYNTAX = "use YYYY-MM-DD (e.g. 2024-03-01), YYYY-MM-DDTHH:MM, or an age such as 12h, 7d, 2w"

# The key ends at the first operator character; the operator is the whole run of them, so a
# misspelt one (`=>`, `<>`, `==`) is refused as written instead of read as `=` or `<` followed by
# a value that starts with the rest.
_CONDITION = re.compile(r"(?P<key>[^=!<>~]*)(?P<op>[=!<>~]+)(?P<value>.*)", re.DOTALL)
_OPERATOR_RUN = re.compile(r"[=!<>~][=!<>~\s]*")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*")
_AGE = re.compile(r"(?P<count>\d+)\s*(?P<unit>[hdw])", re.IGNORECASE)
_AGE_UNITS = {"h": dt.timedelta(hours=1), "d": dt.timedelta(days=1), "w": dt.timedelta(weeks=1)}
_INT64_LIMIT = 2**63 - 1


def _datetime(text: str) -> dt.datetime:
    """RFC 3339 lets a time end in ``z`` as well as ``Z`` (UTC); Python 3.11 reads only ``Z``,
    so a lower-case one was refused as "not a date"."""
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    return dt.datetime.fromisoformat(text)


# mtime_ns is a signed 64-bit integer: it counts from September 1677 to April 2262.
_FIRST_YEAR, _LAST_YEAR = 1678, 2261
# Python refuses to turn longer digit strings into an int; such numbers compare as floats.
_MAX_INT_DIGITS = 4000
_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')


class InvalidFilterError(VaultctxError):
    """A filter that cannot be understood: the message names it, the suggestion shows the syntax.

    Every integration reports it as it reports any ``VaultctxError``: a one-line error (CLI) or an
    ``{error, suggestion}`` tool result (MCP), never a traceback or a silently ignored filter.
    """


@dataclass(frozen=True)
class Condition:
    """One front matter test, ``key op value``, as parsed from ``text``."""

    key: str
    op: str
    value: Value
    text: str

    def holds(self, stored: Any) -> bool:
        """Whether a note whose value under ``key`` is ``stored`` (None: absent) passes.

        A list passes when any item does (membership); ``!=`` passes when no item equals, so a
        note without the key passes ``!=`` and nothing else.
        """
        items = [
            item for item in (stored if isinstance(stored, list) else [stored]) if item is not None
        ]
        if self.op == "!=":
            return not any(_order(item, self.value) == 0 for item in items)
        if self.op == "~":
            needle = str(self.value).casefold()
            return any(needle in _text(item).casefold() for item in items if _is_scalar(item))
        return any(_satisfies(self.op, _order(item, self.value)) for item in items)

    def holds_json(self, raw: str | None) -> bool:
        """``holds`` for a stored value's JSON text (None: absent), decoded only when it can pass.

        Text that ``=`` or ``~`` asks for appears verbatim in the JSON of any value that passes,
        and looking for it there costs a tenth of decoding and comparing.
        """
        needle = self._needle
        if raw is not None and needle is not None and needle not in raw.casefold():
            return False
        return self.holds(None if raw is None else json.loads(raw))

    @cached_property
    def _needle(self) -> str | None:
        if self.op not in ("=", "~") or not isinstance(self.value, str):
            return None
        needle = self.value.casefold()
        return None if _JSON_ESCAPED.search(needle) else needle  # JSON would spell it otherwise


@dataclass(frozen=True)
class TimeBound:
    """A modification-time limit: as the user wrote it, and as ``files.mtime_ns`` counts."""

    text: str
    ns: int


@dataclass(frozen=True)
class Filters:
    """Which notes a search or a listing may return: every restriction given must hold, and the
    empty ``Filters()`` admits every note.

    Built from the strings users and models type, and checked by the constructor, once:
    ``InvalidFilterError`` names the part at fault. ``folder`` is vault-relative and recursive,
    matched by whole path segments (``proj`` does not match ``project/``); ``tags`` must all be
    present (with ``any_tag``, one of them is enough), nested tags included (``a`` matches
    ``a/b``); ``note_type`` is the front matter
    ``type``; ``since``/``until`` bound the modification time (a date, a date-time or an age such
    as ``7d``; a bare ``until`` date includes that day); ``where`` holds front matter conditions
    (see ``parse_condition``). Empty strings mean "no filter", as an omitted option does. The
    fields keep what was asked for, normalised; the parsed forms are ``conditions``,
    ``since_bound`` and ``until_bound``.
    """

    folder: str | None = None
    tags: Sequence[str] = ()
    note_type: str | None = None
    since: str | dt.date | None = None
    until: str | dt.date | None = None
    where: Sequence[str] = ()
    any_tag: bool = False
    conditions: tuple[Condition, ...] = field(init=False, repr=False, compare=False)
    since_bound: TimeBound | None = field(init=False, repr=False, compare=False)
    until_bound: TimeBound | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tags = [self.tags] if isinstance(self.tags, str) else self.tags
        where = [self.where] if isinstance(self.where, str) else self.where
        since = parse_time_bound("modified since", self.since, end_of_day=False)
        until = parse_time_bound("modified until", self.until, end_of_day=True)
        if since and until and since.ns >= until.ns:
            raise InvalidFilterError(
                f"modified since {since.text} is not before modified until {until.text}",
                "swap the dates or widen the range",
            )
        note_type = self.note_type.strip() if self.note_type else None
        texts = tuple(text.strip() for text in where if text.strip())
        normalised = {
            "folder": _folder(self.folder),
            "tags": tuple(dict.fromkeys(tag for tag in map(_tag, tags) if tag)),
            "note_type": note_type or None,
            "since": None if since is None else self.since,
            "until": None if until is None else self.until,
            "where": texts,
            "any_tag": bool(self.any_tag),
            "conditions": tuple(parse_condition(text) for text in texts),
            "since_bound": since,
            "until_bound": until,
        }
        for name, value in normalised.items():
            object.__setattr__(self, name, value)  # frozen: the constructor's last word

    @property
    def is_empty(self) -> bool:
        return not self.describe()

    def describe(self) -> dict[str, str]:
        """The active filters as short strings, to echo back to the user or model."""
        shown = {
            "folder": self.folder,
            "tag": (" or " if self.any_tag else ", ").join(self.tags),
            "type": self.note_type,
            "modified_since": self.since_bound.text if self.since_bound else None,
            "modified_until": self.until_bound.text if self.until_bound else None,
            "where": "; ".join(condition.text for condition in self.conditions),
        }
        return {key: value for key, value in shown.items() if value}


def parse_condition(text: str) -> Condition:
    """``key op value`` → a ``Condition``; see ``CONDITION_SYNTAX``.

    The value is typed by how it looks: ``true``/``false``, a number, a date (``2026-01-31``) or
    a date and time, else text. Quotes (``"…"`` or ``'…'``) keep it text. After ``~`` it is
    always text, matched as a case-insensitive substring.
    """
    written = text.strip()
    if not written:
        _reject(written, "is empty")
    match = _CONDITION.fullmatch(written)
    if match is None:
        _reject(written, "has no operator")
    key, op, raw = match["key"].strip(), match["op"], match["value"].strip()
    spelt = _OPERATOR_RUN.match(written, match.start("op"))
    if op not in OPERATORS or (spelt is not None and spelt[0].strip() != op):
        shown = " ".join(spelt[0].split()) if spelt is not None else op
        _reject(
            written,
            f"uses `{shown}`, which is not an operator (quote a value that starts with "
            "= ! < > or ~)",
        )
    if not key:
        _reject(written, f"has no front matter key before `{op}`")
    if '"' in key or any(not part.strip() for part in key.split(".")):
        _reject(written, f"has an unusable key `{key}` (quotes or an empty dotted part)")
    value = _parse_value(written, op, raw)
    if key == TAGS_KEY and isinstance(value, str):
        value = value.lstrip("#")
    return Condition(key=key, op=op, value=value, text=written)


def parse_time_bound(
    name: str, value: str | dt.date | None, *, end_of_day: bool
) -> TimeBound | None:
    """A date, date-time or age (``7d``) as a bound on ``files.mtime_ns``; None when unset.

    Dates and times without a zone are local, as the user's clock shows them; a bare date as an
    upper bound means the end of that day.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, dt.datetime):
        return TimeBound(value.isoformat(), _ns(value))
    if isinstance(value, dt.date):
        return TimeBound(value.isoformat(), _day_ns(value, end_of_day))
    text = value.strip()
    age = _AGE.fullmatch(text)
    if age is not None:
        return TimeBound(text, _age_ns(int(age["count"]), age["unit"].lower()))
    try:
        if _DATE.fullmatch(text):
            return TimeBound(text, _day_ns(dt.date.fromisoformat(text), end_of_day))
        if _DATETIME.fullmatch(text):
            return TimeBound(text, _ns(_datetime(text)))
    except ValueError:
        pass
    raise InvalidFilterError(f"{name} {text!r} is not an ISO 8601 date or an age", TIME_SYNTAX)


def matching_file_ids(db: IndexDatabase, search_filter: Filters) -> list[int]:
    """Ids of the indexed notes (``files.id``) that pass every part of ``search_filter``.

    The index narrows by folder, tags, type and dates and extracts each condition's value as
    JSON text; the conditions are decided here (``Condition.holds_json``).
    """
    conditions = search_filter.conditions
    since, until = search_filter.since_bound, search_filter.until_bound
    rows = notes_passing(
        db,
        folder=search_filter.folder,
        tags=search_filter.tags,
        note_type=search_filter.note_type,
        modified_since_ns=None if since is None else since.ns,
        modified_before_ns=None if until is None else until.ns,
        front_matter_keys=[condition.key for condition in conditions],
        any_tag=search_filter.any_tag,
    )
    return [
        int(row[0])
        for row in rows
        if all(
            condition.holds_json(raw) for condition, raw in zip(conditions, row[1:], strict=True)
        )
    ]


def _folder(folder: str | None) -> str | None:
    """The folder as the index spells paths; refuses traversal like every other path input."""
    if folder is None or folder.strip() in ("", ".", "/"):
        return None
    return normalize_vault_path(folder.strip())


def _tag(tag: str) -> str:
    return tag.strip().lstrip("#").rstrip("/")


def _parse_value(written: str, op: str, raw: str) -> Value:
    if not raw:
        _reject(written, f'has no value after `{op}` (write "" for the empty text)')
    if raw[0] in "\"'":
        if len(raw) < 2 or raw[-1] != raw[0]:
            _reject(written, f"has an unclosed {raw[0]} quote")
        return raw[1:-1]
    if op == "~":
        return raw
    lowered = raw.casefold()
    if lowered in ("true", "false"):
        if op != "=" and op != "!=":
            _reject(written, f"compares true/false with `{op}`; use = or !=")
        return lowered == "true"
    if _NUMBER.fullmatch(raw):
        return float(raw) if "." in raw or len(raw) > _MAX_INT_DIGITS else int(raw)
    try:
        if _DATE.fullmatch(raw):
            return dt.date.fromisoformat(raw)
        if _DATETIME.fullmatch(raw):
            return _datetime(raw)
    except ValueError:
        _reject(written, f"has `{raw}`, which is not a real date or time")
    return raw


def _reject(condition: str, problem: str) -> NoReturn:
    raise InvalidFilterError(
        f"invalid filter condition {condition!r}: it {problem}; expected {CONDITION_SYNTAX}",
        f"write it as {CONDITION_EXAMPLES}",
    )


def _order(stored: Any, wanted: Value) -> int | None:
    """-1, 0 or 1 comparing ``stored`` with ``wanted`` as its kind; None: not comparable."""
    if isinstance(wanted, bool):
        flag = _as_bool(stored)
        return None if flag is None else _compare(flag, wanted)
    if isinstance(wanted, (int, float)):
        number = _as_number(stored)
        return None if number is None else _compare(number, wanted)
    if isinstance(wanted, dt.date):
        moment = _as_moment(stored)
        return None if moment is None else _compare_moments(moment, wanted)
    if not _is_scalar(stored):
        return None
    return _compare(_text(stored).casefold(), wanted.casefold())


def _satisfies(op: str, order: int | None) -> bool:
    if order is None:
        return False
    return {
        "=": order == 0,
        ">": order > 0,
        ">=": order >= 0,
        "<": order < 0,
        "<=": order <= 0,
    }[op]


def _compare(left: Any, right: Any) -> int:
    return int(left > right) - int(left < right)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float))  # bool is an int


def _text(value: Any) -> str:
    """How a front matter value reads: YAML's spelling of booleans, numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in ("true", "false"):
        return value.strip().casefold() == "true"
    return None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def _as_moment(value: Any) -> dt.date | None:
    """A stored ISO date or date-time (YAML dates are stored as ISO text); None otherwise."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if _DATE.fullmatch(text):
            return dt.date.fromisoformat(text)
        if _DATETIME.fullmatch(text):
            return _datetime(text)
    except ValueError:
        return None
    return None


def _compare_moments(stored: dt.date, wanted: dt.date) -> int:
    """A date asked for compares calendar days; a date-time asked for compares instants."""
    if not isinstance(wanted, dt.datetime):
        day = stored.date() if isinstance(stored, dt.datetime) else stored
        return _compare(day, wanted)
    if not isinstance(stored, dt.datetime):
        stored = dt.datetime.combine(stored, dt.time.min)
    if (stored.tzinfo is None) != (wanted.tzinfo is None):
        # One side has no zone: read it as local time, as the user's clock shows it.
        stored, wanted = stored.astimezone(), wanted.astimezone()
    return _compare(stored, wanted)


def _day_ns(day: dt.date, end_of_day: bool) -> int:
    """Local midnight starting ``day``, or ending it."""
    if end_of_day:
        if day == dt.date.max:
            return _INT64_LIMIT
        day += dt.timedelta(days=1)
    return _ns(dt.datetime.combine(day, dt.time.min))


def _age_ns(count: int, unit: str) -> int:
    try:
        return _ns(dt.datetime.now().astimezone() - count * _AGE_UNITS[unit])
    except OverflowError:  # longer ago than dates reach: before every file
        return -_INT64_LIMIT


def _ns(moment: dt.datetime) -> int:
    """``moment`` as ``files.mtime_ns`` counts; moments beyond its range are clamped to its ends."""
    if moment.year < _FIRST_YEAR:
        return -_INT64_LIMIT
    if moment.year > _LAST_YEAR:
        return _INT64_LIMIT
    return max(-_INT64_LIMIT, min(int(moment.timestamp() * 1_000_000_000), _INT64_LIMIT))
