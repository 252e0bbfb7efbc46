"""What a refused block says: the note's name (as the caller gave it), the marker, its line and
the fix; and a key that cannot be a block key is named."""

from __future__ import annotations

import pytest

from vaultctx.brain.markers import MarkerError, block_span, read_block, start_marker, upsert_block

UNCLOSED = "# Hub\n\nintro\n<!-- @generated:links -->\nhalf a block\n"


def test_an_unclosed_block_names_the_note_the_marker_and_its_line() -> None:
    for refuse in (
        lambda: read_block(UNCLOSED, "links", name="Hub.md"),
        lambda: upsert_block(UNCLOSED, "links", "x", name="Hub.md"),
        lambda: block_span(UNCLOSED, "links", name="Hub.md"),
    ):
        with pytest.raises(MarkerError) as refused:
            refuse()
        assert refused.value.message == (
            "Hub.md has <!-- @generated:links --> on line 4 without its <!-- @end:links -->; "
            "nothing was written"
        )
        assert refused.value.suggestion == (
            "add <!-- @end:links --> where the generated text ends, or delete the start marker"
        )


def test_without_a_name_it_is_the_note() -> None:
    for refuse in (
        lambda: read_block(UNCLOSED, "links"),
        lambda: block_span(UNCLOSED, "links"),
        lambda: upsert_block(UNCLOSED, "links", "x"),
    ):
        with pytest.raises(MarkerError, match=r"^the note has <!-- @generated:links --> on line 4"):
            refuse()


@pytest.mark.parametrize("key", ["Links", "", "-x", "a b", "x" * 65])
def test_a_key_that_cannot_be_a_block_key_is_named(key: str) -> None:
    with pytest.raises(ValueError, match=f"^not a block key: {key!r}$"):
        start_marker(key)
