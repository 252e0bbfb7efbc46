"""What a clipped page (or a model's reply about it) may put into a note: text, never active
content (organize/safe_markdown.py)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.api import Vault
from vaultctx.config import Config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.indexer import Indexer
from vaultctx.organize.clip import Article, clean_title, note_content
from vaultctx.organize.safe_markdown import safe_markdown
from vaultctx.vault.links import extract_links
from vaultctx.vault.note import parse_note

BASE = "https://news.example/articles/1"
PIECES = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "</div>",
        "<img src=x onerror=alert(1)>",
        "<!-- @generated:x -->",
        "<!-- @end:x -->",
        "<% tp.system.exec('rm') %>",
        "[a](javascript:alert(1))",
        "[b](<javascript:alert(1)>)",
        "[c](JaVaScRiPt:alert(1))",
        "[d](data:text/html,x)",
        "[e](file:///etc/passwd)",
        "![t](https://tracker.example/p.gif)",
        "[[Secret]]",
        "![[Secret]]",
        "`$= dv.pages()`",
        "`= this.file.name`",
        "```dataviewjs\n",
        "```\n",
        "~~~\n",
        "\\<script>",
        "[f](/relative)",
        "[g](#anchor)",
        "\n",
        " ",
        "text",
        "[",
        "]",
        "(",
        ")",
        "<",
        "`",
    ]
)
HOSTILE = st.lists(PIECES, max_size=40).map("".join)


def outside_fences(text: str) -> str:
    kept, fence = [], None
    for line in text.split("\n"):
        marker = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if fence is None and marker:
            fence = marker.group(1)
        elif fence is not None:
            # CommonMark: only a run of the same character, at least as long, closes a fence.
            closer = marker.group(1) if marker else ""
            if closer[:1] == fence[0] and len(closer) >= len(fence) and not line.strip(" `~"):
                fence = None
        else:
            kept.append(line)
    return "\n".join(kept)


def without_inline_code(prose: str) -> str:
    return "\n".join(re.sub(r"(`+)(.+?)\1", "", line) for line in prose.split("\n"))


@settings(max_examples=500, deadline=None)
@given(HOSTILE)
def test_no_active_content_survives(text: str) -> None:
    safe = safe_markdown(text, base_url=BASE)
    prose = without_inline_code(outside_fences(safe))
    without_link_targets = re.sub(r"\]\(<(https?|mailto):[^>]*>\)", "]()", prose)
    assert "<" not in without_link_targets, safe
    assert re.search(r"\]\(\s*<?\s*(?!https?:|mailto:)[a-z][a-z0-9+.-]*:", prose, re.I) is None
    assert re.search(r"<!--\s*@(generated|end)", safe) is None
    assert re.search(r"(?<!\\)\[\[", prose) is None, safe
    assert re.search(r"(`{3,}|~{3,})\s*dataviewjs", safe) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[a](javascript:alert(1))", "a)"),
        ("[b](<javascript:alert(1)>)", "b"),
        ("[r](/docs/x)", "[r](<https://news.example/docs/x>)"),
        ("[s](https://x.example/a b)", "[s](<https://x.example/a>)"),
        ("![alt](https://tracker.example/p.gif)", "alt"),
        ("<script>x</script>", "&lt;script>x&lt;/script>"),
        ("\\<b>", "&lt;b>"),
        ("[[Private]]", "\\[\\[Private]]"),
        ("`$= dv.x` and `ok`", "`\u200b$= dv.x` and `ok`"),
        ("```dataviewjs\ndv.x <b>\n```", "```text\ndv.x <b>\n```"),
        ("> ```dataviewjs\n> dv.x\n> ```", "> ```text\n> dv.x\n> ```"),
        ("- [ ] task", "- \\[ ] task"),
        ("a < b", "a &lt; b"),
        ("a\x00b\u202ec", "abc"),
    ],
)
def test_each_rule(text: str, expected: str) -> None:
    assert safe_markdown(text, base_url="https://news.example/a/b") == expected


def test_without_a_base_url_relative_links_keep_only_their_text() -> None:
    assert safe_markdown("[r](/docs/x) [h](https://x.example/)") == "r [h](<https://x.example/>)"


@pytest.mark.parametrize(
    "title", ["```<script>alert(1)</script>", "~~~<img src=x onerror=alert(1)>", "a <b>x</b>"]
)
def test_a_page_title_never_becomes_html_in_the_heading(title: str) -> None:
    from vaultctx.organize.clip import clean_title

    assert "<" not in clean_title(title)


# Wiki-link syntax wherever a page can put it: text, link targets, link text, image alt, code
# spans the clipper and the indexer might read differently (a run of two backticks, one of one).
LINKY = st.sampled_from(
    [
        "[[Roadmap]]",
        "![[Roadmap]]",
        "[[Roadmap|x]]",
        "[t](http://host/![[Roadmap]])",
        "[t](<http://host/![[Roadmap]]>)",
        "[q](https://h/?q=[[Roadmap]]#[[Roadmap]])",
        "[u](http://u[[Roadmap]]@h/)",
        "[[[Roadmap]]](https://h/)",
        "[t [[Roadmap]]](https://h/)",
        "![a [[Roadmap]]](https://h/x.png)",
        "[m](Roadmap.md)",
        "[m](<Roadmap>)",
        "[[",
        "]]",
        "[",
        "]",
        "(",
        ")",
        "!",
        "\\",
        "`",
        "``",
        "```\n",
        "~~~\n",
        "\n",
        " ",
        "Roadmap",
    ]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(LINKY, max_size=30).map("".join))
def test_clipped_text_links_to_no_note_of_the_vault(text: str) -> None:
    """What the indexer's own link reader finds (external URLs aside) is what the index would
    record: nothing may be left for it."""
    assert extract_links(safe_markdown(text, base_url=BASE)) == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(LINKY, max_size=12).map("".join),
    st.lists(LINKY, max_size=30).map("".join),
    st.sampled_from(["", "[[Roadmap]]", "?q=![[Roadmap]]", "#[[Roadmap]]"]),
    st.integers(min_value=0, max_value=40),
)
def test_a_clipped_note_as_written_has_no_vault_links(
    title: str, text: str, tail: str, cut: int
) -> None:
    """The whole note: front matter (the index reads links there too), title, source line, and a
    body cut anywhere (a long article is truncated, a code span may lose its closing run)."""
    body = safe_markdown(text, base_url=BASE)
    article = Article(clean_title(title) or "t", body[:cut], f"https://news.example/a{tail}", True)
    note = parse_note("Clips/x.md", note_content(article, body[:cut], date(2026, 12, 5)))
    assert note.links == []


def test_the_indexer_records_no_link_from_a_clipped_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Clips").mkdir(parents=True)
    (vault / "Roadmap.md").write_text("# Roadmap\n\nThe plan.\n", encoding="utf-8")
    (vault / "Plan.md").write_text("# Plan\n\nSee [[Roadmap]].\n", encoding="utf-8")
    page = (
        "Read [the roadmap](http://host/![[Roadmap]]) and [this](<http://host/[[Roadmap]]>), "
        "![a [[Roadmap]]](https://h/x.png), ``[[Roadmap]]` and [[Roadmap|ours]].\n"
    )
    body = safe_markdown(page, base_url="https://news.example/a?q=[[Roadmap]]")
    article = Article("News [[Roadmap]]", body, "https://news.example/a?q=[[Roadmap]]", False)
    clipped = note_content(article, body, date(2026, 12, 5))
    (vault / "Clips" / "news.md").write_text(clipped, encoding="utf-8")
    db = tmp_path / "index.db"
    Indexer(Config(vault=vault, db=db), StaticEmbedder()).run(fast=True)

    with Vault(vault, db=db) as handle:
        assert handle.links("Clips/news.md").outlinks == []
        assert [link.source for link in handle.links("Roadmap").backlinks] == ["Plan.md"]
