"""What a clipped page (or a model's reply about it) may put into a note: text, never active
content (organize/safe_markdown.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.organize.safe_markdown import safe_markdown

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
