"""Tag parsing from a model's reply and the minimal front matter edit (organize/tags.py,
organize/front_matter_tags.py)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.organize.front_matter_tags import FrontMatterError, add_tags
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


def test_tags_are_appended_to_a_block_list_in_its_own_indentation() -> None:
    text = (
        "---\ntitle: Plan  # a comment\ntags:\n    - 'Old One'\n    - two\nstatus: x\n---\nBody\n"
    )
    assert add_tags(text, ["two", "new", "#Old One", "more"]) == (
        "---\ntitle: Plan  # a comment\ntags:\n    - 'Old One'\n    - two\n    - new\n    - more\n"
        "status: x\n---\nBody\n"
    )


def test_a_block_list_at_column_zero_is_kept() -> None:
    text = "---\ntags:\n- a\n- b\n---\n"
    assert add_tags(text, ["c"]) == "---\ntags:\n- a\n- b\n- c\n---\n"


@pytest.mark.parametrize(
    "value", ["[alpha, beta]", "alpha, beta", "alpha beta", "[alpha,\n  beta]"]
)
def test_an_inline_value_is_extended_where_it_stands(value: str) -> None:
    """Never rewritten as a block list from parsed values: that wrote ``yes`` back as ``True``."""
    text = f"---\nkey: 1\ntags: {value}\nother: 2\n---\nBody\n"
    extended = {
        "[alpha, beta]": "[alpha, beta, gamma]",
        "alpha, beta": "alpha, beta, gamma",
        "alpha beta": "alpha beta gamma",
        "[alpha,\n  beta]": "[alpha,\n  beta, gamma]",
    }[value]
    assert add_tags(text, ["gamma"]) == f"---\nkey: 1\ntags: {extended}\nother: 2\n---\nBody\n"


def test_the_singular_key_is_used_when_it_is_the_one_there() -> None:
    text = "---\ntag: alpha\n---\n"
    assert add_tags(text, ["beta"]) == "---\ntag: alpha beta\n---\n"


def test_a_block_scalar_is_refused_not_rewritten() -> None:
    with pytest.raises(FrontMatterError, match="could not be added"):
        add_tags("---\ntags: |\n  a b\n---\n", ["c"])


def test_a_missing_key_is_added_last() -> None:
    text = "---\ntitle: T\n---\nBody\n"
    assert add_tags(text, ["a", "b"]) == "---\ntitle: T\ntags:\n  - a\n  - b\n---\nBody\n"


def test_a_note_without_front_matter_gets_one() -> None:
    assert add_tags("# T\nBody", ["a", "b"]) == "---\ntags:\n  - a\n  - b\n---\n# T\nBody"


def test_crlf_and_bom_are_kept() -> None:
    text = "\ufeff---\r\ntitle: T\r\n---\r\nBody\r\n"
    assert add_tags(text, ["a"]) == "\ufeff---\r\ntitle: T\r\ntags:\r\n  - a\r\n---\r\nBody\r\n"


def test_yaml_ambiguous_tags_are_quoted() -> None:
    edited = add_tags("---\n---\n", ["yes", "null", "1.5x", "ok"])
    assert yaml.safe_load(edited.split("---\n")[1])["tags"] == ["yes", "null", "1.5x", "ok"]


def test_nothing_new_changes_nothing() -> None:
    text = "---\ntags: [a, b]\n---\n"
    assert add_tags(text, ["A", "#b"]) == text


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: [unclosed\n---\nBody\n",
        "---\ntitle: T\nno closing fence\n",
        "---\n- a list\n- not a mapping\n---\n",
    ],
)
def test_malformed_front_matter_is_an_error(text: str) -> None:
    with pytest.raises(FrontMatterError):
        add_tags(text, ["a"])


def test_an_edit_that_would_change_other_keys_is_refused() -> None:
    # An anchor used by another key: rewriting the tags value would drop what it points at.
    text = "---\ntags: &shared [a]\nother: *shared\n---\n"
    with pytest.raises(FrontMatterError, match="could not be added"):
        add_tags(text, ["b"])
