"""Items inserted into a front matter list where PyYAML says it ends (front_matter_edit.py)."""

from __future__ import annotations

import pytest

from vaultctx.vault.front_matter_edit import list_insertion, value_end


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
