from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.vault.bounded_yaml import (
    MAX_CHARS,
    MAX_DEPTH,
    MAX_FLOW_OPENERS,
    MAX_VALUES,
    FrontMatterTooCostlyError,
    _check_expansion,
    _tree_within_caps,
    load_bounded_yaml,
)

FRONT_MATTER = """\
title: SQLite tuning
tags: [db/sqlite, performance]
created: 2024-02-27
project: {name: vaultctx, since: 2024-01-05 09:30:00}
up: "[[Engineering MOC]]"
defaults: &defaults {status: draft, owner: me}
review: {<<: *defaults, status: done}
"""


def test_real_front_matter_loads_as_safe_load_does() -> None:
    assert load_bounded_yaml(FRONT_MATTER) == yaml.safe_load(FRONT_MATTER)


def test_empty_yaml_is_none() -> None:
    assert load_bounded_yaml("") is None
    assert load_bounded_yaml("# only a comment\n") is None


def test_billion_laughs_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    with pytest.raises(FrontMatterTooCostlyError, match="over 10,000 keys and values"):
        load_bounded_yaml("\n".join(lines))


def test_an_alias_repeating_long_text_is_refused() -> None:
    source = "a: &a " + "x" * 1000 + "\nb: [" + ", ".join(["*a"] * 200) + "]"
    with pytest.raises(FrontMatterTooCostlyError, match="characters of text"):
        load_bounded_yaml(source)


@pytest.mark.parametrize("source", ["a: &a [*a]", "a: &a {b: *a}", "a: &a [[x, [*a]]]"])
def test_an_alias_inside_its_own_anchor_is_refused(source: str) -> None:
    with pytest.raises(FrontMatterTooCostlyError, match="contains itself"):
        load_bounded_yaml(source)


# Depth counts the values from the top-level mapping down to the deepest scalar.
def _flow(depth: int) -> str:
    return "a: " + "[" * (depth - 2) + "x" + "]" * (depth - 2)


def _block(depth: int) -> str:
    return "".join(" " * level + f"k{level}:\n" for level in range(depth - 1)) + " " * depth + "x"


@pytest.mark.parametrize("nested", [_flow, _block])
def test_nesting_deeper_than_the_cap_is_refused(nested: Callable[[int], str]) -> None:
    assert load_bounded_yaml(nested(MAX_DEPTH)) is not None
    with pytest.raises(FrontMatterTooCostlyError, match=f"deeper than {MAX_DEPTH} levels"):
        load_bounded_yaml(nested(MAX_DEPTH + 1))


def test_front_matter_over_the_size_cap_is_refused_before_parsing() -> None:
    with pytest.raises(FrontMatterTooCostlyError, match="65,536-character limit"):
        load_bounded_yaml("a: [" + "[" * MAX_CHARS)


def test_many_flow_openers_are_read_by_the_depth_checking_scanner() -> None:
    links = [f'"[[Note {n}]]"' for n in range(MAX_FLOW_OPENERS)]  # 2 openers each
    source = "related: [" + ", ".join(links) + "]"
    assert load_bounded_yaml(source) == yaml.safe_load(source)
    # libyaml spent minutes on such a line; the Python scanner stops at the cap.
    with pytest.raises(FrontMatterTooCostlyError, match="deeper than"):
        load_bounded_yaml("a: " + "[" * (MAX_CHARS - 10))


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("created: 2024-02-30", "day is out of range for month"),
        ("n: " + "9" * 5000, "Exceeds the limit (4300 digits)"),
    ],
)
def test_a_value_that_cannot_be_built_is_a_yaml_error(source: str, reason: str) -> None:
    with pytest.raises(yaml.YAMLError, match=re.escape(reason)) as raised:
        load_bounded_yaml(source)
    assert "set_int_max_str_digits" not in str(raised.value)  # advice for programmers only


def test_alias_free_front_matter_over_the_value_cap_is_refused() -> None:
    """Without a "*" the quick tree walk decides; at the cap it passes, one over it refuses."""
    # The mapping, "a", the list and its items: 3 + items values.
    assert load_bounded_yaml("a: [" + ", ".join(["x"] * (MAX_VALUES - 3)) + "]") is not None
    with pytest.raises(FrontMatterTooCostlyError, match="over 10,000 keys and values"):
        load_bounded_yaml("a: [" + ", ".join(["x"] * (MAX_VALUES - 2)) + "]")


_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=60,
)


@settings(max_examples=300, deadline=None)
@given(_PLAIN, st.integers(min_value=1, max_value=70))
def test_the_quick_walk_agrees_with_the_full_check(value: object, wrap: int) -> None:
    for _ in range(wrap):  # deep enough, at times, to pass the depth cap
        value = [value]
    node = yaml.compose(yaml.safe_dump({"k": value}))
    assert node is not None
    try:
        _check_expansion(node)
        refused = False
    except FrontMatterTooCostlyError:
        refused = True
    assert _tree_within_caps(node) is not refused
