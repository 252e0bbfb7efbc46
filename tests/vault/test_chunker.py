"""Chunker (SPEC §2): examples for each rule, then properties over generated markdown.

Generated documents mix headings, paragraphs (English, Korean, CJK punctuation), code fences that
contain `##` lines and shorter fence runs, very long lines and stray unicode. The fence/heading
scan is checked against markdown-it-py, an independent CommonMark parser, so the fence-related
properties do not merely restate the chunker's own view of the document.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from itertools import islice, pairwise
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from vaultctx.vault.chunker import Chunk, chunk_text, heading_context
from vaultctx.vault.markdown_blocks import Fence, outline

SHARED_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

# --- invariants shared by example and property tests -------------------------------------------


def assert_chunk_invariants(
    body: str,
    chunks: list[Chunk],
    *,
    max_chars: int = 2000,
    min_chars: int = 30,
    overlap: int = 200,
) -> None:
    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks)))
    reach = 0  # everything before this offset lies in some chunk or is whitespace
    for chunk in chunks:
        assert chunk.text == body[chunk.start : chunk.end]
        assert chunk.text and chunk.text == chunk.text.strip()
        assert len(chunk.text) <= max_chars
        assert not body[reach : chunk.start].strip(), f"text lost before offset {chunk.start}"
        reach = max(reach, chunk.end)
    assert not body[reach:].strip(), f"text lost after offset {reach}"

    whole_note_short = len(body.strip()) < min_chars
    if whole_note_short:
        assert len(chunks) == (1 if body.strip() else 0)
    for previous, current in pairwise(chunks):
        assert previous.start <= current.start
        assert previous.end - current.start <= overlap  # no slack on the overlap bound
    for index, chunk in enumerate(chunks):
        if len(chunk.text) >= min_chars or whole_note_short:
            continue
        # A chunk may stay short only when neither neighbour can take it within max_chars.
        if index > 0:
            previous = chunks[index - 1]
            assert max(previous.end, chunk.end) - previous.start > max_chars
        if index + 1 < len(chunks):
            following = chunks[index + 1]
            assert max(chunk.end, following.end) - chunk.start > max_chars
    assert_fences_respected(body, chunks, outline(body).fences, max_chars)


def assert_fences_respected(
    body: str, chunks: list[Chunk], fences: list[Fence], max_chars: int
) -> None:
    """No cut inside a fence that fits in a chunk; a longer fence is cut only at line breaks.

    The one exception, a hard cut on a fence line too long to break at a line (more than
    max_chars / 2 characters: a window searches at least that far for a line break), is allowed.
    """
    for chunk in chunks:
        for boundary, is_start in ((chunk.start, True), (chunk.end, False)):
            for fence in fences:
                if not fence.start < boundary < fence.end:
                    continue
                assert fence.length > max_chars, f"cut inside a {fence.length}-char fence"
                line_start = body.rfind("\n", 0, boundary) + 1
                line_end = body.find("\n", boundary)
                line_end = len(body) if line_end == -1 else line_end
                at_line_break = (
                    not body[line_start:boundary].strip()
                    if is_start
                    else not body[boundary:line_end].strip()
                )
                assert at_line_break or line_end - line_start > max_chars // 2 - 2


# --- examples ----------------------------------------------------------------------------------

PARAGRAPH = (
    "Vaults grow one note at a time. Retrieval has to keep up without a server. "
    "Each sentence here is plain prose so the cut points are easy to see."
)


def test_splits_at_h2_and_keeps_the_preamble_as_its_own_chunk() -> None:
    body = (
        "# Project notes\n\nSome words before any section heading.\n\n"
        f"## Setup\n{PARAGRAPH}\n\n### Linux\nInstall with apt, then run the indexer.\n\n"
        f"## Usage\n{PARAGRAPH}\n"
    )
    chunks = chunk_text(body)
    assert [chunk.section for chunk in chunks] == ["", "Setup", "Usage"]
    assert chunks[0].text == "# Project notes\n\nSome words before any section heading."
    assert chunks[1].text.startswith("## Setup\n") and chunks[1].text.endswith("the indexer.")
    assert "### Linux" in chunks[1].text  # H3 stays inside its H2 chunk
    assert chunks[2].text == f"## Usage\n{PARAGRAPH}"
    assert [chunk.heading_path for chunk in chunks] == [(), ("Setup",), ("Usage",)]
    assert_chunk_invariants(body, chunks)


def test_h1_and_setext_headings_are_content_not_split_points() -> None:
    body = (
        f"## Only section\n{PARAGRAPH}\n\n# Big title\n{PARAGRAPH}\n\nSetext\n------\n{PARAGRAPH}"
    )
    chunks = chunk_text(body)
    assert len(chunks) == 1
    assert chunks[0].section == "Only section"


@pytest.mark.parametrize(
    "fence",
    [
        "```python\n## not a heading\nprint('x')\n```",
        "~~~\n## not a heading\n```\n## still code\n~~~",
        "````md\n```\n## nested example\n```\n````",
        "  ```\n## indented opener, still a fence\n   ```",
    ],
)
def test_h2_inside_a_code_fence_does_not_split(fence: str) -> None:
    body = (
        f"## Real\n{PARAGRAPH}\n\n{fence}\n\nAfter the fence, same section.\n\n## Next\n{PARAGRAPH}"
    )
    chunks = chunk_text(body)
    assert [chunk.section for chunk in chunks] == ["Real", "Next"]
    assert fence in chunks[0].text and chunks[0].text.endswith("same section.")


def test_unclosed_fence_runs_to_the_end() -> None:
    body = f"## Real\n{PARAGRAPH}\n\n```\ncode\n## swallowed by the open fence\nmore code"
    assert [chunk.section for chunk in chunk_text(body)] == ["Real"]


def test_long_section_is_windowed_at_paragraph_breaks_with_bounded_overlap() -> None:
    paragraphs = [f"Paragraph {n}. {PARAGRAPH} {PARAGRAPH}" for n in range(30)]
    body = "## Long\n" + "\n\n".join(paragraphs)
    chunks = chunk_text(body)
    assert len(chunks) > 3
    for chunk in chunks[:-1]:
        assert body[chunk.end : chunk.end + 2] == "\n\n"  # every cut falls on a paragraph break
    for previous, current in pairwise(chunks):
        shared = previous.end - current.start
        assert 0 < shared <= 200
        assert body[current.start - 2 : current.start] in (". ", "\n\n")  # starts at a sentence
    assert all(chunk.section == "Long" for chunk in chunks)
    assert_chunk_invariants(body, chunks)


LONG_SENTENCE = " ".join(f"word{n}" for n in range(60)) + "."


@pytest.mark.parametrize("joiner", ["\n\n", " ", ".\n\n"])
def test_overlap_mid_sentence_overlaps_after_a_sentence_longer_than_the_overlap(
    joiner: str,
) -> None:
    # Every sentence is over 200 characters, so no sentence starts in the 200 characters before
    # a cut: the next window must start at a word there, not at the cut (0 overlap).
    assert len(LONG_SENTENCE) > 300
    body = "## Long\n" + joiner.join([LONG_SENTENCE] * 12)
    chunks = chunk_text(body, overlap_mid_sentence=True)
    assert len(chunks) > 2
    for previous, current in pairwise(chunks):
        shared = previous.end - current.start
        assert 150 < shared <= 200
        assert body[current.start - 1] == " "  # a word start
    assert_chunk_invariants(body, chunks)


def test_by_default_the_windows_start_at_sentences_as_measured() -> None:
    """Off by default (SciFact nDCG@10 0.7226 with it off, 0.7219 on): after a sentence longer
    than the overlap the next window starts at the next sentence, as the figures were taken."""
    body = "## Long\n" + "\n\n".join([LONG_SENTENCE] * 12)
    chunks = chunk_text(body)
    assert chunks == chunk_text(body, overlap_mid_sentence=False)
    assert all(previous.end <= current.start for previous, current in pairwise(chunks))
    assert_chunk_invariants(body, chunks)


@pytest.mark.parametrize("mid_sentence", [False, True])
def test_overlap_zero_still_means_no_overlap(mid_sentence: bool) -> None:
    body = "## Long\n" + "\n\n".join([LONG_SENTENCE] * 12)
    chunks = chunk_text(body, overlap=0, overlap_mid_sentence=mid_sentence)
    assert all(previous.end <= current.start for previous, current in pairwise(chunks))
    assert_chunk_invariants(body, chunks, overlap=0)


def test_sentence_cuts_when_a_section_has_no_paragraph_breaks() -> None:
    sentences = (f"문장 {n}번은 검색 품질을 위해 충분히 길게 씁니다." for n in range(200))
    body = "## 한국어\n" + " ".join(sentences)
    chunks = chunk_text(body)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.endswith(".") or chunk is chunks[-1]
    assert_chunk_invariants(body, chunks)


def test_tiny_and_heading_only_sections_merge_into_a_neighbour() -> None:
    body = f"## Empty\n\n## Tiny\nok\n\n## Full\n{PARAGRAPH}\n\n## Last\nbye"
    chunks = chunk_text(body)
    assert len(chunks) == 1
    assert chunks[0].text == body.strip()
    assert all(len(chunk.text) >= 30 for chunk in chunk_text(body, max_chars=200, overlap=50))


def test_heading_only_section_joins_the_section_after_it() -> None:
    body = f"## A\n{PARAGRAPH}\n\n## B\n\n## C\n{PARAGRAPH}"
    chunks = chunk_text(body)
    assert [chunk.text for chunk in chunks] == [f"## A\n{PARAGRAPH}", f"## B\n\n## C\n{PARAGRAPH}"]
    assert chunks[1].section == "B"  # labels describe where the chunk starts


def test_short_section_goes_to_the_previous_chunk_when_the_next_is_too_big() -> None:
    first = f"## First\n{PARAGRAPH}"
    big = "## Big\n" + "x " * 893
    assert 1800 - len("## Tiny\n\n") < len(big.strip()) <= 1800  # fits alone, not with Tiny
    body = f"{first}\n\n## Tiny\n\n{big}"
    chunks = chunk_text(body, max_chars=1800, overlap=100)
    assert [chunk.section for chunk in chunks] == ["First", "Big"]
    assert chunks[0].text.endswith("## Tiny")
    assert chunks[1].text == big.strip()


def test_scrap_left_before_a_fence_joins_the_previous_chunk() -> None:
    code = "```\n" + "\n".join(f"x = {n} + {n}" for n in range(9)) + "\n```"
    alpha = "## A\nAlpha section text that is long enough."
    body = f"{alpha}\n\n## B\nhi\n{code}\n\nAfter the fence there is a closing remark."
    chunks = chunk_text(body, max_chars=100, overlap=20)
    # "## B\nhi" + the fence exceeds 100 chars, so the cut before the fence leaves "## B\nhi"
    # alone; it fits with the previous chunk, so it must not stay a chunk of its own.
    assert chunks[0].text == f"{alpha}\n\n## B\nhi"
    assert any(chunk.text.endswith(code) for chunk in chunks)
    assert_chunk_invariants(body, chunks, max_chars=100, overlap=20)


def test_last_window_is_not_left_as_a_scrap() -> None:
    closing = "Short closing words here."
    body = "## Long\n" + " ".join(["Sentence number one is here."] * 68) + f"\n\n{closing}"
    assert len(body) - len(closing) < 2000 < len(body)  # the paragraph break fits the window
    chunks = chunk_text(body, overlap=0)
    # Cutting at that break would leave the 25-char closing alone; an earlier sentence end wins.
    assert len(chunks) == 2
    assert chunks[1].text.endswith(f"here.\n\n{closing}")
    assert_chunk_invariants(body, chunks, overlap=0)


def test_heading_path_tracks_h3_and_deeper_at_each_chunk_start() -> None:
    filler = " ".join([PARAGRAPH] * 3)
    body = (
        f"## Setup\n{filler}\n\n### Linux\n{filler}\n\n### Mac\n{filler}\n\n"
        f"#### Apple silicon\n{filler}\n\n## Usage ##\n{filler}"
    )
    chunks = chunk_text(body, max_chars=300, min_chars=30, overlap=50)
    paths = {chunk.heading_path for chunk in chunks}
    assert paths == {
        ("Setup",),
        ("Setup", "Linux"),
        ("Setup", "Mac"),
        ("Setup", "Mac", "Apple silicon"),
        ("Usage",),
    }
    for chunk in chunks:
        assert chunk.section == chunk.heading_path[0]
    assert_chunk_invariants(body, chunks, max_chars=300, overlap=50)


def test_h3_before_the_first_h2_is_in_the_path_but_not_the_section() -> None:
    chunks = chunk_text(f"### Aside\n{PARAGRAPH}\n\n## Main\n{PARAGRAPH}")
    assert [(chunk.section, chunk.heading_path) for chunk in chunks] == [
        ("", ("Aside",)),
        ("Main", ("Main",)),
    ]


def test_fence_that_fits_is_never_cut_even_across_the_window_edge() -> None:
    lines = (f"value_{n} = compute({n})  # step" for n in range(40))
    code = "```python\n" + "\n".join(lines) + "\n```"
    assert 1000 < len(code) < 2000
    body = f"## Code\n{PARAGRAPH * 8}\n\n{code}\n\n{PARAGRAPH * 4}"
    chunks = chunk_text(body)
    assert any(code in chunk.text for chunk in chunks)
    assert_chunk_invariants(body, chunks)


def test_fence_longer_than_max_is_cut_at_line_breaks() -> None:
    code = "~~~\n" + "\n".join(f"line {n}: " + "data " * 10 for n in range(200)) + "\n~~~"
    body = f"## Dump\n{code}"
    chunks = chunk_text(body)
    assert len(chunks) > 5
    for chunk in chunks:
        line_end = body.find("\n", chunk.end)
        assert line_end == -1 or not body[chunk.end : line_end].strip()
        assert chunk.start == 0 or body[chunk.start - 1] == "\n"
    assert_chunk_invariants(body, chunks)


def test_200kb_single_line_paragraph_is_cut_at_words() -> None:
    body = "## Huge\n" + "lorem ipsum " * 17_000
    chunks = chunk_text(body)
    assert len(body) > 200_000 and len(chunks) > 100
    assert all(chunk.text.endswith(("lorem", "ipsum")) for chunk in chunks)
    assert_chunk_invariants(body, chunks)


def test_200kb_run_without_any_space_is_hard_cut_with_exact_overlap() -> None:
    body = "x" * 200_000
    chunks = chunk_text(body)
    assert [len(chunk.text) for chunk in chunks[:-1]] == [2000] * (len(chunks) - 1)
    assert all(b.start == a.end - 200 for a, b in pairwise(chunks))
    assert_chunk_invariants(body, chunks)


def test_heading_is_not_split_off_a_long_unbroken_blob() -> None:
    body = "## Blob\n" + "x" * 3000
    chunks = chunk_text(body)
    # The only break in the first window is right after the heading; a 7-char chunk would be a
    # scrap, so the window is hard-cut at max_chars instead.
    assert [len(chunk.text) for chunk in chunks] == [2000, 1208]
    assert chunks[0].text.startswith("## Blob\nxxx")
    assert_chunk_invariants(body, chunks)


@pytest.mark.parametrize("body", ["", " ", "\n\n\t \n", "\u3000\u00a0\n"])
def test_empty_or_whitespace_note_has_no_chunks(body: str) -> None:
    assert chunk_text(body) == []


def test_note_shorter_than_min_chars_is_one_chunk() -> None:
    assert [(c.text, c.start, c.end) for c in chunk_text("\n  ## Hi\nyo \n")] == [
        ("## Hi\nyo", 3, 11)
    ]


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"max_chars": 0}, "max_chars"),
        ({"min_chars": 3000}, "min_chars"),
        ({"overlap": 1000}, "overlap"),
        ({"overlap": -1}, "overlap"),
    ],
)
def test_rejects_limits_that_cannot_work(limits: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chunk_text("text", **limits)


def test_heading_context_is_compact_and_skips_empty_parts() -> None:
    assert (
        heading_context("Title", ["x", "y/z"], ["a", "b"], ("Setup", "Linux"))
        == "Title > Setup > Linux | aliases: a, b | tags: x, y/z"
    )
    assert heading_context("Title", [], [], ()) == "Title"
    assert heading_context("", [" ", "t"], [], ("", "Deep")) == "Deep | tags: t"
    assert heading_context("", [], [], ()) == ""


def test_outline_reads_heading_text_like_commonmark() -> None:
    found = outline("## Closing ##  \n#Not\n####### Seven\n   ### Three spaces\n    ## Four\n##\n")
    assert [(h.level, h.text) for h in found.headings] == [
        (2, "Closing"),
        (3, "Three spaces"),
        (2, ""),
    ]


def test_real_vault_notes_keep_every_invariant() -> None:
    root = SHARED_DATA / "obsidian-help"
    if not root.exists():
        pytest.skip(f"shared data not found: {root}")
    notes = sorted(root.rglob("*.md"))
    assert len(notes) > 300
    for note in notes:
        body = note.read_text(encoding="utf-8")
        for limits in ({}, {"max_chars": 400, "overlap": 80}):
            assert_chunk_invariants(body, chunk_text(body, **limits), **limits)


def test_powershell_docs_sample_keeps_every_invariant() -> None:
    archive = SHARED_DATA / "md-corpus-windows-powershell-docs" / "windows-powershell-docs.tar.gz"
    if not archive.exists():
        pytest.skip(f"shared data not found: {archive}")
    with tarfile.open(archive) as tar:
        bodies = list(islice(_markdown_members(tar), 300))
    assert any(len(chunk_text(body)) > 5 for body in bodies)
    for body in bodies:
        assert_chunk_invariants(body, chunk_text(body))


def _markdown_members(tar: tarfile.TarFile) -> Iterator[str]:
    for member in tar:
        handle = tar.extractfile(member) if member.name.endswith(".md") else None
        if handle is not None:
            yield handle.read().decode("utf-8")


# --- generated markdown ------------------------------------------------------------------------

# Words never start a line with list, quote, HTML, table or setext markers, so a CommonMark
# parser reads the same top-level structure the chunker should see.
WORDS = st.sampled_from(
    [
        "vault", "index", "retrieval", "note", "chunk", "e.g.", "x", "C:\\path", "a.b",
        "한국어", "검색은", "빠르다.", "문장입니다.", "데이터", "日本語。", "終わり！",
        "ok?", "wow!",
        "naïve", "emoji😀", "`code`", "#tag", "##notaheading", "~~~inline", "``two",
    ]
)  # fmt: skip
ODD_TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\r\x00"), max_size=12
)


@st.composite
def paragraphs(draw: st.DrawFn, odd: bool) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(WORDS, min_size=1, max_size=25))
        end = draw(st.sampled_from(["", ".", "?", "!", "。"]))
        line = " ".join(words) + end
        if odd:
            line += draw(ODD_TEXT)
        lines.append(line)
    return draw(st.sampled_from(["\n", " "])).join(lines)


@st.composite
def headings(draw: st.DrawFn) -> str:
    level = draw(st.integers(1, 6))
    text = " ".join(draw(st.lists(WORDS, max_size=4)))
    closing = draw(st.sampled_from(["", " ##", " #"]))
    indent = " " * draw(st.integers(0, 3))
    return f"{indent}{'#' * level} {text}{closing}".rstrip() if text or closing else "#" * level


@st.composite
def fences(draw: st.DrawFn) -> str:
    char = draw(st.sampled_from("`~"))
    size = draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", " md"]))
    opening = " " * draw(st.integers(0, 3)) + char * size + info
    inner = st.one_of(
        WORDS,
        st.just("## looks like a heading"),
        st.just(char * (size - 1)),
        st.just(("~" if char == "`" else "`") * size),
        st.just(""),
        st.builds(lambda n: "code_" * n, st.integers(1, 80)),
    )
    lines = draw(st.lists(inner, max_size=30))
    closing = " " * draw(st.integers(0, 3)) + char * draw(st.integers(size, size + 2))
    closed = draw(st.booleans()) or not lines
    return "\n".join([opening, *lines, *([closing] if closed else [])])


@st.composite
def long_lines(draw: st.DrawFn) -> str:
    piece = draw(st.sampled_from(["lorem ipsum ", "검색 품질. ", "x", "no-space-run"]))
    return (piece * draw(st.integers(50, 600))).strip()


@st.composite
def documents(draw: st.DrawFn, odd: bool = False) -> str:
    block = st.one_of(paragraphs(odd), headings(), fences(), long_lines(), st.just("## "))
    blocks = draw(st.lists(block, max_size=14))
    separators = st.sampled_from(["\n", "\n\n", "\n\n\n", "\n  \n"])
    body = "".join(b + draw(separators) for b in blocks)
    return draw(st.sampled_from(["", "\n", "  "])) + body


@st.composite
def limits(draw: st.DrawFn) -> dict[str, int]:
    max_chars = draw(st.sampled_from([40, 120, 500, 2000]))
    return {
        "max_chars": max_chars,
        "min_chars": draw(st.integers(0, min(40, max_chars))),
        "overlap": draw(st.integers(0, (max_chars - 1) // 2)),
    }


LOREM = "lorem ipsum " * 49 + "lorem ipsum"
# Found by hypothesis: near the end of a long fence the only line starts left windows under
# min_chars, and the fallback hard cut split a short line instead of using one of them.
FENCE_TAIL = (
    f"{LOREM}\nvault\n```\n## x\n{LOREM}\n{LOREM}\n```\n"
    "```\n#\n``` md\n## looks like a heading\nvault\n"
)


@settings(max_examples=100, deadline=None)
@example(FENCE_TAIL, {"max_chars": 40, "min_chars": 30, "overlap": 0})
@given(documents(odd=True), limits())
def test_property_chunks_cover_fit_and_respect_fences(body: str, limit: dict[str, int]) -> None:
    chunks = chunk_text(body, **limit)
    assert_chunk_invariants(body, chunks, **limit)
    assert chunk_text(body, **limit) == chunks  # deterministic


@settings(max_examples=100, deadline=None)
@example(FENCE_TAIL, {"max_chars": 40, "min_chars": 30, "overlap": 0})
@given(documents(odd=True), limits())
def test_property_overlap_mid_sentence_keeps_every_invariant(
    body: str, limit: dict[str, int]
) -> None:
    chunks = chunk_text(body, **limit, overlap_mid_sentence=True)
    assert_chunk_invariants(body, chunks, **limit)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300).map(lambda s: s.replace("\r", "")), limits())
def test_property_arbitrary_text_never_breaks_the_invariants(
    body: str, limit: dict[str, int]
) -> None:
    assert_chunk_invariants(body, chunk_text(body, **limit), **limit)


COMMONMARK = MarkdownIt("commonmark")


def _line_of(body: str, offset: int) -> int:
    return body.count("\n", 0, offset)


@settings(max_examples=100, deadline=None)
@given(documents())
def test_property_structure_matches_markdown_it(body: str) -> None:
    """Headings and fences agree with CommonMark, and each chunk carries the H2 above it."""
    tokens = COMMONMARK.parse(body)
    located = [(token.map, token) for token in tokens if token.level == 0 and token.map]
    expected_headings = [
        (lines[0], int(token.tag[1]))
        for lines, token in located
        if token.type == "heading_open" and token.markup.startswith("#")
    ]
    expected_fences = [lines for lines, token in located if token.type == "fence"]
    found = outline(body)
    assert [(_line_of(body, h.start), h.level) for h in found.headings] == expected_headings
    assert [_line_of(body, fence.start) for fence in found.fences] == [
        start for start, _ in expected_fences
    ]
    line_count = body.count("\n") + 1
    for fence, (_, end) in zip(found.fences, expected_fences, strict=True):
        ours = _line_of(body, fence.end - 1) + 1
        assert ours == end or (end >= line_count - 1 and not body[fence.end :].strip())

    h2_titles = {  # the inline token after heading_open holds the heading's text
        heading.map[0]: inline.content
        for heading, inline in pairwise(tokens)
        if heading.type == "heading_open" and heading.level == 0 and heading.markup == "##"
        if heading.map
    }
    for chunk in chunk_text(body):
        line = _line_of(body, chunk.start)
        before = [number for number in h2_titles if number <= line]
        assert chunk.section == (h2_titles[max(before)] if before else "")
