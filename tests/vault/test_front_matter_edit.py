"""The one front matter editor (vault/front_matter_edit.py): items inserted into a list where
PyYAML says it ends, a key set in its own lines, and nothing else of what the user wrote changed
(``yes`` stays ``yes``, ``0x10`` stays ``0x10``, comments, quoting and list style stay)."""

from __future__ import annotations

import ast
import datetime as dt
import re
from pathlib import Path

import pytest

import vaultctx
from vaultctx.vault.front_matter_edit import (
    ALIASES,
    TAGS,
    FrontMatterEditError,
    ListKey,
    add_list_items,
    list_insertion,
    read_front_matter,
    set_value,
    value_end,
)


def _inserted(chunk: str, newline: str = "\n") -> str:
    found = list_insertion(chunk, ["new"], ["new"], newline=newline)
    assert found is not None
    at, text = found
    return chunk[:at] + text + chunk[at:]


@pytest.mark.parametrize(
    ("chunk", "expected"),
    [
        ("k: [yes, 0x10, null]  # c\n", "k: [yes, 0x10, null, new]  # c\n"),
        ("k: [a,\n  'b' ]\n", "k: [a,\n  'b', new ]\n"),
        ("k: []\n", "k: [new]\n"),
        ("k:\n  - yes\n  # c\n  - ~\n", "k:\n  - yes\n  # c\n  - ~\n  - new\n"),
        ("k:\n- a\n", "k:\n- a\n- new\n"),
    ],
)
def test_the_new_item_is_inserted_and_nothing_rewritten(chunk: str, expected: str) -> None:
    assert _inserted(chunk) == expected


def test_crlf_lines_get_crlf_items() -> None:
    assert _inserted("k:\r\n  - a\r\n", "\r\n") == "k:\r\n  - a\r\n  - new\r\n"


@pytest.mark.parametrize("chunk", ["k: a\n", "k: ~\n", "k:\n  a: 1\n", "k: |\n  a\n", "k: [a\n"])
def test_a_value_that_is_no_readable_list_is_left_to_the_caller(chunk: str) -> None:
    assert list_insertion(chunk, ["new"], ["new"]) is None


def test_the_value_ends_before_trailing_blank_lines_and_the_next_key() -> None:
    lines = ["k:\n", "- a\n", "\n", "  - b\n", "\n", "other: 1\n", "---\n"]
    assert value_end(lines, 0, 6, inline=False) == 4
    assert value_end(["k: [a,\n", "  b]\n", "x: 1\n"], 0, 3, inline=True) == 2


# The one editor (add_list_items, set_value) on what users write: every other byte kept.

OTHERS = (
    "flag: yes  # YAML 1.1 reads True\nmode: 0x10\nwhen: 2024-01-31\nname: 'quoted'\n# a line\n"
)


@pytest.mark.parametrize(
    ("key", "value", "grown"),
    [
        (TAGS, "tags: [yes, 0x10]  # mine", "tags: [yes, 0x10, new]  # mine"),
        (ALIASES, "aliases: [one, 'y']  # mine", "aliases: [one, 'y', \"new\"]  # mine"),
        (
            TAGS,
            "tags:\n  - yes\n  # between\n  - 0x10",
            "tags:\n  - yes\n  # between\n  - 0x10\n  - new",
        ),
        (ALIASES, "aliases:\n- 'a'\n- b", "aliases:\n- 'a'\n- b\n- \"new\""),
    ],
)
def test_a_list_grows_and_every_other_scalar_and_comment_stays(
    key: ListKey, value: str, grown: str
) -> None:
    text = f"---\n{OTHERS}{value}\nlast: on\n---\nBody\n"
    assert add_list_items(text, key, ["new"]) == f"---\n{OTHERS}{grown}\nlast: on\n---\nBody\n"


@pytest.mark.parametrize("key", [TAGS, ALIASES])
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Body\n", "---\n{k}:\n  - {v}\n---\nBody\n"),
        ("---\n---\nBody\n", "---\n{k}:\n  - {v}\n---\nBody\n"),
        (
            "---\r\nflag: yes\r\n---\r\nBody\r\n",
            "---\r\nflag: yes\r\n{k}:\r\n  - {v}\r\n---\r\nBody\r\n",
        ),
        ("\ufeff---\nflag: yes\n---\nBody", "\ufeff---\nflag: yes\n{k}:\n  - {v}\n---\nBody"),
        ("\ufeffBody\r\n", "\ufeff---\r\n{k}:\r\n  - {v}\r\n---\r\nBody\r\n"),
    ],
)
def test_missing_empty_crlf_and_bom(key: ListKey, before: str, after: str) -> None:
    """A byte order mark stays first: the alias editor used to take such a note for one without
    front matter and put a second front matter before the mark."""
    new = "new" if key is TAGS else '"new"'
    assert add_list_items(before, key, ["new"]) == after.format(k=key.names[0], v=new)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "---\nflag: yes\nlearned_at: 0x10  # old\nmode: 0x10\n---\n",
            "---\nflag: yes\nlearned_at: 2026-12-01\nmode: 0x10\n---\n",
        ),
        ("---\nlearned_at: [a, b]\n# kept\n---\n", "---\nlearned_at: 2026-12-01\n# kept\n---\n"),
        ("---\nlearned_at:\n- a\n- b\nz: 1\n---\n", "---\nlearned_at: 2026-12-01\nz: 1\n---\n"),
        ("\ufeff---\nz: 1\n---\nx", "\ufeff---\nz: 1\nlearned_at: 2026-12-01\n---\nx"),
        ("\ufeffx", "\ufeff---\nlearned_at: 2026-12-01\n---\nx"),
    ],
)
def test_a_key_is_set_in_its_own_lines_only(before: str, after: str) -> None:
    """A block list at column 0 goes with its key: the old ``learned_at`` editor left its items
    behind, as YAML that no longer read; a byte order mark stays first."""
    assert set_value(before, "learned_at", dt.date(2026, 12, 1)) == after


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\ntitle: [unclosed\n---\n", "is not valid YAML (line 3)"),
        ("---\ntitle: x\n", "is never closed"),
        ("---\n- a\n---\n", "is not 'key: value' lines"),
        ('---\n"learned_at": 1\n---\n', "could not be set"),
        ("---\n{a: 1,\n  b: 2}\n---\n", "could not be set"),
    ],
)
def test_what_cannot_be_set_safely_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(FrontMatterEditError, match=re.escape(problem)):
        set_value(text, "learned_at", dt.date(2026, 12, 1), name="N.md")


def test_read_front_matter_tells_none_from_empty() -> None:
    assert read_front_matter("Body") is None
    assert read_front_matter("---\n---\n") == {}
    assert read_front_matter("\ufeff---\r\nflag: yes\r\n---\r\n") == {"flag": True}


SRC = Path(vaultctx.__file__).resolve().parent
# The reader (vault/note.py) finds front matter; only the editor may cut a note at its fences.
FENCE_SPELLERS = {"vault/note.py", "vault/front_matter_edit.py"}


def test_no_other_module_finds_the_closing_fence_itself() -> None:
    """Each of the four hand-written editors this module replaced had its own closing-fence
    pattern; a fifth would too, so it fails here and goes through vault/front_matter_edit.py."""
    spellers = set()
    for file in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and value.startswith("^---[ \\t]*"):
                spellers.add(file.relative_to(SRC).as_posix())
    assert spellers == FENCE_SPELLERS
