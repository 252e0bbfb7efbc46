"""set_front_matter_value: one key set, every other byte of the note kept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultctx.brain.front_matter_edit import FrontMatterEditError, set_front_matter_value
from vaultctx.vault.note import split_front_matter


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("# Body\n", "---\nlearned_at: 2026-12-01\n---\n# Body\n"),
        ("", "---\nlearned_at: 2026-12-01\n---\n"),
        ("a\r\nb\r\n", "---\r\nlearned_at: 2026-12-01\r\n---\r\na\r\nb\r\n"),
        ("---\n---\nx\n", "---\nlearned_at: 2026-12-01\n---\nx\n"),
        (
            "---\ntitle: T # why\nlearned_at: 2020-01-01\ntags: [a]\n---\nx\n",
            "---\ntitle: T # why\nlearned_at: 2026-12-01\ntags: [a]\n---\nx\n",
        ),
        (
            "---\nlearned_at:\n  - old\n  - older\nz: 1\n---\n",
            "---\nlearned_at: 2026-12-01\nz: 1\n---\n",
        ),
        ("---\r\nz: 1\r\n---\r\nx", "---\r\nz: 1\r\nlearned_at: 2026-12-01\r\n---\r\nx"),
        ("---\nlearned_at_old: 1\n---\n", "---\nlearned_at_old: 1\nlearned_at: 2026-12-01\n---\n"),
    ],
)
def test_the_key_is_set_and_nothing_else_moves(before: str, after: str) -> None:
    assert set_front_matter_value(before, "learned_at", "2026-12-01") == after


def test_front_matter_that_never_closes_is_left_alone() -> None:
    with pytest.raises(FrontMatterEditError, match="never closes it; it was left unchanged"):
        set_front_matter_value("---\ntitle: x\n# body\n", "learned_at", "2026-12-01")


keys = st.from_regex(r"[a-k][a-z_]{0,8}", fullmatch=True)
values = st.from_regex(r"[A-Za-z0-9 ]{0,12}", fullmatch=True)


@given(st.dictionaries(keys, values, max_size=6), st.text(max_size=80))
def test_other_lines_and_the_body_are_kept_byte_for_byte(front: dict[str, str], body: str) -> None:
    lines = "".join(f"{key}: '{value}'\n" for key, value in front.items())
    text = f"---\n{lines}---\n{body}"
    edited = set_front_matter_value(text, "learned_at", "2026-12-01")
    assert edited == f"---\n{lines}learned_at: 2026-12-01\n---\n{body}"
    parsed, _, problems = split_front_matter(edited)
    assert problems == []
    assert str(parsed["learned_at"]) == "2026-12-01"
