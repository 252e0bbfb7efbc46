"""``vaultctx signals fetch``: each feed of ``[signals] feeds`` fetched and its new entries
written into the inbox as signal notes, all of them one ledger record.

Every feed is fetched through ``organize.fetch`` (public addresses only, redirects re-checked,
size and time bounded), four at a time; a feed that fails or is not a feed is reported and the
others are still read. At most ``max_entries_per_feed`` new entries per feed per run, newest
first as the feed lists them; the rest come on the next run.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import os
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.capture import safe_file_stem
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.signals.feed_state import load_seen, save_seen, sources_in, state_file
from vaultctx.signals.feeds import FeedEntry, FeedError, parse_feed, signal_note
from vaultctx.signals.settings import SignalSettings
from vaultctx.signals.triage import signal_inbox

if TYPE_CHECKING:
    from pathlib import Path

    from vaultctx.api import Vault
    from vaultctx.organize.fetch import Fetched

# Real feeds are tens to hundreds of KB; feedparser takes 1 s per MB of a typical feed and up to
# 7 s per MB of tiny entries, so 2 MB bounds one hostile feed to about 15 s.
MAX_FEED_BYTES = 2_000_000
FEED_TIMEOUT = 20.0
FEED_ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9"
MAX_NAME_ATTEMPTS = 1000
FETCH_THREADS = 4  # feeds are downloaded four at a time (waiting on servers), parsed in order

Fetcher = Callable[[str, Collection[str], bool], "Fetched"]


@dataclass
class FeedResult:
    url: str
    title: str | None = None
    new: list[str] = field(default_factory=list)  # note paths (planned or written)
    already: int = 0  # entries taken on an earlier run
    left: int = 0  # new entries beyond the per-run cap
    error: str | None = None
    notice: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "title": self.title,
            "new": self.new,
            "already": self.already,
            "left_for_next_run": self.left,
            "error": self.error,
            "notice": self.notice,
        }


@dataclass
class IntakeRun:
    dry_run: bool
    feeds: list[FeedResult] = field(default_factory=list)
    record_id: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def created(self) -> list[str]:
        return [path for feed in self.feeds for path in feed.new]

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "feeds": [feed.as_dict() for feed in self.feeds],
            "created": self.created,
            "record_id": self.record_id,
            "notices": self.notices,
        }


def default_fetcher(url: str, allow_hosts: Collection[str], allow_private: bool) -> Fetched:
    from vaultctx.organize.fetch import fetch

    return fetch(
        url,
        allow_private=allow_private,
        allow_hosts=allow_hosts,
        max_bytes=MAX_FEED_BYTES,
        timeout=FEED_TIMEOUT,
        accept=FEED_ACCEPT,
    )


def fetch_feeds(
    vault: Vault,
    settings: SignalSettings,
    *,
    allow_hosts: Sequence[str] = (),
    allow_private: bool = False,
    dry_run: bool = False,
    today: dt.date | None = None,
    fetcher: Fetcher = default_fetcher,
) -> IntakeRun:
    """Fetch every feed and write its new entries (``dry_run``: say which, write nothing and
    remember nothing)."""
    from vaultctx.organize.fetch import FetchError

    run = IntakeRun(dry_run)
    if not settings.feeds:
        run.notices.append('no feeds: list them under [signals] feeds = ["https://…"]')
        return run
    day = today or dt.date.today()
    inbox = signal_inbox(vault, settings)
    state = state_file(vault.path)
    seen = load_seen(state)
    known_sources = sources_in(vault.path, (inbox, settings.folder))
    hosts = (*settings.allow_hosts, *allow_hosts)
    planned: list[tuple[FeedResult, str, str, FeedEntry]] = []  # feed, path, content, entry
    reserved: set[str] = set()
    for url, download in _downloads(settings.feeds, fetcher, hosts, allow_private):
        feed = FeedResult(url)
        run.feeds.append(feed)
        try:
            fetched = download.result()
            parsed = parse_feed(
                fetched.body,
                url=fetched.url,
                content_type=fetched.content_type,
                max_chars=settings.max_note_chars,
            )
        except (FetchError, FeedError) as exc:
            feed.error = exc.one_line()
            continue
        feed.title, feed.notice = parsed.title, parsed.notice
        taken = set(seen.get(url, ()))
        for entry in parsed.entries:
            if entry.key in taken or (entry.link and entry.link in known_sources):
                feed.already += 1
                continue
            if len(feed.new) == settings.max_entries_per_feed:
                feed.left += 1
                continue
            taken.add(entry.key)
            if entry.link:
                known_sources.add(entry.link)
            path = _free_name(vault, inbox, entry.title, reserved)
            reserved.add(path)
            content = signal_note(
                entry, feed_title=parsed.title, today=day, max_chars=settings.max_note_chars
            )
            feed.new.append(path)
            planned.append((feed, path, content, entry))
    if dry_run or not planned:
        return run
    _write_planned(vault, run, planned, seen, state)
    return run


def _write_planned(
    vault: Vault,
    run: IntakeRun,
    planned: list[tuple[FeedResult, str, str, FeedEntry]],
    seen: dict[str, list[str]],
    state: Path,
) -> None:
    """Create the planned notes in one recorded change, then remember the entries written (an
    entry that could not be written is fetched again next time)."""
    label = f"fetch {len(planned)} feed entries as signals"
    written: list[tuple[str, str]] = []  # (feed url, entry key)
    with vault.change_batch(ChangeContext(label, source="cli"), "signals-fetch") as batch:
        for feed, path, content, entry in planned:
            try:
                batch.create(path, content)
            except VaultctxError as exc:
                feed.new.remove(path)
                run.notices.append(f"{path}: not written ({exc.message})")
                continue
            written.append((feed.url, entry.key))
    if batch.change is not None:
        run.record_id = batch.change.record_id
        run.notices += batch.change.notices
    for url, key in written:
        seen.setdefault(url, []).append(key)
    try:
        save_seen(state, seen)
    except OSError as exc:
        run.notices.append(
            f"the list of entries taken could not be saved ({exc}); the next run skips them "
            "by their source link instead"
        )


def _downloads(
    urls: Sequence[str], fetcher: Fetcher, hosts: Collection[str], allow_private: bool
) -> Iterator[tuple[str, concurrent.futures.Future[Fetched]]]:
    """Each feed's download, fetched ``FETCH_THREADS`` at a time: at most that many bodies
    (2 MB each) are held while they are parsed."""
    with concurrent.futures.ThreadPoolExecutor(FETCH_THREADS) as pool:
        for start in range(0, len(urls), FETCH_THREADS):
            group = urls[start : start + FETCH_THREADS]
            futures = [pool.submit(fetcher, url, hosts, allow_private) for url in group]
            yield from zip(group, futures, strict=True)


def _free_name(vault: Vault, inbox: str, title: str, reserved: set[str]) -> str:
    stem = safe_file_stem(title) or "Feed entry"
    for attempt in range(1, MAX_NAME_ATTEMPTS + 1):
        name = f"{stem}.md" if attempt == 1 else f"{stem} {attempt}.md"
        path = f"{inbox}/{name}"
        if path not in reserved and not os.path.lexists(vault.path / path):
            return path
    raise VaultctxError(
        f"{MAX_NAME_ATTEMPTS} notes named {stem!r} already exist in {inbox}",
        "move some of them out of the inbox",
    )


__all__ = ["FeedResult", "IntakeRun", "default_fetcher", "fetch_feeds"]
