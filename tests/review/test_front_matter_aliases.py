"""Aliases added with a minimal front matter edit: only the aliases key's lines change."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.review.front_matter_aliases import FrontMatterEditError, add_aliases, quoted


def test_no_front_matter_gets_one() -> None:
    assert add_aliases("Body\n", ["Plan", "old plan"], name="N.md") == (
        '---\naliases:\n  - "Plan"\n  - "old plan"\n---\nBody\n'
    )


def test_a_missing_key_is_added_last_keeping_everything_else() -> None:
    text = "---\ntitle:   Plan  # mine\ntags: [a, b]\n---\n# Plan\n"
    assert add_aliases(text, ["Old"], name="N.md") == (
        '---\ntitle:   Plan  # mine\ntags: [a, b]\naliases:\n  - "Old"\n---\n# Plan\n'
    )


def test_a_block_list_grows_in_its_own_indentation() -> None:
    text = "---\naliases:\n    - one  # first\n    - 'Two'\ntags: x\n---\nBody"
    assert add_aliases(text, ["two", "Three"], name="N.md") == (
        "---\naliases:\n    - one  # first\n    - 'Two'\n    - \"Three\"\ntags: x\n---\nBody"
    )


def test_a_flow_list_is_extended_as_written() -> None:
    text = "---\ntitle: T\naliases: [one, 'two']  # mine\nother: 1\n---\nBody\n"
    assert add_aliases(text, ["New"], name="N.md") == (
        "---\ntitle: T\naliases: [one, 'two', \"New\"]  # mine\nother: 1\n---\nBody\n"
    )


@pytest.mark.parametrize(("line", "kept"), [("aliases: one", ['"one"']), ("aliases:", [])])
def test_a_single_value_becomes_a_block_list(line: str, kept: list[str]) -> None:
    text = f"---\ntitle: T\n{line}\nother: 1\n---\nBody\n"
    items = "".join(f"  - {k}\n" for k in [*kept, '"New"'])
    assert add_aliases(text, ["New"], name="N.md") == (
        f"---\ntitle: T\naliases:\n{items}other: 1\n---\nBody\n"
    )


def test_crlf_notes_stay_crlf() -> None:
    text = "---\r\ntitle: T\r\n---\r\nBody\r\n"
    assert add_aliases(text, ["New"], name="N.md") == (
        '---\r\ntitle: T\r\naliases:\r\n  - "New"\r\n---\r\nBody\r\n'
    )


def test_nothing_new_changes_nothing() -> None:
    text = "---\naliases: [Plan]\n---\n"
    assert add_aliases(text, ["plan", " "], name="N.md") == text


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
def test_what_cannot_be_edited_safely_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(FrontMatterEditError) as error:
        add_aliases(text, ["New"], name="N.md")
    assert problem in error.value.message and error.value.message.startswith("N.md: ")


KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in ("aliases", "true", "false", "null", "yes", "no", "on", "off", "y", "n")
)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    others=st.dictionaries(KEYS, TEXT, max_size=4),
    existing=st.lists(TEXT.filter(str.strip), max_size=3),
    form=st.sampled_from(["none", "block", "indented", "flow", "absent"]),
    wanted=st.lists(TEXT, max_size=4),
    body=TEXT,
)
def test_only_the_aliases_change_for_any_text(
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
    result = add_aliases(text, wanted, name="N.md")  # valid front matter is never refused
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
