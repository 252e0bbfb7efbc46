"""Tags merged into front matter by the smallest edit: every other byte stays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.review.front_matter_tags import existing_tags, merge_tags, normalise_tag
from vaultctx.vault.note import split_front_matter
from vaultctx.vault.writes import NoteChangeError


@pytest.mark.parametrize(
    ("raw", "tag"),
    [
        ("#Machine Learning", "machine-learning"),
        ("  a  b ", "a-b"),
        ("Q3/Plans!", "q3/plans"),
        ("2024", ""),
        ("--x--", "x"),
        ("한국어 태그", "한국어-태그"),
        (7, ""),
        ("", ""),
    ],
)
def test_normalise_tag(raw: object, tag: str) -> None:
    assert normalise_tag(raw) == tag


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("# Note\n", "---\ntags:\n  - new\n---\n# Note\n"),
        ("---\ntitle: x\n---\nbody\n", "---\ntitle: x\ntags:\n  - new\n---\nbody\n"),
        ("---\ntags: [a, b]\n---\nx", "---\ntags: [a, b, new]\n---\nx"),
        ("---\ntags: []\n---\nx", "---\ntags: [new]\n---\nx"),
        ("---\ntags:\n- a\nz: 1\n---\n", "---\ntags:\n- a\n- new\nz: 1\n---\n"),
        ("---\ntags: a, b\n---\n", "---\ntags: [a, b, new]\n---\n"),
        ("---\ntags:\n---\n", "---\ntags:\n  - new\n---\n"),
        ("---\ntags: [A, new]\n---\n", "---\ntags: [A, new]\n---\n"),  # has it: unchanged
    ],
)
def test_merge_tags_edits_only_the_tags(before: str, after: str) -> None:
    assert merge_tags(before, ["New"]) == after


def test_a_tag_yaml_would_read_as_something_else_is_quoted() -> None:
    merged = merge_tags("# x\n", ["true", "null"])
    assert split_front_matter(merged)[0]["tags"] == ["true", "null"]


def test_broken_front_matter_is_left_alone() -> None:
    with pytest.raises(NoteChangeError, match="tags were not changed"):
        merge_tags("---\ntags: [a\n---\nbody\n", ["b"], name="n.md")


_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda k: k != "tags")
_VALUE = st.one_of(st.integers(), st.text(alphabet="abc xyz", max_size=10), st.booleans())


@settings(max_examples=150, deadline=None)
@given(
    fields=st.dictionaries(_KEY, _VALUE, max_size=4),
    body=st.text(max_size=200),
    have=st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), max_size=3),
    layout=st.sampled_from(["flow", "block", "none"]),
    new=st.lists(st.text(max_size=12), max_size=4),
)
def test_merging_keeps_every_other_key_and_the_body(
    fields: dict[str, object], body: str, have: list[str], layout: str, new: list[str]
) -> None:
    import yaml

    lines = [yaml.safe_dump({k: v}).strip() for k, v in fields.items()]
    if layout == "flow":
        lines.append("tags: [" + ", ".join(have) + "]")
    elif layout == "block":
        lines += ["tags:", *(f"  - {t}" for t in have)]
    text = "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body
    merged = merge_tags(text, new)
    front, offset, problems = split_front_matter(merged)
    assert problems == []
    assert merged[offset:] == text[split_front_matter(text)[1] :]  # the body, byte for byte
    assert {k: v for k, v in front.items() if k != "tags"} == fields
    wanted = [t for t in (normalise_tag(n) for n in new) if t]
    assert set(existing_tags(merged)) == set(have if layout != "none" else []) | set(wanted)
