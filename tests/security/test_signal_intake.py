"""Signal intake treats feeds, their servers, a vault's settings and the model's reply as hostile:
what a feed says becomes inert text, feedparser never touches a URL or a file itself, private
addresses stay unreachable unless the user (not the vault) allows a host, and a signal can only
be filed inside the vault."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.local_web import huge, local_web, page, redirect
from tests.signals.feed_fixtures import HOSTILE, RSS
from tests.signals.support import files
from vaultctx.api import Vault
from vaultctx.brain.markers import end_marker, start_marker
from vaultctx.config import ConfigError
from vaultctx.errors import VaultctxError
from vaultctx.signals.feeds import FeedError, parse_feed, signal_note
from vaultctx.signals.intake import MAX_FEED_BYTES, fetch_feeds
from vaultctx.signals.model_scoring import GarbledReply, parse_scores
from vaultctx.signals.settings import SignalSettings, load_signal_settings
from vaultctx.signals.triage import run_triage
from vaultctx.vault.note import split_front_matter

URL = "https://feeds.example.com/feed.xml"
TODAY = dt.date(2026, 12, 1)


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def hostile_note() -> str:
    feed = parse_feed(HOSTILE, url=URL, content_type=None, max_chars=20_000)
    return signal_note(feed.entries[0], feed_title=feed.title, today=TODAY, max_chars=20_000)


def test_a_hostile_summary_becomes_inert_text() -> None:
    note = hostile_note()
    assert "dataviewjs" not in note and "[[" not in note
    body = note[split_front_matter(note)[1] :]
    assert "Visible text." in body
    assert "<script" not in note and "alert('x')" not in note
    assert "<img" not in note and "<%" not in note
    assert "![" not in note  # no image loads, no note embeds
    fences = [line for line in note.splitlines() if line.lstrip().startswith(("```", "~~~"))]
    assert fences == ["```text", "```"]  # the dataviewjs block is shown, never run
    assert start_marker("index") not in note and end_marker("index") not in note


def test_a_javascript_link_is_not_kept_as_the_source() -> None:
    front = split_front_matter(hostile_note())[0]
    assert "source" not in front
    assert "javascript:" not in hostile_note()


def test_a_title_cannot_inject_front_matter() -> None:
    rss = RSS.replace(
        b"<title>Second post</title>",
        b"<title>x&#10;type: note&#10;status: active&#10;---&#10;# owned</title>",
    )
    feed = parse_feed(rss, url=URL, content_type=None, max_chars=20_000)
    note = signal_note(feed.entries[1], feed_title=feed.title, today=TODAY, max_chars=20_000)
    front, _, problems = split_front_matter(note)
    assert not problems
    assert front["type"] == "signal" and front["status"] == "draft"
    assert "\n" not in front["title"]


def test_feedparser_never_reads_a_local_file_named_by_the_body(tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(RSS)  # a valid feed: were it opened, entries would come back
    with pytest.raises(FeedError):
        parse_feed(str(secret).encode(), url=URL, content_type=None, max_chars=1000)


def test_entity_expansion_is_bounded() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(
            f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode() for i in range(8)
        )
        + b']><rss version="2.0"><channel><title>t</title><item><title>&i;</title>'
        b"<link>https://e.com/1</link></item></channel></rss>"
    )
    started = time.monotonic()
    try:
        feed = parse_feed(bomb, url=URL, content_type=None, max_chars=1000)
    except FeedError:
        return
    assert time.monotonic() - started < 10
    assert all(len(entry.title) <= 200 for entry in feed.entries)


def test_a_vault_cannot_allow_private_hosts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    user = tmp_path / "user"
    user.mkdir()
    (vault / "vaultctx.toml").write_text('[signals]\nallow_hosts = ["192.168.1.1:80"]\n')
    assert load_signal_settings(vault, user).allow_hosts == ()
    assert "[signals] allow_hosts is not used" in capsys.readouterr().err
    (user / "vaultctx.toml").write_text('[signals]\nallow_hosts = ["127.0.0.1:8080"]\n')
    assert load_signal_settings(vault, user).allow_hosts == ("127.0.0.1:8080",)


@pytest.mark.parametrize(
    "feeds", ['["file:///etc/passwd"]', '["javascript:alert(1)"]', '"https://one.example"']
)
def test_feed_addresses_must_be_http(tmp_path: Path, feeds: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    user = tmp_path / "user"
    user.mkdir()
    (user / "vaultctx.toml").write_text(f"[signals]\nfeeds = {feeds}\n")
    with pytest.raises(ConfigError):
        load_signal_settings(vault, user)


def vault_at(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    (root / "00-inbox").mkdir(parents=True)
    return Vault(root, db=tmp_path / "index.db")


def test_a_loopback_feed_is_refused_without_allow_hosts(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        run = fetch_feeds(vault, SignalSettings(feeds=(web.url("/rss"),)))
        hits = list(web.hits)
    assert run.feeds[0].error is not None and "127.0.0.1" in run.feeds[0].error
    assert hits == []  # refused before connecting
    assert files(vault.path) == {}


def test_a_redirect_to_a_private_address_is_refused(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    with local_web({"/rss": redirect("http://10.0.0.1/feed.xml")}) as web:
        run = fetch_feeds(
            vault, SignalSettings(feeds=(web.url("/rss"),)), allow_hosts=[web.authority]
        )
    assert run.feeds[0].error is not None and "10.0.0.1" in run.feeds[0].error
    assert files(vault.path) == {}


def test_an_oversized_feed_is_cut_off_and_the_next_feed_still_read(tmp_path: Path) -> None:
    vault = vault_at(tmp_path)
    routes = {"/big": huge(MAX_FEED_BYTES * 2), "/rss": page(RSS.decode(), "application/rss+xml")}
    with local_web(routes) as web:
        settings = SignalSettings(feeds=(web.url("/big"), web.url("/rss")))
        run = fetch_feeds(vault, settings, allow_hosts=[web.authority], today=TODAY)
    assert run.feeds[0].error is not None
    assert len(run.feeds[1].new) == 2


def test_an_inbox_link_out_of_the_vault_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "Victim.md"
    victim.write_text("---\ntype: signal\n---\nnot in the vault\n")
    root = tmp_path / "vault"
    root.mkdir()
    os.symlink(outside, root / "00-inbox")
    run = run_triage(Vault(root, db=tmp_path / "index.db"))
    assert run.plan.items == []
    assert any("leads outside the vault" in skipped for skipped in run.plan.skipped)
    assert victim.read_text() == "---\ntype: signal\n---\nnot in the vault\n"


def test_a_linked_signal_file_is_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "Victim.md"
    outside.write_text("---\ntype: signal\nsource: https://cisa.gov/x\n---\nhow to fix it\n")
    vault = vault_at(tmp_path)
    os.symlink(outside, vault.path / "00-inbox/Link.md")
    run = run_triage(vault)
    assert run.plan.items == []
    assert "triage" not in outside.read_text()


@pytest.mark.parametrize("domain", ["../../etc", "security/../../x", "Security\n", ""])
def test_a_model_cannot_choose_a_folder_outside_the_twelve(domain: str) -> None:
    reply = (
        '{"relevance": 1, "actionability": 1, "depth": 1, "authority": 1, '
        f'"domain": {domain!r}}}'.replace("'", '"')
    )
    if domain.strip().lower() == "security":
        assert parse_scores(reply.replace("\n", "\\n"), "m").domain == "security"
        return
    with pytest.raises(GarbledReply):
        parse_scores(reply, "m")


def test_a_large_malformed_feed_is_refused_quickly() -> None:
    """The lenient parser slows down more than linearly (164 s for 4.8 MB of tags): past
    128 KB a document must be well-formed XML."""
    started = time.monotonic()
    with pytest.raises(FeedError) as caught:
        parse_feed(b"<a><b>" * 300_000, url=URL, content_type=None, max_chars=1000)
    assert time.monotonic() - started < 10
    assert "too large to read leniently" in caught.value.message


def test_a_large_feed_with_bare_ampersands_is_still_read() -> None:
    items = b"".join(
        b"<item><title>Q&A %d</title><link>https://e.com/%d</link></item>" % (i, i)
        for i in range(3000)
    )
    body = b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>' + items
    body += b"</channel></rss>"
    assert len(body) > 128 * 1024
    feed = parse_feed(body, url=URL, content_type=None, max_chars=1000)
    assert len(feed.entries) == 3000 and feed.entries[0].title == "Q&A 0"


@pytest.mark.parametrize("kind", ["link", "file"])
def test_a_signals_folder_that_is_not_a_folder_stops_the_run(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    vault = vault_at(tmp_path)
    (vault.path / "00-inbox/S.md").write_text(
        "---\ntype: signal\nsource: https://www.cisa.gov/x\n---\n" + "how to fix it " * 300
    )
    if kind == "link":
        os.symlink(outside, vault.path / "05-signals")
    else:
        (vault.path / "05-signals").write_text("my file\n")
    before = files(vault.path)
    with pytest.raises(VaultctxError, match="is not a folder"):
        run_triage(vault)
    assert files(vault.path) == before
    assert list(outside.iterdir()) == []


_PIECES = st.sampled_from(
    ["<", ">", "![", "[[", "]]", "```", "~~~", "dataviewjs", "<!-- @generated:x -->", "<%",
     "\n", " ", "a", "&lt;", "\\", "`", "=", "$=", "(", ")", "http://e.com", "\u202e", "\x00"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=60).map("".join))
@example("```<img src=x onerror=alert(1)>")  # a fence opener in a title, which is a heading
@example("<![>")  # HTMLParser raises AssertionError on it
def test_any_feed_text_comes_out_inert(text: str) -> None:
    from vaultctx.signals.safe_text import inert_markdown, one_line

    for out in (inert_markdown(text, max_chars=5000), one_line(text)):
        assert "<" not in _outside_code(out)  # code shows its text as it is
        assert "![" not in _outside_code(out)
        assert "\u202e" not in out and "\x00" not in out
        assert start_marker("x") not in out
        assert not re.search(r"^\s*(`{3,}|~{3,})\s*dataviewjs", out, re.MULTILINE)
    assert "\n" not in one_line(text)
    assert "<" not in one_line(text)  # a heading: no code context at all


def _outside_code(markdown: str) -> str:
    """``markdown`` without fenced blocks and inline code spans (CommonMark's rules, simply)."""
    kept: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opened = re.match(r" {0,3}(`{3,}|~{3,})(.*)$", line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None:
            marker = opened.group(1) if opened else ""
            closes = marker[:1] == fence[0] and len(marker) >= len(fence)
            if opened and closes and not opened.group(2).strip():
                fence = None
        else:
            kept.append(re.sub(r"(`+)(.+?)\1", "", line))
    return "\n".join(kept)


def test_markup_pythons_parser_rejects_is_kept_as_escaped_text() -> None:
    rss = RSS.replace(b"Plain text summary.", b"<![CDATA[<![>]]> rest")
    feed = parse_feed(rss, url=URL, content_type=None, max_chars=1000)
    assert "<" not in feed.entries[1].summary and "rest" in feed.entries[1].summary


_FEED_PIECES = st.sampled_from(
    [b"<rss>", b"<item>", b"<title>", b"</title>", b"<![CDATA[", b"]]>", b"<![", b"&", b"<",
     b"x", b"<description>", b"</item>", b"<feed>", b"<entry>", b'<?xml version="1.0"?>',
     b"<link>", b"javascript:", b"</link>", b"&lt;script&gt;", b"\xff"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.lists(_FEED_PIECES, max_size=40).map(b"".join))
def test_any_document_is_entries_or_a_feed_error(body: bytes) -> None:
    try:
        feed = parse_feed(body, url=URL, content_type=None, max_chars=1000)
    except FeedError:
        return
    for entry in feed.entries:
        assert "<" not in entry.title
        assert entry.link is None or entry.link.startswith(("http://", "https://"))


@pytest.mark.parametrize(
    "body",
    ["|" + " " * 999_000 + "x", "| " * 400_000 + "x", "database security how to " * 40_000],
)
def test_a_one_megabyte_signal_is_scored_in_bounded_time(body: str) -> None:
    """One keyword pass over at most 50,000 characters (150 separate patterns over a whole
    megabyte took 12-17 s)."""
    from vaultctx.signals.heuristic import heuristic_scores
    from vaultctx.signals.inbox import Signal

    started = time.monotonic()
    heuristic_scores(Signal("00-inbox/big.md", "Big", body, {}, [], None), 0.5)
    assert time.monotonic() - started < 5
