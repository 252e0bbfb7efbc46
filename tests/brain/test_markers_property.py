"""``upsert_block`` never changes a byte the user wrote outside the markers, whatever the content
(marker-like strings included), and refuses a note with a start marker left unclosed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.brain.markers import (
    MarkerError,
    block_span,
    end_marker,
    read_block,
    start_marker,
    upsert_block,
)

KEY = "synthesis"
# Text built from pieces that look like markers, so the fuzzing hits the hard cases often.
PIECES = st.sampled_from(
    [
        start_marker(KEY),
        end_marker(KEY),
        start_marker("other"),
        end_marker("other"),
        "<!-- @generated:synthesis",
        "<!--@end:synthesis -->",
        "<!--  @GENERATED:synthesis -->",
        "<!--",
        "-->",
        "\n",
        "\r\n",
        "\u200b",
        "user text",
        "",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=20)), max_size=12).map("".join)


def user_text(text: str) -> tuple[str, str]:
    """The text before and after block KEY's inside (the whole text when there is none)."""
    span = block_span(text, KEY)
    return (text, "") if span is None else (text[: span[0]], text[span[1] :])


@settings(max_examples=400, deadline=None)
@given(before=TEXT, old=TEXT, after=TEXT, content=TEXT)
def test_text_outside_a_closed_block_never_changes(
    before: str, old: str, after: str, content: str
) -> None:
    note = before + start_marker(KEY) + "\n" + old + "\n" + end_marker(KEY) + after
    try:
        outside = user_text(note)
    except MarkerError:
        with pytest.raises(MarkerError):
            upsert_block(note, KEY, content)
        return
    updated = upsert_block(note, KEY, content)
    assert user_text(updated) == outside
    assert read_block(updated, KEY) == read_block(upsert_block(updated, KEY, content), KEY)


@settings(max_examples=400, deadline=None)
@given(note=TEXT, content=TEXT)
def test_any_note_keeps_its_text_or_is_refused(note: str, content: str) -> None:
    try:
        span = block_span(note, KEY)
    except MarkerError:
        with pytest.raises(MarkerError):
            upsert_block(note, KEY, content)
        return
    updated = upsert_block(note, KEY, content)
    if span is None:
        assert updated.startswith(note)  # a new block is only ever appended
    else:
        assert updated[: span[0]] == note[: span[0]]
        assert updated.endswith(note[span[1] :])
    # The content went in whole, and it can neither close the block nor open another one.
    again = read_block(updated, KEY)
    assert again is not None
    assert start_marker(KEY) not in again and end_marker(KEY) not in again
    assert upsert_block(updated, KEY, content) == updated  # idempotent


@given(before=TEXT, after=TEXT)
def test_an_unclosed_start_marker_is_an_error(before: str, after: str) -> None:
    note = "intro\n" + start_marker(KEY) + "\nhalf a block" + after.replace(end_marker(KEY), "")
    with pytest.raises(MarkerError, match="without its"):
        upsert_block(note, KEY, "new")
