"""Where a short section goes when the section after it is long (vault/chunker.py, step 2), at
the exact limits: glued to the next section while the pair fits in ``max_chars`` (a union of
exactly ``max_chars`` fits), else to the previous chunk when that union fits (again inclusive),
else to the next section all the same, which is then windowed. A heading never ends up alone
and no chunk is longer than ``max_chars``.
"""

from __future__ import annotations

from vaultctx.vault.chunker import chunk_text

MAX = 200
SHORT = "## S"  # under min_chars (30): a heading with nothing under it


def section(heading: str, length: int) -> str:
    """``## heading`` and filler words, exactly ``length`` characters, no trailing space."""
    text = f"## {heading}\n" + "word " * length
    return text[:length].rstrip().ljust(length, "w")


def chunks_of(*sections: str) -> list[str]:
    return [chunk.text for chunk in chunk_text("\n\n".join(sections), max_chars=MAX, overlap=20)]


def test_a_short_section_joins_the_next_when_the_pair_is_exactly_the_limit() -> None:
    before, after = section("P", 100), section("N", MAX - len(SHORT) - 2)
    assert len(f"{SHORT}\n\n{after}") == MAX
    assert chunks_of(before, SHORT, after) == [before, f"{SHORT}\n\n{after}"]


def test_one_character_more_sends_it_to_the_previous_chunk() -> None:
    before, after = section("P", 100), section("N", MAX - len(SHORT) - 1)
    assert chunks_of(before, SHORT, after) == [f"{before}\n\n{SHORT}", after]


def test_the_previous_chunk_takes_it_when_their_union_is_exactly_the_limit() -> None:
    before, after = section("P", MAX - len(SHORT) - 2), section("N", MAX - 5)
    assert len(f"{before}\n\n{SHORT}") == MAX < len(f"{SHORT}\n\n{after}")
    assert chunks_of(before, SHORT, after) == [f"{before}\n\n{SHORT}", after]


def test_when_neither_union_fits_it_starts_the_next_section_windows() -> None:
    before, after = section("P", MAX - len(SHORT) - 1), section("N", MAX - 5)
    chunks = chunks_of(before, SHORT, after)
    assert chunks[0] == before
    assert chunks[1].startswith(f"{SHORT}\n\n## N")
    assert all(len(chunk) <= MAX for chunk in chunks)


def test_a_first_short_section_always_joins_the_next() -> None:
    after = section("N", MAX - 5)
    chunks = chunks_of(SHORT, after)
    assert chunks[0].startswith(f"{SHORT}\n\n## N")
    assert all(len(chunk) <= MAX for chunk in chunks)
