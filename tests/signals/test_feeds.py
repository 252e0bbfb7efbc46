"""Feeds: parsed from bytes (RSS, Atom, not a feed), turned into inert signal notes, and fetched
from a real HTTP server on 127.0.0.1 (reached through ``allow_hosts``) without duplicates."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.local_web import local_web, page
from tests.signals.feed_fixtures import ATOM, HOSTILE, NOT_XML, RSS
from tests.signals.support import files
from vaultctx.api import Vault
from vaultctx.signals.feed_state import state_file
from vaultctx.signals.feeds import FeedError, parse_feed, signal_note
from vaultctx.signals.intake import fetch_feeds
from vaultctx.signals.settings import SignalSettings
from vaultctx.vault.note import split_front_matter

URL = "https://feeds.example.com/feed.xml"
TODAY = dt.date(2026, 12, 1)


def test_rss_entries() -> None:
    feed = parse_feed(RSS, url=URL, content_type="application/rss+xml", max_chars=20_000)
    assert feed.title == "Example Security Blog"
    first, second = feed.entries
    assert first.title == "Patch the OpenSSL CVE now"
    assert first.link == "https://blog.example.com/openssl-cve"
    assert first.key == "https://blog.example.com/?p=1"
    assert first.published == dt.date(2026, 11, 30)
    assert first.summary == "A critical vulnerability.\nUpgrade to 3.4.1."
    assert second.key == "https://blog.example.com/second"  # no guid: the link
    assert second.published is None


def test_atom_entries() -> None:
    feed = parse_feed(ATOM, url=URL, content_type="application/atom+xml", max_chars=20_000)
    (entry,) = feed.entries
    assert (entry.title, entry.link, entry.key) == (
        "Version 2.0 released",
        "https://releases.example.org/2.0",
        "urn:uuid:entry-2",
    )
    assert entry.summary == "Faster\nSmaller"
    assert entry.published == dt.date(2026, 11, 29)


@pytest.mark.parametrize("body", [NOT_XML, b"", b"\x00\xff\xfe garbage", b"/etc/passwd"])
def test_not_a_feed_is_a_clear_error(body: bytes) -> None:
    with pytest.raises(FeedError) as caught:
        parse_feed(body, url=URL, content_type="text/html", max_chars=20_000)
    assert caught.value.message.startswith(f"{URL} is not an RSS or Atom feed")
    assert "[signals] feeds" in caught.value.suggestion


def test_the_note_is_a_signal_with_the_entry_in_front_matter() -> None:
    feed = parse_feed(RSS, url=URL, content_type=None, max_chars=20_000)
    note = signal_note(feed.entries[0], feed_title=feed.title, today=TODAY, max_chars=20_000)
    front, offset, problems = split_front_matter(note)
    assert not problems
    assert front == {
        "title": "Patch the OpenSSL CVE now",
        "type": "signal",
        "source": "https://blog.example.com/openssl-cve",
        "published": dt.date(2026, 11, 30),
        "feed": "Example Security Blog",
        "created": TODAY,
        "status": "draft",
    }
    assert note[offset:].startswith("# Patch the OpenSSL CVE now\n\nA critical vulnerability.")
    assert "Source: <https://blog.example.com/openssl-cve>" in note


def test_a_long_summary_is_cut() -> None:
    long = RSS.replace(b"Plain text summary.", b"word " * 50_000)
    feed = parse_feed(long, url=URL, content_type=None, max_chars=1000)
    assert len(feed.entries[1].summary) <= 1002
    assert feed.entries[1].summary.endswith("…")


# -- fetching from a real server ------------------------------------------------------------


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def vault_at(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    (root / "00-inbox").mkdir(parents=True)
    return Vault(root, db=tmp_path / "index.db")


def test_feeds_are_fetched_written_once_and_a_bad_feed_does_not_stop_the_others(
    tmp_path: Path,
) -> None:
    vault = vault_at(tmp_path)
    routes = {"/rss": page(RSS.decode(), "application/rss+xml"), "/atom": page(ATOM.decode()),
              "/home": page(NOT_XML.decode())}  # fmt: skip
    with local_web(routes) as web:
        settings = SignalSettings(feeds=(web.url("/home"), web.url("/rss"), web.url("/atom")))
        run = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
        assert run.feeds[0].error is not None
        assert "is not an RSS or Atom feed" in run.feeds[0].error
        assert sorted(run.created) == [
            "00-inbox/Patch the OpenSSL CVE now.md",
            "00-inbox/Second post.md",
            "00-inbox/Version 2.0 released.md",
        ]
        assert run.record_id is not None
        after_first = files(vault.path)
        again = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert again.created == []
    assert [feed.already for feed in again.feeds] == [0, 2, 1]
    assert again.record_id is None
    assert files(vault.path) == after_first
    assert len(vault.ledger()) == 1
    state = json.loads(state_file(vault.path).read_text())
    assert state["feeds"][web.url("/rss")] == [
        "https://blog.example.com/?p=1",
        "https://blog.example.com/second",
    ]
    assert state_file(vault.path).stat().st_mode & 0o077 == 0


def test_a_lost_state_file_does_not_bring_entries_back(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/rss"),))
        fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
        state_file(vault.path).unlink()
        again = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert again.created == []  # both links are the source of a note in the inbox


def test_a_deleted_signal_is_not_fetched_again(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/rss"),))
        fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
        (vault.path / "00-inbox/Second post.md").unlink()
        again = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert again.created == []


def test_at_most_max_entries_per_feed_per_run(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/rss"),), max_entries_per_feed=1)
        first = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
        second = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert first.created == ["00-inbox/Patch the OpenSSL CVE now.md"]
    assert first.feeds[0].left == 1
    assert second.created == ["00-inbox/Second post.md"]


def test_dry_run_fetches_but_writes_and_remembers_nothing(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/rss"),))
        run = fetch_feeds(vault, settings, allow_hosts=[web.authority], dry_run=True)
    assert len(run.created) == 2
    assert files(vault.path) == {}
    assert not state_file(vault.path).exists()
    assert vault.ledger() == []


def test_a_name_taken_in_the_inbox_is_numbered(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    mine = vault.path / "00-inbox/Second post.md"
    mine.write_text("my own note\n")
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/rss"),))
        run = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert "00-inbox/Second post 2.md" in run.created
    assert mine.read_text() == "my own note\n"


def test_no_feeds_configured_says_how(tmp_path: Path) -> None:
    run = fetch_feeds(vault_at(tmp_path), SignalSettings())
    assert run.feeds == [] and "[signals] feeds" in run.notices[0]


def test_undo_removes_the_fetched_notes(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/atom": page(ATOM.decode(), "application/atom+xml")}) as web:
        settings = SignalSettings(feeds=(web.url("/atom"),))
        fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert (vault.path / "00-inbox/Version 2.0 released.md").exists()
    vault.undo()
    assert not (vault.path / "00-inbox/Version 2.0 released.md").exists()


def test_hostile_fixture_parses() -> None:
    """The security tests rely on this document being read as a feed at all."""
    assert len(parse_feed(HOSTILE, url=URL, content_type=None, max_chars=20_000).entries) == 1


def test_many_feeds_are_read_in_their_order(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    routes = {
        f"/f{i}": page(RSS.decode().replace("blog.example.com", f"b{i}.example"), "text/xml")
        for i in range(6)
    }
    with local_web(routes) as web:
        settings = SignalSettings(feeds=tuple(web.url(f"/f{i}") for i in range(6)))
        run = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert [feed.url for feed in run.feeds] == list(settings.feeds)
    assert all(len(feed.new) == 2 for feed in run.feeds)
    assert run.created[:2] == ["00-inbox/Patch the OpenSSL CVE now.md", "00-inbox/Second post.md"]
    assert run.created[-1] == "00-inbox/Second post 6.md"
