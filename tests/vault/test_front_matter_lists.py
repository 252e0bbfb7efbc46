"""Items added to a front matter list by the one editor (vault/front_matter_edit.py): tags
(``tags --apply``, ``review inbox``) and aliases (``review duplicates``) are the same insertion
with another ``ListKey``; only the key's lines change."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.vault.front_matter_edit import (
    ALIASES,
    TAGS,
    FrontMatterEditError,
    add_list_items,
    quoted,
)


def _tags(text: str, tags: list[str]) -> str:
    return add_list_items(text, TAGS, tags)


def _aliases(text: str, aliases: list[str], *, name: str) -> str:
    return add_list_items(text, ALIASES, aliases, name=name)


# Tags (moved from tests/organize/test_tags.py)


def test_tags_are_appended_to_a_block_list_in_its_own_indentation() -> None:
    text = (
        "---\ntitle: Plan  # a comment\ntags:\n    - 'Old One'\n    - two\nstatus: x\n---\nBody\n"
    )
    assert _tags(text, ["two", "new", "#Old One", "more"]) == (
        "---\ntitle: Plan  # a comment\ntags:\n    - 'Old One'\n    - two\n    - new\n    - more\n"
        "status: x\n---\nBody\n"
    )


def test_tags_a_block_list_at_column_zero_is_kept() -> None:
    text = "---\ntags:\n- a\n- b\n---\n"
    assert _tags(text, ["c"]) == "---\ntags:\n- a\n- b\n- c\n---\n"


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
    assert _tags(text, ["gamma"]) == f"---\nkey: 1\ntags: {extended}\nother: 2\n---\nBody\n"


def test_the_singular_key_is_used_when_it_is_the_one_there() -> None:
    text = "---\ntag: alpha\n---\n"
    assert _tags(text, ["beta"]) == "---\ntag: alpha beta\n---\n"


def test_tags_a_block_scalar_is_refused_not_rewritten() -> None:
    with pytest.raises(FrontMatterEditError, match="could not be added"):
        _tags("---\ntags: |\n  a b\n---\n", ["c"])


def test_tags_a_missing_key_is_added_last() -> None:
    text = "---\ntitle: T\n---\nBody\n"
    assert _tags(text, ["a", "b"]) == "---\ntitle: T\ntags:\n  - a\n  - b\n---\nBody\n"


def test_tags_a_note_without_front_matter_gets_one() -> None:
    assert _tags("# T\nBody", ["a", "b"]) == "---\ntags:\n  - a\n  - b\n---\n# T\nBody"


def test_tags_crlf_and_bom_are_kept() -> None:
    text = "\ufeff---\r\ntitle: T\r\n---\r\nBody\r\n"
    assert _tags(text, ["a"]) == "\ufeff---\r\ntitle: T\r\ntags:\r\n  - a\r\n---\r\nBody\r\n"


def test_yaml_ambiguous_tags_are_quoted() -> None:
    edited = _tags("---\n---\n", ["yes", "null", "1.5x", "ok"])
    assert yaml.safe_load(edited.split("---\n")[1])["tags"] == ["yes", "null", "1.5x", "ok"]


def test_tags_nothing_new_changes_nothing() -> None:
    text = "---\ntags: [a, b]\n---\n"
    assert _tags(text, ["A", "#b"]) == text


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: [unclosed\n---\nBody\n",
        "---\ntitle: T\nno closing fence\n",
        "---\n- a list\n- not a mapping\n---\n",
    ],
)
def test_tags_malformed_front_matter_is_an_error(text: str) -> None:
    with pytest.raises(FrontMatterEditError):
        _tags(text, ["a"])


def test_tags_an_edit_that_would_change_other_keys_is_refused() -> None:
    # An anchor used by another key: rewriting the tags value would drop what it points at.
    text = "---\ntags: &shared [a]\nother: *shared\n---\n"
    with pytest.raises(FrontMatterEditError, match="could not be added"):
        _tags(text, ["b"])


# Aliases (moved from tests/review/test_front_matter_aliases.py)


def test_aliases_no_front_matter_gets_one() -> None:
    assert _aliases("Body\n", ["Plan", "old plan"], name="N.md") == (
        '---\naliases:\n  - "Plan"\n  - "old plan"\n---\nBody\n'
    )


def test_aliases_a_missing_key_is_added_last_keeping_everything_else() -> None:
    text = "---\ntitle:   Plan  # mine\ntags: [a, b]\n---\n# Plan\n"
    assert _aliases(text, ["Old"], name="N.md") == (
        '---\ntitle:   Plan  # mine\ntags: [a, b]\naliases:\n  - "Old"\n---\n# Plan\n'
    )


def test_aliases_a_block_list_grows_in_its_own_indentation() -> None:
    text = "---\naliases:\n    - one  # first\n    - 'Two'\ntags: x\n---\nBody"
    assert _aliases(text, ["two", "Three"], name="N.md") == (
        "---\naliases:\n    - one  # first\n    - 'Two'\n    - \"Three\"\ntags: x\n---\nBody"
    )


def test_aliases_a_flow_list_is_extended_as_written() -> None:
    text = "---\ntitle: T\naliases: [one, 'two']  # mine\nother: 1\n---\nBody\n"
    assert _aliases(text, ["New"], name="N.md") == (
        "---\ntitle: T\naliases: [one, 'two', \"New\"]  # mine\nother: 1\n---\nBody\n"
    )


@pytest.mark.parametrize(("line", "kept"), [("aliases: one", ['"one"']), ("aliases:", [])])
def test_aliases_a_single_value_becomes_a_block_list(line: str, kept: list[str]) -> None:
    text = f"---\ntitle: T\n{line}\nother: 1\n---\nBody\n"
    items = "".join(f"  - {k}\n" for k in [*kept, '"New"'])
    assert _aliases(text, ["New"], name="N.md") == (
        f"---\ntitle: T\naliases:\n{items}other: 1\n---\nBody\n"
    )


def test_aliases_crlf_notes_stay_crlf() -> None:
    text = "---\r\ntitle: T\r\n---\r\nBody\r\n"
    assert _aliases(text, ["New"], name="N.md") == (
        '---\r\ntitle: T\r\naliases:\r\n  - "New"\r\n---\r\nBody\r\n'
    )


def test_aliases_nothing_new_changes_nothing() -> None:
    text = "---\naliases: [Plan]\n---\n"
    assert _aliases(text, ["plan", " "], name="N.md") == text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\ntitle: [unclosed\n---\nBody", "is not valid YAML (line 3)"),
        ("---\ntitle: T\nBody without a closing fence", "never closed"),
        ("---\naliases: {a: 1}\n---\n", "are not a list of text"),
        ("---\n- a list\n---\n", "not 'key: value' lines"),
        ('---\n"aliases": [a]\n---\n', "could not be added without changing"),
    ],
)
def test_aliases_what_cannot_be_edited_safely_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(FrontMatterEditError) as error:
        _aliases(text, ["New"], name="N.md")
    assert problem in error.value.message and error.value.message.startswith("N.md: ")


ALIAS_KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in ("aliases", "true", "false", "null", "yes", "no", "on", "off", "y", "n")
)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    others=st.dictionaries(ALIAS_KEYS, TEXT, max_size=4),
    existing=st.lists(TEXT.filter(str.strip), max_size=3),
    form=st.sampled_from(["none", "block", "indented", "flow", "absent"]),
    wanted=st.lists(TEXT, max_size=4),
    body=TEXT,
)
def test_aliases_only_the_aliases_change_for_any_text(
    others: dict[str, str], existing: list[str], form: str, wanted: list[str], body: str
) -> None:
    """Whatever the values, the result reads back as the old keys unchanged plus the aliases
    expected, and the body is untouched."""
    lines = [f"{key}: {quoted(value)}" for key, value in others.items()]
    if form == "block":
        lines += ["aliases:", *(f"- {quoted(a)}" for a in existing)]
    elif form == "indented":
        lines += ["aliases:", *(f"    - {quoted(a)}" for a in existing)]
    elif form == "flow":
        lines.append(f"aliases: [{', '.join(quoted(a) for a in existing)}]")
    if form == "none":
        text, existing, others = "\n" + body, [], {}
    else:
        text = "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body
        if form == "absent":
            existing = []
    result = _aliases(text, wanted, name="N.md")  # valid front matter is never refused
    seen = {a.casefold() for a in existing}
    fresh = []
    for alias in wanted:
        if alias.strip() and alias.casefold() not in seen:
            seen.add(alias.casefold())
            fresh.append(alias)
    if not fresh:
        assert result == text
        return
    front, _, rest = result.partition("\n---\n")
    assert result.startswith("---\n") and rest == (body if form != "none" else "\n" + body)
    assert yaml.safe_load(front[4:]) == {**others, "aliases": existing + fresh}
