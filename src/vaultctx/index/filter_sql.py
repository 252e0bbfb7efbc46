"""The SQL half of search filters: which notes pass folder, tags, type and dates, and the stored
JSON of the front matter keys that conditions test.

``search/filters.py`` parses what users type and decides the front matter conditions itself
(they compare by the kind of value asked for, which SQL's comparisons cannot); this module only
turns plain values into one statement over ``files``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from vaultctx.index.db import IndexDatabase

# The front matter key answered by the note's full tag list (front matter and inline tags, as
# indexed in ``files.tags``) rather than by the front matter alone.
TAGS_KEY = "tags"


def notes_passing(
    db: IndexDatabase,
    *,
    folder: str | None = None,
    tags: Sequence[str] = (),
    note_type: str | None = None,
    modified_since_ns: int | None = None,
    modified_before_ns: int | None = None,
    front_matter_keys: Sequence[str] = (),
    any_tag: bool = False,
) -> Iterator[tuple[Any, ...]]:
    """(note id, then the JSON text of each of ``front_matter_keys``, None when absent) of the
    notes under ``folder`` (by whole path segments) carrying every one of ``tags`` (with
    ``any_tag``, at least one; nested tags included), of ``note_type`` (any case), modified at or
    after ``modified_since_ns`` and before ``modified_before_ns``; None or empty leaves that part
    open. Rows stream from the cursor.
    """
    columns: list[str] = ["f.id"]
    params: list[Any] = []
    for key in front_matter_keys:
        expression, expression_params = _extraction(key)
        columns.append(expression)
        params += expression_params
    tag_clause, tag_params = _tags(tags, any_tag=any_tag)
    clause, clause_params = _where(folder, note_type, modified_since_ns, modified_before_ns)
    clause, clause_params = f"{clause}{tag_clause}", [*clause_params, *tag_params]
    rows: Iterator[tuple[Any, ...]] = db.execute(
        f"SELECT {', '.join(columns)} FROM files f WHERE {clause}", [*params, *clause_params]
    )
    return rows


def _tags(tags: Sequence[str], *, any_tag: bool) -> tuple[str, list[Any]]:
    """`` AND`` the tag condition over ``files f``: each tag (or, with ``any_tag``, one of them)
    carried by the note, as itself or as the parent of a nested tag; empty without tags."""
    if not tags:
        return "", []
    one = "(t.tag = ? OR t.tag LIKE ? ESCAPE '\\')"
    params: list[Any] = [value for tag in tags for value in (tag, _like_escape(tag) + "/%")]
    if any_tag:
        ors = " OR ".join([one] * len(tags))
        return f" AND EXISTS (SELECT 1 FROM file_tags t WHERE t.file_id = f.id AND ({ors}))", params
    each = f"EXISTS (SELECT 1 FROM file_tags t WHERE t.file_id = f.id AND {one})"
    return "".join(f" AND {each}" for _ in tags), params


def _where(
    folder: str | None,
    note_type: str | None,
    since_ns: int | None,
    before_ns: int | None,
) -> tuple[str, list[Any]]:
    """Folder, type and dates as one SQL condition over ``files f``."""
    where: list[str] = ["TRUE"]
    params: list[Any] = []
    if folder is not None:
        where.append("f.path LIKE ? ESCAPE '\\'")
        params.append(_like_escape(folder) + "/%")
    if note_type is not None:
        where.append("f.type = ? COLLATE NOCASE")
        params.append(note_type)
    if since_ns is not None:
        where.append("f.mtime_ns >= ?")
        params.append(since_ns)
    if before_ns is not None:
        where.append("f.mtime_ns < ?")
        params.append(before_ns)
    return " AND ".join(where), params


def _extraction(key: str) -> tuple[str, list[str]]:
    """SQL for the JSON text of ``key`` in a note's front matter (NULL when absent).

    A dotted key is nesting (``project.status``), or failing that one key with dots in its name
    (``ms.date``), since both are common in real front matter.
    """
    if key == TAGS_KEY:
        return "f.tags", []
    parts = key.split(".")
    nested = "$" + "".join(f'."{part}"' for part in parts)
    if len(parts) == 1:
        return "(f.front_matter -> ?)", [nested]
    return "COALESCE(f.front_matter -> ?, f.front_matter -> ?)", [nested, f'$."{key}"']


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
