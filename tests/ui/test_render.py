"""Note text into HTML: markdown without raw HTML or script links, snippets escaped and marked."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultctx.ui.render import heading_anchor, highlight_snippet, render_markdown

SCRIPT_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "javascript&#58;alert(1)",
    "javascript&colon;alert(1)",
    "%6Aavascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "file:///etc/passwd",
]


def hrefs(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', html)


def test_raw_html_in_a_note_is_shown_as_text() -> None:
    html = render_markdown(
        '<script>window.pwned=1</script>\n\n<img src=x onerror="alert(1)">\n\n'
        'Inline <b onclick="alert(1)">bold</b> too.\n'
    ).html
    assert "<script" not in html and "<img" not in html and "<b " not in html
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html


@pytest.mark.parametrize("target", SCRIPT_LINKS)
def test_script_and_data_links_never_become_an_href(target: str) -> None:
    html = render_markdown(f"[x]({target}) ![y]({target}) <{target}>\n").html
    for href in hrefs(html):
        # A percent-encoded scheme is no scheme: the browser reads a relative path.
        assert not re.match(r"\s*(javascript|vbscript|data|file):", href, re.I), href


def test_ordinary_links_survive() -> None:
    html = render_markdown("[site](https://example.org/a?b=1&c=2) [rel](Other%20note.md)\n").html
    assert hrefs(html) == ["https://example.org/a?b=1&amp;c=2", "Other%20note.md"]


def test_headings_get_unique_anchors_from_their_text() -> None:
    rendered = render_markdown("# Plan\n\n## Next steps\n\n## Next steps\n\n### 다음 단계\n")
    assert rendered.headings == [
        (1, "Plan", "h-plan"),
        (2, "Next steps", "h-next-steps"),
        (2, "Next steps", "h-next-steps-2"),
        (3, "다음 단계", "h-다음-단계"),
    ]
    assert 'id="h-next-steps-2"' in rendered.html
    assert heading_anchor('Quotes "and" <tags>') == "h-quotes-and-tags"


def test_a_snippet_is_escaped_and_marks_the_query_words() -> None:
    text = "Before. <script>alert(1)</script> The compost needs turning & water."
    snippet = str(highlight_snippet(text, "compost <script>"))
    assert "<script>" not in snippet
    assert "&lt;<mark>script</mark>&gt;" in snippet
    assert "<mark>compost</mark>" in snippet
    assert "&amp; water" in snippet


def test_a_long_text_is_cut_around_the_first_match() -> None:
    text = "filler " * 200 + "the kumquat sentence" + " tail" * 200
    snippet = str(highlight_snippet(text, "kumquat"))
    assert "<mark>kumquat</mark>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) < 400


def test_regex_characters_in_a_query_are_plain_text() -> None:
    assert "<mark>" not in str(highlight_snippet("a (b) c", "(.*)"))
    assert str(highlight_snippet("c++ and c", "c++")).count("<mark>") == 0


@given(st.text(max_size=300), st.text(max_size=40))
def test_no_snippet_carries_a_tag_of_its_own(text: str, query: str) -> None:
    snippet = str(highlight_snippet(text, query))
    assert re.sub(r"</?mark>", "", snippet).count("<") == 0


def test_wikilinks_open_the_note_page() -> None:
    html = render_markdown(
        "See [[Plan]], [[Notes/Plan#Next steps|the next steps]] and ![[diagram.png]], "
        "not `[[code]]`.\n"
    ).html
    assert hrefs(html) == [
        "/note?path=Plan",
        "/note?path=Notes%2FPlan#h-next-steps",
        "/note?path=diagram.png",
    ]
    assert ">the next steps</a>" in html and "<code>[[code]]</code>" in html


@pytest.mark.parametrize(
    "link",
    [
        '[[x" onmouseover="alert(1)]]',
        "[[javascript:alert(1)]]",
        "[[<script>alert(1)</script>]]",
        "[[a|<img src=x onerror=alert(1)>]]",
    ],
)
def test_a_hostile_wikilink_is_a_quoted_note_path_and_escaped_text(link: str) -> None:
    html = render_markdown(link + "\n").html
    assert re.fullmatch(
        r'<p><a href="/note\?path=[^"<>\s]*" class="wikilink">[^<>]*</a></p>\n', html
    )


def test_what_is_not_a_wikilink_stays_text() -> None:
    for text in ("[[]]", "[[open", "[[a\nb]]", "[[" + "x" * 600 + "]]"):
        assert "<a" not in render_markdown(text + "\n").html
