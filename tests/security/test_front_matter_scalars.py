"""`vaultctx tags --apply` adds tags and changes nothing else the user wrote: not another key,
not a comment, not one scalar of the tag list itself (docs/organize.md). PyYAML reads YAML 1.1,
where `yes` is True, `0x10` is 16 and `null` is nothing; a list rewritten from what it read
turned the user's `yes` into `"True"` and dropped `null`.

The edit goes through ``add_list_items`` with ``TAGS``, the one editor ``tags --apply`` writes
with (organize.tags.apply_tags) and aliases are added with too (vault/front_matter_edit.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.vault.front_matter_edit import TAGS, add_list_items
from vaultctx.vault.note import split_front_matter

# Scalars YAML 1.1 reads as something other than the text written.
SCALARS = [
    "yes",
    "no",
    "on",
    "off",
    "Yes",
    "0x10",
    "0o17",
    "017",
    "1e3",
    "1_000",
    "null",
    "~",
    "2024-01-31",
    "12:30",
    "'single quoted'",
    '"double \\u00e9"',
    "plain words",
    ".inf",
]
ITEM_SCALARS = [s for s in SCALARS if " " not in s.strip("'\"")]
COMMENT = st.sampled_from(["", "  # why", " #x"])
KEYS = st.sampled_from(["title", "status", "when", "count", "flag", "ratio"])
NEW_TAGS = st.lists(
    st.from_regex(r"[a-z][a-z0-9/_-]{0,8}", fullmatch=True), min_size=1, max_size=3, unique=True
).map(lambda tags: [f"new-{t}" for t in tags])


@st.composite
def tags_value(draw: st.DrawFn) -> str:
    """The tag key as a user may have written it, with YAML 1.1 surprises among its items."""
    items = draw(st.lists(st.sampled_from(ITEM_SCALARS), min_size=1, max_size=5))
    form = draw(st.sampled_from(["block", "flow", "flow-multiline", "plain"]))
    if form == "block":
        indent = draw(st.sampled_from(["", "  ", "    "]))
        lines = [f"{indent}- {item}{draw(COMMENT)}" for item in items]
        if draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), f"{indent or '  '}# between")
        return "tags:" + draw(COMMENT) + "\n" + "\n".join(lines)
    if form == "flow":
        return f"tags: [{', '.join(items)}]{draw(COMMENT)}"
    if form == "flow-multiline":
        return "tags: [" + ",\n  ".join(items) + "]" + draw(COMMENT)
    words = [i for i in items if i[0] not in "'\"~" and i != "null" and ":" not in i]
    return f"tags: {', '.join(words or ['plain'])}{draw(COMMENT)}"


@st.composite
def note(draw: st.DrawFn) -> str:
    keys = draw(st.lists(KEYS, unique=True, max_size=5))
    lines = [f"{key}: {draw(st.sampled_from(SCALARS))}{draw(COMMENT)}" for key in keys]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(tags_value()))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "# a comment line")
    return "---\n" + "".join(f"{line}\n" for line in lines) + "---\n# Body\n\ntext\n"


def _only_inserted(before: str, after: str) -> str:
    """The text inserted into ``before`` to make ``after``; fails unless it is one insertion."""
    start = 0
    while start < len(before) and before[start] == after[start]:
        start += 1
    inserted = len(after) - len(before)
    assert inserted > 0 and after[start + inserted :] == before[start:], (before, after)
    return after[start : start + inserted]


@settings(max_examples=600, deadline=None)
@given(note(), NEW_TAGS)
def test_every_scalar_survives_byte_for_byte_but_the_added_tags(text: str, new: list[str]) -> None:
    edited = add_list_items(text, TAGS, new)
    inserted = _only_inserted(text, edited)
    for tag in new:
        assert tag in inserted
    leftover = inserted
    for tag in sorted(new, key=len, reverse=True):  # new-a0 before new-a
        leftover = leftover.replace(tag, "", 1)
    assert set(leftover) <= set(" ,-\n") or leftover.startswith("tags:"), inserted
    after, _offset, problems = split_front_matter(edited)
    before, _offset, _problems = split_front_matter(text)
    assert problems == []
    assert {k: v for k, v in after.items() if k != "tags"} == {
        k: v for k, v in before.items() if k != "tags"
    }


def test_the_reported_case() -> None:
    text = "---\ntags: [yes, 0x10, null]\nflag: on  # kept\n---\nBody\n"
    assert add_list_items(text, TAGS, ["new"]) == (
        "---\ntags: [yes, 0x10, null, new]\nflag: on  # kept\n---\nBody\n"
    )
