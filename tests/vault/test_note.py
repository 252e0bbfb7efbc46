from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.conftest import EXAMPLE_VAULT, shared_data
from vaultctx.vault.note import front_matter_json, html_to_text, parse_note, split_front_matter
from vaultctx.vault.scanner import read_vault_file, scan_vault

NOTE = """\
---
title: SQLite tuning
type: note
status: active
tags: [db/sqlite, performance]
aliases: [SQLite pragmas]
created: 2024-02-27
project:
  name: vaultctx
  since: 2024-01-05 09:30:00
up: "[[Engineering MOC]]"
---
# A heading that is not the title

Body with #inline-tag and a link to [[SQLite FTS5#Ranking|ranking]].
"""


# --- front matter -------------------------------------------------------------------------------


def test_front_matter_fields() -> None:
    note = parse_note("30-resources/SQLite tuning.md", NOTE)
    assert note.title == "SQLite tuning"
    assert note.type == "note"
    assert note.status == "active"
    assert note.aliases == ["SQLite pragmas"]
    assert note.tags == ["db/sqlite", "performance", "inline-tag"]
    assert note.front_matter["created"] == dt.date(2024, 2, 27)
    assert note.front_matter["project"]["name"] == "vaultctx"  # user keys are kept
    assert note.problems == []
    assert note.excluded_reason is None


def test_body_starts_after_the_front_matter() -> None:
    note = parse_note("n.md", NOTE)
    assert note.body == NOTE[note.body_offset :]
    assert note.body.startswith("# A heading")


def test_links_carry_file_line_numbers_including_front_matter_links() -> None:
    note = parse_note("n.md", NOTE)
    assert [(link.target, link.line) for link in note.links] == [
        ("Engineering MOC", 11),
        ("SQLite FTS5", 15),
    ]
    assert NOTE.split("\n")[14].count("[[SQLite FTS5") == 1


def test_front_matter_json_serialises_dates_as_iso_strings() -> None:
    note = parse_note("n.md", NOTE)
    data = json.loads(front_matter_json(note))
    assert data["created"] == "2024-02-27"
    assert data["project"]["since"] == "2024-01-05T09:30:00"
    assert data["tags"] == ["db/sqlite", "performance"]


def test_front_matter_json_handles_keys_and_values_json_lacks() -> None:
    text = "\n".join(
        ["---", "2024-01-01: new year", "1: one", "ratio: .nan", "blob: !!binary aGk=",
         "set: !!set {b, a}", "---", ""]
    )  # fmt: skip
    data = json.loads(front_matter_json(parse_note("n.md", text)))
    assert data == {"2024-01-01": "new year", "1": "one", "ratio": "nan", "blob": "aGk=",
                    "set": ["a", "b"]}  # fmt: skip


def test_broken_yaml_is_reported_with_its_file_line_and_indexed_as_text() -> None:
    text = "---\ntitle: ok\ntags: [a, b\nstatus: draft\n---\n# Real title\nbody #tag\n"
    note = parse_note("broken.md", text)
    assert note.front_matter == {}
    assert note.body == text
    assert note.body_offset == 0
    assert note.title == "Real title"
    assert note.tags == ["tag"]
    (problem,) = note.problems
    assert "not valid YAML" in problem
    # libyaml reports the flow sequence that never closes when it reaches line 4 or 5.
    line = int(problem.split("line ")[1].split(":")[0])
    assert 3 <= line <= 5


def test_yaml_error_line_points_into_the_file() -> None:
    text = "---\na: 1\nb: 2\nc: d: e\n---\nbody\n"
    (problem,) = parse_note("n.md", text).problems
    assert "line 4:" in problem  # the bad line is the 4th line of the file


@pytest.mark.parametrize(("yaml_text", "kind"), [("- a\n- b", "list"), ("just text", "str")])
def test_front_matter_that_is_not_a_mapping_is_a_problem(yaml_text: str, kind: str) -> None:
    text = f"---\n{yaml_text}\n---\nbody\n"
    note = parse_note("n.md", text)
    assert note.front_matter == {}
    assert note.body == text
    (problem,) = note.problems
    assert f"YAML {kind}" in problem


def test_unclosed_front_matter_is_a_problem() -> None:
    text = "---\ntitle: x\n\n# Heading\n"
    note = parse_note("n.md", text)
    assert note.front_matter == {}
    assert note.body == text
    assert "never closed" in note.problems[0]


@pytest.mark.parametrize("text", ["---\n---\nbody", "---\n# only a comment\n---\nbody"])
def test_empty_front_matter(text: str) -> None:
    note = parse_note("n.md", text)
    assert (note.front_matter, note.problems, note.body) == ({}, [], "body")


def test_no_front_matter_when_the_first_line_is_not_a_fence() -> None:
    text = "\n---\ntitle: x\n---\n"
    note = parse_note("n.md", text)
    assert (note.front_matter, note.body_offset, note.problems) == ({}, 0, [])


def test_front_matter_at_the_end_of_the_file() -> None:
    note = parse_note("n.md", "---\ntitle: T\n---")
    assert (note.title, note.body) == ("T", "")


# --- title --------------------------------------------------------------------------------------


def test_title_falls_back_to_the_first_h1_then_the_file_stem() -> None:
    assert parse_note("a/b.md", "intro\n## H2\n# First H1\n# Second H1").title == "First H1"
    assert parse_note("a/My note.md", "no heading here").title == "My note"
    assert parse_note("a/b.md", "# Closed heading ##\n").title == "Closed heading"


def test_h1_inside_a_code_fence_is_not_the_title() -> None:
    text = "```bash\n# install it\npip install x\n```\n# Real\n"
    assert parse_note("n.md", text).title == "Real"


def test_inline_code_in_the_title_is_kept() -> None:
    assert parse_note("n.md", "# Using `busy_timeout`\n").title == "Using `busy_timeout`"


def test_a_tag_on_the_first_line_is_not_a_heading() -> None:
    assert parse_note("notes/x.md", "#project\ntext").title == "x"


def test_non_text_title_in_front_matter_is_ignored() -> None:
    assert parse_note("n.md", "---\ntitle: [a, b]\n---\n# H\n").title == "H"
    assert parse_note("n.md", "---\ntitle: 2024\n---\n").title == "2024"


# --- tags ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("tags: [a, '#b', c/d]", ["a", "b", "c/d"]),
        ("tags:\n  - a\n  - b", ["a", "b"]),
        ("tags: a, b c", ["a", "b", "c"]),
        ("tags: '#a #b'", ["a", "b"]),
        ("tag: single", ["single"]),
        ("tags: [2024, y2024]", ["y2024"]),
        ("tags: [a, A, a]", ["a"]),
        ("tags:", []),
        ("tags: {nested: mapping}", []),
    ],
)
def test_front_matter_tags(front_matter: str, expected: list[str]) -> None:
    assert parse_note("n.md", f"---\n{front_matter}\n---\n").tags == expected


def test_inline_tags() -> None:
    text = "#start of line, then #nested/tag/deep and #태그 and #🚀launch, #CamelCase.\n\t#tabbed"
    assert parse_note("n.md", text).tags == [
        "start",
        "nested/tag/deep",
        "태그",
        "🚀launch",
        "CamelCase",
        "tabbed",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "# Heading is not a tag",
        "## Neither is this",
        "#1984 has only digits",
        "```\n#in-fence\n```",
        "Inline `#in-code` span",
        "A URL http://example.com/#fragment",
        "An anchor [x](#anchor) and [y](note.md#heading)",
        "Wiki [[Note#Heading]] and [[#Local]]",
        "No space before: word#tag",
        "An entity &#123;",
    ],
)
def test_not_tags(text: str) -> None:
    assert parse_note("n.md", text).tags == []


def test_tags_are_deduplicated_case_insensitively_keeping_the_first_spelling() -> None:
    text = "---\ntags: [Project]\n---\n#project #PROJECT #Other #other/child #OTHER"
    assert parse_note("n.md", text).tags == ["Project", "Other", "other/child"]


# --- aliases and exclusions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("aliases: [One, Two words]", ["One", "Two words"]),
        ("aliases: Smith, John", ["Smith, John"]),  # a string is one alias
        ("alias: Short", ["Short"]),
        ("aliases: [A, a]", ["A"]),
        ("aliases:", []),
    ],
)
def test_aliases(front_matter: str, expected: list[str]) -> None:
    assert parse_note("n.md", f"---\n{front_matter}\n---\n").aliases == expected


@pytest.mark.parametrize(
    ("key", "reason"),
    [("excalidraw-plugin: parsed", "excalidraw drawing"), ("kanban-plugin: basic", "kanban board")],
)
def test_plugin_files_are_marked_for_exclusion(key: str, reason: str) -> None:
    assert parse_note("n.md", f"---\n{key}\n---\n## Todo\n").excluded_reason == reason


# --- other file types ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["notes.txt", "table.csv", "config.json"])
def test_plain_files_are_not_parsed_as_markdown(name: str) -> None:
    text = "---\ntitle: no\n---\n# Not a title #not-a-tag [[not a link]]\n"
    note = parse_note(f"data/{name}", text)
    assert (note.title, note.body, note.front_matter) == (name, text, {})
    assert (note.tags, note.links, note.problems) == ([], [], [])


def test_html_visible_text() -> None:
    html = """<html><head><title>Clip &amp; save</title><style>p {color: red}</style>
    <script>var secret = "not visible";</script></head>
    <body><h1>Heading</h1><p>First   paragraph with <b>bold</b> &lt;text&gt;.</p>
    <ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>"""
    note = parse_note("clip/page.html", html)
    assert note.title == "Clip & save"
    assert note.body == "Heading\nFirst paragraph with bold <text>.\none\ntwo"


def test_html_without_title_uses_the_file_name() -> None:
    assert parse_note("clip/page.htm", "<p>text</p>").title == "page.htm"


def test_html_with_unclosed_head_keeps_the_body() -> None:
    assert html_to_text("<head><title>T</title><p>visible</p>") == ("T", "visible")


# --- real notes ---------------------------------------------------------------------------------


def test_example_vault_parses_cleanly() -> None:
    scan = scan_vault(EXAMPLE_VAULT)
    notes = {f.path: parse_note(f.path, read_vault_file(f)) for f in scan.files}
    assert [path for path, note in notes.items() if note.problems] == []
    moc = notes["30-resources/MOC - Engineering.md"]
    assert moc.type == "moc"
    assert len(moc.links) >= 10
    assert notes["10-projects/vaultctx/Roadmap board.md"].excluded_reason == "kanban board"
    assert any("/" in tag for note in notes.values() for tag in note.tags)
    assert any(len(note.body) > 4000 for note in notes.values())


def test_obsidian_help_notes_parse_without_problems() -> None:
    root = shared_data("obsidian-help", "ko")
    scan = scan_vault(root)
    notes = [parse_note(f.path, read_vault_file(f)) for f in scan.files]
    assert len(notes) > 170
    assert [n.path for n in notes if n.problems] == []
    assert all(n.title for n in notes)


def test_obsidian_help_aliases_in_both_shapes() -> None:
    root = shared_data("obsidian-help", "en")
    by_path = {f.path: f for f in scan_vault(root).files}

    def aliases(path: str) -> list[str]:
        return parse_note(path, read_vault_file(by_path[path])).aliases

    assert aliases("Editing and formatting/Folding.md") == ["Fold"]
    assert aliases("Linking notes and files/Embed files.md")[:2] == [
        "How to/Embed files",
        "Linking notes and files/Embedding files",
    ]


def test_front_matter_of_a_note_saved_with_crlf_line_ends() -> None:
    text = "---\r\ntitle: Plan\r\ntags: [a, b]\r\n---\r\n# Body\r\n"
    meta, offset, problems = split_front_matter(text)
    assert meta == {"title": "Plan", "tags": ["a", "b"]} and problems == []
    assert text[offset:] == "# Body\r\n"
