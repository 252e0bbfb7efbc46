"""Where a new block goes and which block is read: appended after exactly one blank line, the
first closed block with the key wins, and a start marker left open is an error even when a later
block of the same key is closed."""

from __future__ import annotations

import pytest

from vaultctx.brain.markers import MarkerError, read_block, upsert_block

START, END = "<!-- @generated:k -->", "<!-- @end:k -->"
BLOCK = f"{START}\nc\n{END}\n"


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        ("", BLOCK),
        ("words", f"words\n\n{BLOCK}"),
        ("words\n", f"words\n\n{BLOCK}"),
        ("words\n\n", f"words\n\n{BLOCK}"),
    ],
)
def test_a_new_block_follows_one_blank_line(note: str, expected: str) -> None:
    assert upsert_block(note, "k", "c") == expected


def test_the_first_closed_block_is_read_and_replaced() -> None:
    text = f"{START}\none\n{END}\nmiddle\n{START}\ntwo\n{END}\n"
    assert read_block(text, "k") == "one"
    assert upsert_block(text, "k", "new") == text.replace("one", "new")


def test_an_open_start_is_an_error_even_before_a_closed_block() -> None:
    text = f"{START}\nhalf\n{START}\nx\n{END}\n{START}\ny\n{END}\n"
    with pytest.raises(MarkerError, match="on line 1 without its"):
        read_block(text, "k")


def test_lines_are_counted_from_the_first_character() -> None:
    with pytest.raises(MarkerError, match="on line 3 without its"):
        read_block(f"\n\n{START}\nopen\n", "k")
