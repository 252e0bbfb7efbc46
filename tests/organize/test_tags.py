"""Tag parsing from a model's reply and the note text the model reads (organize/tags.py); the
front matter edit is tested with the one editor (tests/vault/test_front_matter_lists.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.organize.tags import TagsError, cleaned_body, parse_tags


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("python, databases, sqlite", ["python", "databases", "sqlite"]),
        ("tags: #Python, #Machine Learning, `sqlite`", ["python", "machine-learning", "sqlite"]),
        (
            "- alpha\n- beta\n- gamma\n- delta\n- epsilon\n- zeta",
            ["alpha", "beta", "gamma", "delta", "epsilon"],
        ),
        ("파이썬，데이터베이스、검색", ["파이썬", "데이터베이스", "검색"]),
        ("a/b, c!d, e<script>", ["a/b", "cd", "escript"]),
        ("one, one, ONE, two, three", ["one", "two", "three"]),
        ("2024, year-2024, notes, ideas", ["year-2024", "notes", "ideas"]),
    ],
)
def test_replies_are_parsed_into_tags(reply: str, expected: list[str]) -> None:
    assert parse_tags(reply) == expected


@pytest.mark.parametrize("reply", ["", "just one", "a, b", "2024, 1999, 42, ###"])
def test_fewer_than_three_tags_is_an_error(reply: str) -> None:
    with pytest.raises(TagsError, match=r"Could not extract tags\."):
        parse_tags(reply)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_reply_gives_valid_tags_or_the_error(reply: str) -> None:
    try:
        tags = parse_tags(reply)
    except TagsError:
        return
    assert 3 <= len(tags) <= 5
    for tag in tags:
        assert tag == tag.lower() and " " not in tag and "#" not in tag and "," not in tag
        assert all(c.isalnum() or c in "_-/" for c in tag)


def test_the_prompt_body_has_no_tags_of_its_own() -> None:
    text = (
        "---\ntitle: X\ntags:\n  - old\n  - older\nstatus: draft\n---\n"
        "# Heading #notag\nBody #inline and #x/y text.\n"
    )
    body = cleaned_body(text)
    assert "old" not in body and "#inline" not in body and "#x/y" not in body
    assert "status: draft" in body and "# Heading #notag" in body and "Body  and  text." in body
