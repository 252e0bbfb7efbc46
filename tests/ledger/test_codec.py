"""The record's spelling of names and states, byte for byte: a name is stored percent-encoded from
its file-system bytes in exactly one spelling, and read back only from that spelling. These are the
words every record file holds, so a change to them would strand the records already written."""

from __future__ import annotations

import os

import pytest

from vaultctx.ledger.codec import (
    decode_name,
    decode_path,
    encode_name,
    encode_path,
    state_from_json,
    state_to_json,
)
from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, LinkState

SHA = "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("Plan.md", "Plan.md"),
        ("my note-1_a~b.md", "my note-1_a~b.md"),  # letters, digits, "-._~ " stay readable
        ("AC\\DC.md", "AC%5CDC.md"),
        ("tab\tname.md", "tab%09name.md"),
        ("100%.md", "100%25.md"),
        ("café.md", "caf%C3%A9.md"),  # the UTF-8 bytes, upper-case hex
        ("a+b=c&d?.md", "a%2Bb%3Dc%26d%3F.md"),
        ("\udcff.md", "%FF.md"),  # a byte that is not UTF-8 (surrogate-escaped by the OS)
    ],
)
def test_a_name_is_stored_as_its_bytes_percent_encoded_and_read_back(
    name: str, stored: str
) -> None:
    assert encode_name(name) == stored
    assert decode_name(stored) == name
    assert os.fsencode(decode_name(stored)) == os.fsencode(name)


def test_a_path_is_its_names_encoded_and_joined_by_slashes() -> None:
    assert encode_path("notes/AC\\DC.md") == "notes/AC%5CDC.md"
    assert encode_path("a b/c d/e.md") == "a b/c d/e.md"
    assert decode_path("notes/AC%5CDC.md", 2) == "notes/AC\\DC.md"
    assert decode_path("a b/c%09d/e.md", 2) == "a b/c\td/e.md"
    assert decode_path("Inbox.md", 2) == "Inbox.md"


@pytest.mark.parametrize(
    ("stored", "why"),
    [
        ("", "is not a file or folder name"),
        (".", "is not a file or folder name"),
        ("..", "is not a file or folder name"),
        ("a%2Fb.md", "is not a file or folder name"),  # a slash inside one name
        ("a%00b.md", "is not a file or folder name"),  # NUL
        ("%61.md", "is not in its canonical spelling"),  # "a" escaped
        ("caf%c3%a9.md", "is not in its canonical spelling"),  # lower-case hex
        ("a%20b.md", "is not in its canonical spelling"),  # a space escaped
        ("AC\\DC.md", "is not in its canonical spelling"),  # the raw backslash
        ("café.md", "is not in its canonical spelling"),  # a character no encoder wrote
        ("\udcff.md", "is not percent-encoded"),  # not even encodable as UTF-8
    ],
)
def test_a_stored_name_in_any_other_spelling_is_refused_with_why(stored: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        decode_name(stored)
    if why == "is not a file or folder name":
        assert str(refused.value) == f"{stored!r} is not a file or folder name"
    else:
        assert str(refused.value) == f"the name {stored!r} {why}"


@pytest.mark.parametrize("stored", [None, 1, b"a.md", ["a.md"]])
def test_a_name_or_path_that_is_not_a_string_is_refused(stored: object) -> None:
    with pytest.raises(ValueError, match=r"^a name must be a string$"):
        decode_name(stored)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^a path must be a string$"):
        decode_path(stored, 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^a path must be a string$"):
        decode_path(stored, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "stored", ["a//b.md", "./a.md", "a/./b.md", "../a.md", "a/../b.md", "/a.md", "a/", "a/%61.md"]
)
def test_a_path_in_any_spelling_but_the_canonical_one_is_refused(stored: str) -> None:
    with pytest.raises(ValueError):
        decode_path(stored, 2)


def test_format_1_paths_are_read_as_written_with_the_same_structural_checks() -> None:
    assert decode_path("notes/AC\\DC.md", 1) == "notes/AC\\DC.md"
    assert decode_path("a%20b.md", 1) == "a%20b.md"  # no decoding in format 1
    for stored in ("a//b.md", "./a.md", "../a.md", "a/\x00.md", "/a.md"):
        with pytest.raises(ValueError) as refused:
            decode_path(stored, 1)
        assert str(refused.value).endswith("' is not a file or folder name")


def test_states_are_stored_and_read_back_whole() -> None:
    state = FolderState(
        (
            ("AC\\DC.md", FileState(SHA, 12, 0o600)),
            ("link", LinkState("../café\\x")),
            ("sub dir", FolderState((("b.md", FileState(SHA, 0, 0o644)),))),
        )
    )
    stored = state_to_json(state)
    assert stored == {
        "kind": "folder",
        "children": {
            "AC%5CDC.md": {"kind": "file", "sha256": SHA, "size": 12, "mode": 0o600},
            "link": {"kind": "link", "target": "..%2Fcaf%C3%A9%5Cx"},
            "sub dir": {
                "kind": "folder",
                "children": {"b.md": {"kind": "file", "sha256": SHA, "size": 0, "mode": 0o644}},
            },
        },
    }
    back = state_from_json(stored, 2)
    assert back == state
    assert isinstance(back, FolderState)
    assert [name for name, _ in back.children] == ["AC\\DC.md", "link", "sub dir"]
    first = back.children[0][1]
    assert isinstance(first, FileState) and first.mode == 0o600
    assert state_to_json(MISSING) == {"kind": "missing"}
    assert state_from_json({"kind": "missing"}, 2) is MISSING


def test_folder_children_are_read_back_sorted_by_name() -> None:
    stored = {
        "kind": "folder",
        "children": {
            "c.md": {"kind": "missing"},
            "a.md": {"kind": "file", "sha256": SHA, "size": 1},
            "b": {"kind": "folder", "children": {}},
        },
    }
    back = state_from_json(stored, 2)
    assert isinstance(back, FolderState)
    assert [name for name, _ in back.children] == ["a.md", "b", "c.md"]
    assert back.children[1][1] == FolderState(())


def test_a_file_state_without_a_mode_is_read_as_0644_and_only_permission_bits_kept() -> None:
    plain = state_from_json({"kind": "file", "sha256": SHA, "size": 3}, 2)
    assert isinstance(plain, FileState) and (plain.sha256, plain.size, plain.mode) == (
        SHA,
        3,
        0o644,
    )
    regular = state_from_json({"kind": "file", "sha256": SHA, "size": 3, "mode": 0o100755}, 2)
    assert isinstance(regular, FileState) and regular.mode == 0o755
    sticky = state_from_json({"kind": "file", "sha256": SHA, "size": 3, "mode": 0o7777}, 2)
    assert isinstance(sticky, FileState) and sticky.mode == 0o7777


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("file", "a state must be an object"),
        (None, "a state must be an object"),
        ({}, "unknown state kind None"),
        ({"kind": "socket"}, "unknown state kind 'socket'"),
        ({"kind": "file", "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": SHA[:-1], "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": SHA + "0", "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": SHA.upper(), "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": "g" * 64, "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": "X" * 64, "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": 7, "size": 1}, "a file state needs a SHA-256 digest"),
        ({"kind": "file", "sha256": SHA}, "a file state needs a size and a mode"),
        ({"kind": "file", "sha256": SHA, "size": -1}, "a file state needs a size and a mode"),
        ({"kind": "file", "sha256": SHA, "size": "1"}, "a file state needs a size and a mode"),
        (
            {"kind": "file", "sha256": SHA, "size": 1, "mode": "644"},
            "a file state needs a size and a mode",
        ),
        (
            {"kind": "file", "sha256": SHA, "size": 1, "mode": None},
            "a file state needs a size and a mode",
        ),
        ({"kind": "folder"}, "a folder state needs children"),
        ({"kind": "folder", "children": ["a.md"]}, "a folder state needs children"),
        (
            {"kind": "folder", "children": {"%61": {"kind": "missing"}}},
            "the name '%61' is not in its canonical spelling",
        ),
        ({"kind": "folder", "children": {"a": {"kind": "pipe"}}}, "unknown state kind 'pipe'"),
        ({"kind": "link"}, "a link state needs a target"),
        ({"kind": "link", "target": 3}, "a link state needs a target"),
    ],
)
def test_a_malformed_state_is_refused_with_why(raw: object, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        state_from_json(raw, 2)
    assert str(refused.value) == why


def test_a_zero_size_file_state_is_read() -> None:
    empty = state_from_json({"kind": "file", "sha256": SHA, "size": 0, "mode": 0}, 2)
    assert isinstance(empty, FileState) and (empty.size, empty.mode) == (0, 0)


def test_format_1_states_hold_names_and_link_targets_as_written() -> None:
    stored = {
        "kind": "folder",
        "children": {
            "a%20b.md": {"kind": "file", "sha256": SHA, "size": 1},
            "AC\\DC": {"kind": "link", "target": "%41"},
        },
    }
    back = state_from_json(stored, 1)
    assert back == FolderState((("AC\\DC", LinkState("%41")), ("a%20b.md", FileState(SHA, 1))))
    assert state_from_json({"kind": "link", "target": "%41"}, 2) == LinkState("A")
    for name in ("..", ".", "", "a/b"):
        with pytest.raises(ValueError) as refused:
            state_from_json({"kind": "folder", "children": {name: {"kind": "missing"}}}, 1)
        assert str(refused.value) == f"{name!r} is not a file or folder name"
