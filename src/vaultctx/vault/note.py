"""Turn a file's text into a ``Note``: front matter, title, tags, aliases, links
(docs/reference.md#reading-the-vault).

Parsing never fails: a note with broken front matter is still indexed as text and the problem is
kept in ``Note.problems`` for the indexer to report, because one bad note must not stop a vault.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import yaml

from vaultctx.vault.bounded_yaml import FrontMatterTooCostlyError, load_bounded_yaml
from vaultctx.vault.links import Link, extract_links_from_masked, mask_code

_FRONT_MATTER_FENCE = "---"
_FRONT_MATTER_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)  # CRLF notes too
# The closing `#`s are cut off in Python: `(.+?)(?: +#+)? *$` backtracked over runs of spaces,
# and a 100 KB heading line of them took three minutes.
_H1 = re.compile(r"^ {0,3}# +([^\n]+)", re.MULTILINE)
# A tag follows whitespace or the line start and runs until punctuation or space; letters of any
# script and emoji are fine. The character class is the one Dataview uses to mirror Obsidian.
# `(?<!\S#)` after the literal `#` (not a lookbehind before it) lets the engine jump between `#`s.
_INLINE_TAG = re.compile(
    r"#(?<!\S#)([^\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]+)"
)
_TAG_SEPARATORS = re.compile(r"[,\s]+")

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_DECIMAL_BITS = 14_000  # below sys.int_info.default_max_str_digits (4,300) decimal digits

_EXCLUDING_KEYS = {"excalidraw-plugin": "excalidraw drawing", "kanban-plugin": "kanban board"}


@dataclass
class Note:
    """A parsed file. ``body`` is ``text[body_offset:]`` (for HTML: its visible text)."""

    path: str
    title: str
    body: str
    body_offset: int = 0
    front_matter: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    type: str | None = None
    status: str | None = None
    problems: list[str] = field(default_factory=list)
    # Set for files that parse fine but make junk chunks; the indexer skips them by default.
    excluded_reason: str | None = None


def parse_note(path: str, text: str) -> Note:
    """Parse one file's text; ``path`` is vault-relative and its suffix picks the parser."""
    suffix = posixpath.splitext(path)[1].lower()
    name = posixpath.basename(path)
    if suffix in (".html", ".htm"):
        try:
            title, visible_text = html_to_text(text)
        except AssertionError as exc:  # how Python's parser rejects a malformed `<![`
            problem = f"HTML could not be parsed ({exc}); indexed as text"
            return Note(path=path, title=name, body=text, problems=[problem])
        return Note(path=path, title=title or name, body=visible_text)
    if suffix != ".md":
        return Note(path=path, title=name, body=text)
    return _parse_markdown(path, text)


def _parse_markdown(path: str, text: str) -> Note:
    front_matter, body_offset, problems = split_front_matter(text)
    body = text[body_offset:]
    masked_body = mask_code(body)
    body_first_line = text.count("\n", 0, body_offset) + 1
    # Obsidian links notes from front matter too (`up: "[[MOC]]"`); YAML holds no code to mask.
    links = extract_links_from_masked(text[:body_offset]) if body_offset else []
    links += extract_links_from_masked(masked_body, first_line=body_first_line)
    front_matter_tags = [
        tag
        for value in _front_matter_strings(front_matter, "tags", "tag")
        for tag in _TAG_SEPARATORS.split(value)
    ]
    return Note(
        path=path,
        title=_title(front_matter, masked_body, body) or _stem(path),
        body=body,
        body_offset=body_offset,
        front_matter=front_matter,
        tags=_dedupe_casefold(front_matter_tags + _INLINE_TAG.findall(masked_body), _clean_tag),
        aliases=_dedupe_casefold(
            _front_matter_strings(front_matter, "aliases", "alias"), str.strip
        ),
        links=links,
        type=_text_value(front_matter.get("type")),
        status=_text_value(front_matter.get("status")),
        problems=problems,
        excluded_reason=next(
            (reason for key, reason in _EXCLUDING_KEYS.items() if key in front_matter), None
        ),
    )


def split_front_matter(text: str) -> tuple[dict[str, Any], int, list[str]]:
    """(front matter, offset where the body starts, problems).

    On any problem the front matter is empty and the offset is 0, so the whole file is indexed as
    text: a typo in YAML must not hide the note.
    """
    first_line_end = text.find("\n")
    if first_line_end == -1 or text[:first_line_end].rstrip() != _FRONT_MATTER_FENCE:
        return {}, 0, []
    yaml_start = first_line_end + 1
    close = _FRONT_MATTER_CLOSE.search(text, yaml_start)
    if close is None:
        return {}, 0, ["front matter opens with '---' but is never closed; add a '---' line"]
    body_offset = close.end() + 1 if close.end() < len(text) else close.end()
    try:
        loaded = load_bounded_yaml(text[yaml_start : close.start()])
    except yaml.YAMLError as exc:
        return {}, 0, [f"front matter is not valid YAML ({_yaml_error(exc)}); indexed as text"]
    except FrontMatterTooCostlyError as exc:
        return {}, 0, [f"front matter {exc}; indexed as text"]
    if loaded is None:
        return {}, body_offset, []
    if not isinstance(loaded, dict):
        kind = type(loaded).__name__
        return {}, 0, [f"front matter is a YAML {kind}, not 'key: value' lines; indexed as text"]
    return {str(key): value for key, value in loaded.items()}, body_offset, []


def _yaml_error(exc: yaml.YAMLError) -> str:
    """The error with its line in the file (YAML counts from the line after the opening ---)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is None:
        return str(problem)
    return f"line {mark.line + 2}: {problem}"


def _title(front_matter: dict[str, Any], masked_body: str, body: str) -> str | None:
    title = _front_matter_strings(front_matter, "title")
    if title and title[0].strip() and not isinstance(front_matter["title"], list):
        return title[0].strip()
    heading = _H1.search(masked_body)
    if heading is None:
        return None
    # Read the same line unmasked: `code` in a title is part of the title.
    unmasked = _H1.match(body, heading.start())
    return _without_closing_hashes(unmasked.group(1)).strip() if unmasked else None


def _without_closing_hashes(heading: str) -> str:
    """`Title ##  ` → `Title`: an optional closing run of `#`s after a space, then spaces."""
    text = heading.rstrip(" ")
    before_hashes = text.rstrip("#")
    if before_hashes != text and before_hashes.endswith(" "):
        return before_hashes.rstrip(" ")
    return text


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _front_matter_strings(front_matter: dict[str, Any], *keys: str) -> list[str]:
    """The text values under ``keys``, whether the user wrote one value or a list of them."""
    values = []
    for key in keys:
        raw = front_matter.get(key)
        for item in raw if isinstance(raw, list) else [raw]:
            if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                values.append(str(item))
    return values


def _clean_tag(tag: str) -> str:
    """`#a/b/` → `a/b`; a tag of only digits is not a tag in Obsidian (`#2024`)."""
    tag = tag.strip().lstrip("#").rstrip("/")
    return tag if any(not char.isdigit() and char != "/" for char in tag) else ""


def _dedupe_casefold(values: list[str], clean: Callable[[str], str]) -> list[str]:
    """`#Project` then `#project` is one tag, spelled as the user first wrote it."""
    seen: set[str] = set()
    result = []
    for value in values:
        cleaned = clean(value)
        if cleaned and cleaned.casefold() not in seen:
            seen.add(cleaned.casefold())
            result.append(cleaned)
    return result


def _text_value(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def front_matter_json(note: Note) -> str:
    """The front matter as JSON for storage; YAML dates become ISO strings, keys strings."""
    return json.dumps(_jsonable(note.front_matter), ensure_ascii=False)


def _jsonable(value: Any) -> Any:
    """Map what YAML's safe loader can produce onto JSON types."""
    if isinstance(value, str):  # most values: spared the checks below (~10 % of indexing metadata)
        return value
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    if isinstance(value, set):  # !!set; sorted so the stored JSON does not change between runs
        return sorted((_jsonable(item) for item in value), key=str)
    if isinstance(value, dt.date):  # datetime is a date too
        return value.isoformat()
    if isinstance(value, bytes):  # !!binary: keep it as the base64 the user wrote
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN/Infinity; SQLite's json functions reject them
    if isinstance(value, int) and not _INT64_MIN <= value <= _INT64_MAX:
        # SQLite's json functions would round it to a float. YAML builds hex, binary and
        # base-60 ints of any size, and Python refuses to write one of over 4,300 digits.
        return str(value) if value.bit_length() <= _DECIMAL_BITS else hex(value)
    return value


def html_to_text(html: str) -> tuple[str | None, str]:
    """(<title>, visible text) of an HTML page, one line per block element."""
    parser = _VisibleTextParser()
    parser.feed(_escape_unclosed_tail(html))
    parser.close()
    return parser.title, parser.text()


def _escape_unclosed_tail(html: str) -> str:
    """``html`` with each ``<`` that no ``>`` follows written as ``&lt;``.

    Such a ``<`` opens nothing, so ``HTMLParser`` shows it as text anyway, but only when closing,
    after scanning from it to the end of the page for its ``>``: 8 KB of ``<a `` took half a
    second, 300 KB many minutes (CVE-2025-6069; fixed in Python's mid-2025 patch releases, not
    in the 3.11.7 this was measured on).
    """
    tail_start = html.rfind(">") + 1
    return html[:tail_start] + html[tail_start:].replace("<", "&lt;")


class _VisibleTextParser(HTMLParser):
    _HIDDEN = frozenset({"script", "style", "noscript", "template", "svg"})
    _BLOCKS = frozenset(
        {
            "p",
            "div",
            "br",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "blockquote",
            "section",
            "article",
            "header",
            "footer",
            "table",
            "ul",
            "ol",
            "dt",
            "dd",
            "hr",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._hidden_depth = 0
        self._in_title = False
        self._title_parts: list[str] = []
        self._parts: list[str] = []

    @property
    def title(self) -> str | None:
        title = " ".join("".join(self._title_parts).split())
        return title or None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._HIDDEN:
            self._hidden_depth += 1
        elif tag in self._BLOCKS:
            self._parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._HIDDEN:
            self._hidden_depth = max(0, self._hidden_depth - 1)
        elif tag in self._BLOCKS:
            self._parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title_parts.append(data)
        elif not self._hidden_depth:
            self._parts.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self._parts).split("\n"))
        return "\n".join(line for line in lines if line)
