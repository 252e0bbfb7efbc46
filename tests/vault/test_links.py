from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import shared_data
from vaultctx.vault.links import (
    Link,
    LinkResolver,
    extract_links,
    fenced_code_spans,
    mask_code,
    resolve_link,
    vault_file_paths,
)
from vaultctx.vault.note import parse_note
from vaultctx.vault.scanner import read_vault_file, scan_vault


def only(text: str) -> Link:
    (link,) = extract_links(text)
    return link


# --- extraction ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "target", "heading", "block", "alias", "kind"),
    [
        ("[[Note]]", "Note", None, None, None, "wikilink"),
        ("[[Note|shown text]]", "Note", None, None, "shown text", "wikilink"),
        ("[[folder/Note]]", "folder/Note", None, None, None, "wikilink"),
        ("[[Note#Heading]]", "Note", "Heading", None, None, "wikilink"),
        ("[[Note#Heading|alias]]", "Note", "Heading", None, "alias", "wikilink"),
        ("[[Note#^block-1]]", "Note", None, "block-1", None, "wikilink"),
        ("[[#Local heading]]", "", "Local heading", None, None, "wikilink"),
        ("[[Note#H1#H2]]", "Note", "H1#H2", None, None, "wikilink"),
        ("| [[Note\\|alias]] |", "Note", None, None, "alias", "wikilink"),
        ("![[embed.png]]", "embed.png", None, None, None, "embed"),
        ("![[image.png|300]]", "image.png", None, None, "300", "embed"),
        ("![[Note#Section]]", "Note", "Section", None, None, "embed"),
        ("[text](path.md)", "path.md", None, None, "text", "markdown"),
        ("[t](path%20with%20spaces.md#My%20Heading)", "path with spaces.md", "My Heading", None,
         "t", "markdown"),
        ("[t](<path with spaces.md>)", "path with spaces.md", None, None, "t", "markdown"),
        ("[t](<dir/a b.md#Sec>)", "dir/a b.md", "Sec", None, "t", "markdown"),
        ("[t](../up/note.md#^blk)", "../up/note.md", None, "blk", "t", "markdown"),
        ('[t](note.md "a title")', "note.md", None, None, "t", "markdown"),
        ("[t](file(1).md)", "file(1).md", None, None, "t", "markdown"),
        ("[t](#same-note)", "", "same-note", None, "t", "markdown"),
        ("![alt](pics/a.png)", "pics/a.png", None, None, "alt", "embed"),
        ("[](empty.md)", "empty.md", None, None, None, "markdown"),
    ],
)  # fmt: skip
def test_link_forms(
    text: str, target: str, heading: str | None, block: str | None, alias: str | None, kind: str
) -> None:
    link = only(f"Before {text} after.")
    assert (link.target, link.heading, link.block, link.alias, link.kind) == (
        target,
        heading,
        block,
        alias,
        kind,
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/page.md",
        "http://x.org#frag",
        "mailto:me@example.com",
        "obsidian://open?vault=v&file=Note",
        "file:///home/me/notes.md",
        "//cdn.example.com/x.md",
    ],
)
def test_external_urls_are_not_links(url: str) -> None:
    assert extract_links(f"see [site]({url}) and <{url}>") == []


def test_links_inside_code_are_ignored() -> None:
    text = "\n".join(
        [
            "[[real one]]",
            "```markdown",
            "[[in fence]] and [x](fenced.md)",
            "```",
            "Inline `[[in code]]` and ``[[double `tick` code]]`` then [[real two]].",
            "~~~",
            "[[tilde fence]]",
            "~~~",
            "> [!example]",
            "> ```",
            "> [[in callout fence]]",
            "> ```",
            "- item",
            "    ```",
            "    [[in list fence]]",
            "    ```",
            "[[real three]]",
        ]
    )
    assert [link.target for link in extract_links(text)] == ["real one", "real two", "real three"]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert [link.target for link in extract_links("[[a]]\n```\n[[b]]\n[[c]]")] == ["a"]


def test_fence_closes_only_with_the_same_marker_at_least_as_long() -> None:
    text = "````\n```\n[[inside]]\n~~~~\n````\n[[outside]]"
    assert [link.target for link in extract_links(text)] == ["outside"]


def test_backtick_info_string_with_backtick_is_not_a_fence() -> None:
    # CommonMark: "``` a`b" cannot open a fence, so what follows is ordinary text.
    assert [link.target for link in extract_links("``` a`b\n[[visible]]")] == ["visible"]


def test_escaped_brackets_are_not_links() -> None:
    assert extract_links(r"\[[not a link]] and \[not](either.md)") == []


def test_wikilink_followed_by_parentheses_is_one_link() -> None:
    assert extract_links("[[Note]](extra.md)") == [Link("Note", None, None, None, "wikilink", 1)]


def test_line_numbers_and_first_line() -> None:
    text = "intro\n\n[[a]] text [b](b.md)\n```\n[[x]]\n```\n![[c.png]]"
    assert [(link.target, link.line) for link in extract_links(text)] == [
        ("a", 3),
        ("b.md", 3),
        ("c.png", 7),
    ]
    assert [link.line for link in extract_links(text, first_line=10)] == [12, 12, 16]


def test_links_are_in_reading_order_across_kinds() -> None:
    text = "[m1](m1.md) [[w1]] ![[e1]] [m2](m2.md)\n[[w2]]"
    assert [link.target for link in extract_links(text)] == ["m1.md", "w1", "e1", "m2.md", "w2"]


# --- masking --------------------------------------------------------------------------------------


def test_fenced_code_spans_cover_the_fence_lines() -> None:
    text = "a\n```py\ncode\n```\nb"
    (span,) = fenced_code_spans(text)
    assert text[span[0] : span[1]] == "```py\ncode\n```"


@given(st.text(alphabet=st.sampled_from(list("ab`~>#[]() \n")), max_size=200))
def test_mask_code_keeps_length_and_line_breaks(text: str) -> None:
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
    # Masking only ever blanks characters.
    assert all(m == c or m == " " for m, c in zip(masked, text, strict=True))


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("a `x` b", "a     b"),
        ("`a``b``c`", " " * 9),  # the leftmost run with a partner wins, across other runs
        ("``a`b``c`", "       c`"),
        ("`a ``b", "`a ``b"),  # no run of the same length: literal backticks
        ("`a\nb`", "`a\nb`"),  # a code span ends with its line here
    ],
)
def test_inline_code_pairs_a_run_with_the_next_run_of_its_length(text: str, masked: str) -> None:
    assert mask_code(text) == masked


def test_a_link_text_ends_at_an_unmatched_bracket() -> None:
    # CommonMark: "[a" is text and "[b](c.md)" the link; a link text never holds a lone "[".
    assert [(link.target, link.alias) for link in extract_links("[a[b](c.md)")] == [("c.md", "b")]


# --- resolution -----------------------------------------------------------------------------------

VAULT = [
    "Home.md",
    "projects/Alpha.md",
    "projects/alpha/Notes.md",
    "archive/2023/Notes.md",
    "Notes.md",
    "daily/2024-03-12.md",
    "daily/Notes.md",
    "assets/diagram.png",
    "data/table.csv",
    "v1.2 release notes.md",
    "a/Plan.md",
    "daily/sub/Plan.md",
]
ALIASES = {"Start here": "Home.md", "A": "projects/Alpha.md"}


@pytest.mark.parametrize(
    ("target", "from_path", "expected"),
    [
        ("Home", "x.md", "Home.md"),  # name without .md
        ("Home.md", "x.md", "Home.md"),
        ("projects/Alpha", "x.md", "projects/Alpha.md"),  # exact path
        ("projects/Alpha.md", "x.md", "projects/Alpha.md"),
        ("home", "x.md", "Home.md"),  # case-insensitive name
        ("ALPHA", "x.md", "projects/Alpha.md"),
        ("Notes", "x.md", "Notes.md"),  # several Notes.md: the shortest path wins
        ("Notes", "daily/2024-03-12.md", "Notes.md"),  # an exact path beats any name match
        ("Plan", "x.md", "a/Plan.md"),
        ("Plan", "daily/sub/x.md", "daily/sub/Plan.md"),  # the linking note's folder first
        ("2023/Notes", "x.md", "archive/2023/Notes.md"),  # folder-qualified name
        ("alpha/Notes", "x.md", "projects/alpha/Notes.md"),
        ("../Home.md", "projects/Alpha.md", "Home.md"),  # relative markdown link
        ("./alpha/Notes.md", "projects/Alpha.md", "projects/alpha/Notes.md"),
        ("alpha/Notes.md", "projects/Alpha.md", "projects/alpha/Notes.md"),  # relative, no ./
        ("/projects/Alpha.md", "daily/Notes.md", "projects/Alpha.md"),  # vault-absolute
        ("diagram.png", "x.md", "assets/diagram.png"),  # attachments by file name
        ("table.csv", "x.md", "data/table.csv"),
        ("v1.2 release notes", "x.md", "v1.2 release notes.md"),  # a dot is not an extension
        ("Start here", "x.md", "Home.md"),  # alias
        ("start HERE", "x.md", "Home.md"),  # alias, case-insensitive
        ("", "daily/Notes.md", "daily/Notes.md"),  # [[#Heading]] is the same note
        ("Missing", "x.md", None),
        ("other/Alpha", "x.md", None),  # folder does not match
        ("../../outside.md", "projects/Alpha.md", None),
    ],
)
def test_resolve_link(target: str, from_path: str, expected: str | None) -> None:
    assert resolve_link(target, from_path, VAULT, ALIASES) == expected


def test_a_note_name_beats_an_alias() -> None:
    assert resolve_link("A", "x.md", [*VAULT, "A.md"], ALIASES) == "A.md"


def test_obsidian_help_links_resolve() -> None:
    """The official help vault links its own notes; nearly all must resolve by Obsidian's rule."""
    root = shared_data("obsidian-help", "en")
    scan = scan_vault(root)
    notes = [parse_note(f.path, read_vault_file(f)) for f in scan.files]
    resolver = LinkResolver(
        [f.path for f in scan.files], {alias: n.path for n in notes for alias in n.aliases}
    )
    links = [(note, link) for note in notes for link in note.links if link.kind != "embed"]
    unresolved = [
        (note.path, link.target)
        for note, link in links
        if resolver.resolve(link.target, note.path) is None
    ]
    assert len(links) > 1000
    # The few that do not resolve are documentation examples such as [[Example]].
    assert len(unresolved) / len(links) < 0.01, unresolved[:20]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[[Alpha]]", "projects/Alpha.md"),
        ("[[alpha|the alpha project]]", "projects/Alpha.md"),
        ("[[projects/Alpha]]", "projects/Alpha.md"),
        ("[[Alpha#Goals]]", "projects/Alpha.md"),
        ("[[Alpha#^summary-1]]", "projects/Alpha.md"),
        ("![[Alpha#Goals]]", "projects/Alpha.md"),
        ("![[diagram.png|200]]", "assets/diagram.png"),
        ("[[Start here]]", "Home.md"),
        ("[the plan](../a/Plan.md)", "a/Plan.md"),
        ("[release](v1.2%20release%20notes.md#Changes)", "v1.2 release notes.md"),
        ("[release](<v1.2 release notes.md>)", "v1.2 release notes.md"),
        ("[[Notes]]", "Notes.md"),  # an exact vault path first
        ("[[Plan]]", "a/Plan.md"),  # ambiguous: the shortest path
        ("[[#Local]]", "daily/x.md"),
    ],
)
def test_each_obsidian_form_resolves(text: str, expected: str) -> None:
    """Extraction and resolution together, as the link graph runs them, from daily/x.md."""
    link = only(text)
    assert LinkResolver(VAULT, ALIASES).resolve(link.target, "daily/x.md") == expected


def test_an_alias_two_notes_claim_goes_to_the_shorter_path() -> None:
    notes = [("deep/er/Zeta.md", ["Z"]), ("top/Zed.md", ["z"]), ("Other.md", [])]
    for order in (notes, notes[::-1]):
        assert LinkResolver.from_notes(order).resolve("Z", "x.md") == "top/Zed.md"


def test_from_notes_resolves_names_and_aliases() -> None:
    resolver = LinkResolver.from_notes([("a/Note.md", ["First"]), ("b/c/Note.md", [])])
    assert resolver.resolve("note", "x.md") == "a/Note.md"
    assert resolver.resolve("c/Note", "x.md") == "b/c/Note.md"
    assert resolver.resolve("first", "x.md") == "a/Note.md"


def test_vault_file_paths_lists_attachments_and_skips_dot_folders(tmp_path: Path) -> None:
    for rel in ("Note.md", "assets/a b.png", ".obsidian/app.json", "x/.trash/old.md", ".hidden"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    assert sorted(vault_file_paths(tmp_path)) == ["Note.md", "assets/a b.png"]
