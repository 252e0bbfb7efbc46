"""A key set by the one editor (vault/front_matter_edit.py): ``learned_at`` (review
contradictions) and a signal's ``triage`` mapping; the key's own lines change, or one is added
last, and every other byte of the note is kept."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from vaultctx.vault.front_matter_edit import FrontMatterEditError, set_value
from vaultctx.vault.note import split_front_matter

DAY = dt.date(2026, 12, 1)
TRIAGE = {"relevance": 0.5, "composite": 0.55, "domain": "web", "route": "inbox",
          "triaged_at": "2026-12-01T10:00:00+00:00"}  # fmt: skip


# learned_at (moved from tests/brain/test_think_front_matter.py)


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
    assert set_value(before, "learned_at", DAY) == after


def test_front_matter_that_never_closes_is_left_alone() -> None:
    with pytest.raises(FrontMatterEditError, match="is never closed; it was left unchanged"):
        set_value("---\ntitle: x\n# body\n", "learned_at", DAY)


keys = st.from_regex(r"[a-k][a-z_]{0,8}", fullmatch=True)
values = st.from_regex(r"[A-Za-z0-9 ]{0,12}", fullmatch=True)


@given(st.dictionaries(keys, values, max_size=6), st.text(max_size=80))
def test_other_lines_and_the_body_are_kept_byte_for_byte(front: dict[str, str], body: str) -> None:
    lines = "".join(f"{key}: '{value}'\n" for key, value in front.items())
    text = f"---\n{lines}---\n{body}"
    edited = set_value(text, "learned_at", DAY)
    assert edited == f"---\n{lines}learned_at: 2026-12-01\n---\n{body}"
    parsed, _, problems = split_front_matter(edited)
    assert problems == []
    assert str(parsed["learned_at"]) == "2026-12-01"


# A mapping (moved from tests/signals/test_front_matter.py)


triage_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda key: key != "triage"
)
triage_values = st.one_of(
    st.integers(), st.text(max_size=30), st.booleans(), st.lists(st.integers())
)


@given(st.dictionaries(triage_keys, triage_values, max_size=6), st.text(max_size=200))
def test_a_mapping_added_to_any_front_matter_keeps_its_values_and_the_body(
    front: dict[str, object], body: str
) -> None:
    dumped = yaml.safe_dump(front, sort_keys=False, allow_unicode=True) if front else ""
    text = f"---\n{dumped}---\n{body}"
    before, offset, problems = split_front_matter(text)
    if problems or offset == 0:
        return
    updated = set_value(text, "triage", TRIAGE)
    after, new_offset, _ = split_front_matter(updated)
    assert after.pop("triage") == TRIAGE
    assert after == before
    assert updated[new_offset:] == text[offset:]
