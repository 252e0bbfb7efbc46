"""An RSS or Atom document (bytes already fetched) as entries, and an entry as a signal note.

Time is bounded by size: at most ``intake.MAX_FEED_BYTES`` are fetched, and a document that is
not well-formed XML is read leniently only up to ``LENIENT_MAX_BYTES``.

``feedparser`` only ever sees the bytes, wrapped in a stream: given a string it would fetch a URL
or open a local file of that name itself. A document that is neither RSS nor Atom is a
``FeedError`` for that feed alone.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
import time
import xml.parsers.expat
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import yaml

from vaultctx.errors import VaultctxError
from vaultctx.signals.safe_text import one_line, plain_text

MAX_TITLE_CHARS = 200
# feedparser reads a document that is not well-formed XML with a lenient parser that slows
# down more than linearly on hostile input (runs of tags: 1.5 s for 128 KB, 6 s for 256 KB,
# 164 s for 4.8 MB). Up to this size it is used; a larger document must be well-formed once
# bare `&`s (the usual flaw of hand-made feeds) are escaped.
LENIENT_MAX_BYTES = 128 * 1024
_BARE_AMPERSAND = re.compile(rb"&(?!#[0-9]+;|#x[0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")
MAX_URL_CHARS = 2000


class FeedError(VaultctxError):
    """One feed could not be read; the others still are."""


@dataclass(frozen=True)
class FeedEntry:
    key: str  # what identifies it across runs: its id, else its link, else a digest
    title: str  # inert, one line
    link: str | None  # http(s) only
    published: dt.date | None
    summary: str  # inert markdown text


@dataclass(frozen=True)
class ParsedFeed:
    title: str
    entries: list[FeedEntry]
    notice: str | None = None  # parsed, but not cleanly (feedparser's "bozo")


def parse_feed(body: bytes, *, url: str, content_type: str | None, max_chars: int) -> ParsedFeed:
    import feedparser

    if len(body) > LENIENT_MAX_BYTES and (problem := _xml_problem(body)) is not None:
        repaired = _BARE_AMPERSAND.sub(b"&amp;", body)  # the usual flaw of hand-made feeds
        if _xml_problem(repaired) is None:
            body = repaired
        else:
            raise FeedError(
                f"{url} is not well-formed XML ({problem}) and, at {len(body) // 1024} KB, too "
                f"large to read leniently (at most {LENIENT_MAX_BYTES // 1024} KB); nothing was "
                "taken",
                _NOT_A_FEED,
            )

    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    try:
        parsed: Any = feedparser.parse(io.BytesIO(body), response_headers=headers)
    except Exception as exc:  # feedparser's own failures, never a reason to lose other feeds
        raise FeedError(f"{url} could not be parsed ({type(exc).__name__})", _NOT_A_FEED) from exc
    if not parsed.get("version") and not parsed.get("entries"):
        problem = parsed.get("bozo_exception")
        why = f" ({_short(str(problem))})" if problem else ""
        raise FeedError(f"{url} is not an RSS or Atom feed{why}; nothing was taken", _NOT_A_FEED)
    notice = None
    if parsed.get("bozo"):
        notice = f"{url} is not well-formed XML; read leniently"
    feed_title = one_line(str(parsed.get("feed", {}).get("title") or url), max_chars=120)
    entries = [_entry(raw, url, max_chars) for raw in parsed.get("entries", [])]
    return ParsedFeed(feed_title, entries, notice)


_NOT_A_FEED = "check the address in [signals] feeds: it must serve an RSS or Atom document"


def _xml_problem(body: bytes) -> str | None:
    """Why ``body`` is not well-formed XML (None: it is, or its encoding is one only
    feedparser's own conversion knows). Expat reads megabytes in milliseconds."""
    parser = xml.parsers.expat.ParserCreate()
    try:
        parser.Parse(body, True)
    except xml.parsers.expat.ExpatError as exc:
        if (
            exc.code
            == xml.parsers.expat.errors.codes[xml.parsers.expat.errors.XML_ERROR_UNKNOWN_ENCODING]
        ):
            return None
        return _short(str(exc))
    return None


def _entry(raw: Any, feed_url: str, max_chars: int) -> FeedEntry:
    link = _http_url(raw.get("link"))
    summary_html = raw.get("summary") or ""
    content = raw.get("content")
    if not summary_html and isinstance(content, list) and content:
        summary_html = content[0].get("value") or ""
    summary = plain_text(str(summary_html), max_chars=max_chars)
    title = one_line(str(raw.get("title") or ""), max_chars=MAX_TITLE_CHARS)
    identifier = str(raw.get("id") or "").strip()[:MAX_URL_CHARS]
    key = identifier or link or _digest(feed_url, title, summary)
    return FeedEntry(key, title or _untitled(link), link, _published(raw), summary)


def _http_url(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    if len(value) > MAX_URL_CHARS or any(ord(char) < 0x21 for char in value):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return value if parts.scheme in ("http", "https") and parts.hostname else None


def _published(raw: Any) -> dt.date | None:
    for key in ("published_parsed", "updated_parsed"):
        value = raw.get(key)
        if isinstance(value, time.struct_time):
            try:
                return dt.date(value.tm_year, value.tm_mon, value.tm_mday)
            except ValueError:
                return None
    return None


def _untitled(link: str | None) -> str:
    host = urlsplit(link).hostname if link else None
    return f"Untitled entry from {host}" if host else "Untitled feed entry"


def _digest(*parts: str) -> str:
    return "sha256:" + hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "…"


class _PlainDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def signal_note(entry: FeedEntry, *, feed_title: str, today: dt.date, max_chars: int) -> str:
    """The note for one entry: ``type: signal`` front matter, the summary, the link."""
    front_matter: dict[str, Any] = {"title": entry.title, "type": "signal"}
    if entry.link:
        front_matter["source"] = entry.link
    if entry.published:
        front_matter["published"] = entry.published
    front_matter["feed"] = feed_title
    front_matter["created"] = today
    front_matter["status"] = "draft"
    header = yaml.dump(
        front_matter, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=1000
    )
    parts = [f"# {entry.title}", ""]  # one_line made it inert
    if entry.summary:
        parts += [entry.summary, ""]
    if entry.link:
        parts.append(f"Source: <{entry.link}>")
    body = "\n".join(parts).strip()
    return f"---\n{header}---\n{body[: max_chars + 1000]}\n"


__all__ = ["FeedEntry", "FeedError", "ParsedFeed", "parse_feed", "signal_note"]
