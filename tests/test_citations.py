"""Citation check (SPEC §11): finding citations in an answer and verifying them against a vault."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.citations import CitationReport, UnresolvedCitation, find_citations
from vaultctx.index.db import IndexMissingError

NOTES = {
    "Home.md": """---
aliases: [Start here, 시작]
---
# Home

Welcome to the vault. ^intro-1

## Getting started

### Install steps

Run the installer.

## Q&A: setup

A table row
^table-note

```markdown
## Not a heading
a fenced line ^fenced-id
```
""",
    "projects/Alpha.md": "# Alpha\n\n## Plan\n\n### Risks\n\nSome.\n\n## Status\n\nGreen.\n",
    "projects/Plan.md": "# Project plan\n\n## Milestones\n",
    "archive/Plan.md": "# Old plan\n",
    "Notes.md": "# Notes\n\n## Inbox\n",
    "daily/Notes.md": "# Daily notes\n",
    "projects/Billing service.md": "# Billing service\n\n## Rollback plan\n\nRevert the deploy.\n",
    "한국어/설치 안내.md": "# 설치 안내\n\n## 설치 방법\n\n설치는 쉽다.\n",
    "data/table.csv": "name,value\na,1\n",
    "de/Über uns.md": "# Über uns\n\n## Öffnungszeiten\n",
    "Ops handbook.md": "---\naliases: [Runbook]\n---\n# Ops handbook\n",
    "Ops handbook v1.md": "---\naliases: [runbook]\n---\n# Ops handbook v1\n",
    "old/Runbook 2019.md": "---\naliases: [Old runbook, Runbook]\n---\n# Runbook 2019\n",
}

ALPHA_HAS_NO_BLOCKS = "projects/Alpha.md has no block ids (^id); cite a heading or the note itself"


@dataclass(frozen=True)
class IndexedVault:
    vault: Path
    db: Path

    def handle(self) -> Vault:
        return Vault(self.vault, db=self.db)


def make_indexed_vault(root: Path) -> IndexedVault:
    """The notes above in a real vault, indexed by the real indexer (pass 1 only: fast)."""
    vault = root / "vault"
    for path, text in NOTES.items():
        target = vault / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    db = root / "index.db"
    handle = Vault(vault, db=db)
    handle.index(fast=True)
    handle.close()
    return IndexedVault(vault, db)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> IndexedVault:
    return make_indexed_vault(tmp_path_factory.mktemp("citations"))


def verify(indexed: IndexedVault, text: str, source: str | None = None) -> CitationReport:
    return indexed.handle().verify_citations(text, source=source)


def only_problem(indexed: IndexedVault, text: str) -> UnresolvedCitation:
    report = verify(indexed, text)
    assert report.checked == 1 and len(report.unresolved) == 1, report
    return report.unresolved[0]


# --- finding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "form", "target", "heading", "block"),
    [
        ("[[Note]]", "wikilink", "Note", None, None),
        ("[[Note|shown text]]", "wikilink", "Note", None, None),
        ("[[folder/Note#Heading]]", "wikilink", "folder/Note", "Heading", None),
        ("[[Note#Heading|alias]]", "wikilink", "Note", "Heading", None),
        ("[[Note#A#B]]", "wikilink", "Note", "A#B", None),
        ("[[Note#^block-1]]", "wikilink", "Note", None, "block-1"),
        ("![[Note#Heading]]", "embed", "Note", "Heading", None),
        ("[[#Heading]]", "wikilink", "", "Heading", None),
        ("[x](path/Note.md#Heading)", "markdown", "path/Note.md", "Heading", None),
        ("[x](My%20Note.md#Two%20words)", "markdown", "My Note.md", "Two words", None),
        ("[x](<My Note.md#Two words>)", "markdown", "My Note.md", "Two words", None),
        ("[x](Note)", "markdown", "Note", None, None),
        ("see path/Note.md#Heading", "bare", "path/Note.md", "Heading", None),
        ("see path/Note.md#^abc", "bare", "path/Note.md", None, "abc"),
        ("see My%20Note.md#Two%20words", "bare", "My Note.md", "Two words", None),
        ("(path/Note.md#Heading)", "bare", "path/Note.md", "Heading", None),
        ("**path/Note.md#Heading**", "bare", "path/Note.md", "Heading", None),
        (
            "source: folder/My Note.md#Two words. Then more.",
            "bare",
            "folder/My Note.md",
            "Two words",
            None,
        ),
    ],
)
def test_every_citation_form_is_found(
    text: str, form: str, target: str, heading: str | None, block: str | None
) -> None:
    [citation] = find_citations(text)
    assert (citation.form, citation.target, citation.heading, citation.block) == (
        form,
        target,
        heading,
        block,
    )


@pytest.mark.parametrize(
    "text",
    [
        "`[[Note#Heading]]` in a code span",
        "``a `[[Note]]` b`` in a double-backtick span",
        "```\n[[Note]]\npath/Note.md#Heading\n```\n",
        "~~~python\n[x](Note.md#H)\n~~~\n",
        "> ```\n> [[Note]]\n> ```\n",  # a fence inside a callout
        "https://github.com/o/r/blob/main/docs/Note.md#install",
        "<https://example.org/Note.md#Heading>",
        "[docs](https://example.org/Note.md#Heading)",
        "[mail](mailto:someone@example.org)",
        "obsidian://open?vault=v&file=Note.md#Heading",
        "![[diagram.png]] and [[scan.pdf#page=2]] and ![chart](img/chart.svg)",
        "\\[[not a link]]",
        "[back to top](#top)",
        "README.md and docs/setup.md without an anchor are prose",
    ],
)
def test_code_urls_attachments_and_prose_are_not_citations(text: str) -> None:
    assert find_citations(text) == []


def test_line_and_column_point_at_the_citation() -> None:
    text = (
        "첫 줄입니다\n설명: [[Alpha#Plan]] 그리고\n  see projects/Alpha.md#Status.\n[x](Alpha.md)"
    )
    found = [(c.text, c.line, c.column) for c in find_citations(text)]
    assert found == [
        ("[[Alpha#Plan]]", 2, 5),
        ("projects/Alpha.md#Status", 3, 7),
        ("[x](Alpha.md)", 4, 1),
    ]
    for text_, line, column in found:
        assert text.splitlines()[line - 1][column - 1 :].startswith(text_)


def test_citations_come_in_reading_order() -> None:
    text = "b.md#^x then [y](c.md) then [[a]]"
    assert [c.target for c in find_citations(text)] == ["b.md", "c.md", "a"]


# --- verifying ----------------------------------------------------------------------------------


def test_citations_that_exist_resolve(indexed: IndexedVault) -> None:
    text = """
    [[Alpha]] [[projects/Alpha]] [[projects/Alpha.md]] [[ALPHA#plan]] [[alpha#Plan#Risks]]
    [[Start here#Getting started]] [[start HERE]] [[시작]] [[Home#Getting started#Install steps]]
    [[Home#Q&A: setup]] [[Home#Q&A setup]] [[home#q&a: SETUP]] [[Home#^intro-1]]
    [[Home#^table-note]] [[Notes]] [[Notes#Inbox]] [[projects/Plan]]
    [[Billing service#Rollback plan|how to roll back]] [[설치 안내#설치 방법]]
    ![[Alpha#Status]] [[table.csv]]
    [how](projects/Billing%20service.md#Rollback%20plan) [a](projects/Alpha.md#Status)
    Sources: projects/Billing service.md#Rollback plan, Billing service.md#Rollback plan.
    Also (Home.md#^intro-1) and 한국어/설치 안내.md#설치 방법 and Home.md#Q&A: setup here.
    """
    report = verify(indexed, text)
    assert report.unresolved == []
    assert report.ok and report.checked == 28


def test_case_folding_covers_letters_beyond_ascii(indexed: IndexedVault) -> None:
    assert verify(indexed, "[[ÜBER UNS#ÖFFNUNGSZEITEN]] [[über uns]]").ok


def test_missing_heading_names_the_note_and_the_closest_heading(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "Per [[Alpha#Statuss]], all good.")
    assert problem.reason == "no_such_heading"
    assert problem.note == "projects/Alpha.md"
    assert problem.suggestion is not None and "`Status`" in problem.suggestion
    assert (problem.citation, problem.line, problem.column) == ("[[Alpha#Statuss]]", 1, 5)


def test_missing_heading_without_a_close_one_lists_the_headings(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "[[Alpha#Budget]]")
    assert problem.reason == "no_such_heading"
    assert problem.suggestion == "its headings: `Alpha`, `Plan`, `Risks`, `Status`"


def test_a_heading_inside_a_code_fence_is_not_a_heading(indexed: IndexedVault) -> None:
    assert only_problem(indexed, "[[Home#Not a heading]]").reason == "no_such_heading"


def test_nested_heading_must_sit_inside_its_parent(indexed: IndexedVault) -> None:
    assert verify(indexed, "[[Home#Getting started#Install steps]]").ok
    for outside in ("[[Home#Q&A: setup#Install steps]]", "[[Home#Getting started#Q&A: setup]]"):
        assert only_problem(indexed, outside).reason == "no_such_heading"


def test_heading_of_a_note_without_headings(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "[[table.csv#value]]")
    assert problem.reason == "no_such_heading"
    assert problem.suggestion == "data/table.csv has no headings; cite the note without a #heading"


def test_missing_note_suggests_the_closest(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "[[Alpah#Plan]]")
    assert (problem.reason, problem.note) == ("no_such_note", None)
    assert problem.suggestion == "did you mean `projects/Alpha.md`?"
    by_path = only_problem(indexed, "[x](projects/Alfa.md)")
    assert by_path.suggestion == "did you mean `projects/Alpha.md`?"


def test_a_folder_that_does_not_match_is_not_a_suffix_match(indexed: IndexedVault) -> None:
    assert only_problem(indexed, "[[archive/Alpha]]").reason == "no_such_note"


def test_same_name_at_the_same_depth_is_ambiguous(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "[[Plan#Milestones]]")
    assert problem.reason == "ambiguous"
    assert problem.suggestion == "cite one by its path: `archive/Plan`, `projects/Plan`"
    assert verify(indexed, "[[projects/Plan#Milestones]]").ok


def test_an_alias_two_notes_share_is_ambiguous(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "[[RUNBOOK]]")
    assert problem.reason == "ambiguous"
    assert problem.suggestion == "cite one by its path: `Ops handbook v1`, `Ops handbook`"
    assert verify(indexed, "[[old runbook#Runbook 2019]]").ok


def test_a_linking_note_in_the_same_folder_settles_a_tie(indexed: IndexedVault) -> None:
    assert verify(indexed, "[[Plan#Milestones]]", source="projects/Alpha.md").ok


def test_unique_shortest_path_wins(indexed: IndexedVault) -> None:
    # Notes.md and daily/Notes.md: the shorter path is meant, so it is not ambiguous.
    assert verify(indexed, "[[Notes#Inbox]]").ok
    assert only_problem(indexed, "[[Notes#Daily notes]]").reason == "no_such_heading"


def test_block_ids_come_from_the_file_text(indexed: IndexedVault) -> None:
    assert verify(indexed, "[[Home#^intro-1]] [[Home#^INTRO-1]] Home.md#^table-note").ok
    fenced = only_problem(indexed, "[[Home#^fenced-id]]")  # a ^id inside code is not a block id
    assert fenced.reason == "no_such_block"
    assert fenced.suggestion is not None and "`^intro-1`" in fenced.suggestion
    none = only_problem(indexed, "[[Alpha#^x1]]")
    assert (
        none.suggestion
        == "projects/Alpha.md has no block ids (^id); cite a heading or the note itself"
    )


def test_same_note_links_need_a_source(indexed: IndexedVault) -> None:
    assert only_problem(indexed, "[[#Plan]]").reason == "no_such_note"
    relative = "[[#Status]] [up](../Home.md#Getting%20started) [[./Plan#Milestones]]"
    assert verify(indexed, relative, source="projects/Alpha.md").ok
    assert verify(indexed, "[[#Plan]] [[#^x]] [[Plan#Milestones]]", source="projects/Alpha.md") == (
        CitationReport(
            checked=3,
            unresolved=[
                UnresolvedCitation(
                    citation="[[#^x]]",
                    line=1,
                    column=11,
                    reason="no_such_block",
                    message="projects/Alpha.md has no block ^x",
                    suggestion=ALPHA_HAS_NO_BLOCKS,
                    note="projects/Alpha.md",
                )
            ],
        )
    )


def test_bare_citation_extent_is_settled_by_the_vault(indexed: IndexedVault) -> None:
    text = (
        "Roll back as in Billing service.md#Rollback plan and then check\n"
        "Home.md#Getting started#Install steps first. "
        "Unknown: see Billing service.md#Rollbak plan now."
    )
    report = verify(indexed, text)
    assert report.checked == 3
    [problem] = report.unresolved
    assert problem.citation == "Billing service.md#Rollbak plan"
    assert (problem.line, problem.column) == (2, 59)
    assert problem.reason == "no_such_heading"
    assert problem.suggestion == "did you mean the heading `Rollback plan`?"


def test_unresolved_bare_note_reports_its_path(indexed: IndexedVault) -> None:
    problem = only_problem(indexed, "Details in projects/Ghost note.md#Intro.")
    assert problem.reason == "no_such_note"
    assert (problem.citation, problem.column) == ("projects/Ghost note.md#Intro", 12)


def test_edits_since_the_last_index_run_count(tmp_path: Path) -> None:
    fresh = make_indexed_vault(tmp_path)
    alpha = fresh.vault / "projects" / "Alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8") + "\n## Budget\n\nTight. ^cost\n", "utf-8")
    (fresh.vault / "projects" / "Beta.md").write_text("# Beta\n\n## Scope\n", encoding="utf-8")
    (fresh.vault / "Notes.md").unlink()
    report = verify(fresh, "[[Alpha#Budget]] [[Alpha#^cost]] [[projects/Beta#Scope]] [[Notes]]")
    assert report.checked == 4
    [gone] = report.unresolved
    assert (gone.citation, gone.reason) == ("[[Notes]]", "no_such_note")
    assert gone.message == "Notes.md is in the index but no longer in the vault"
    assert gone.suggestion == "run `vaultctx index` to bring the index up to date"


def test_report_json_shape(indexed: IndexedVault) -> None:
    report = verify(indexed, "[[Alpha#Plan]] [[Nope]]")
    data = report.as_dict()
    assert set(data) == {"checked", "unresolved", "ok"}
    assert (data["checked"], data["ok"]) == (2, False)
    [item] = data["unresolved"]
    assert set(item) == {"citation", "line", "column", "reason", "message", "suggestion", "note"}
    assert (item["citation"], item["reason"], item["column"]) == ("[[Nope]]", "no_such_note", 16)


def test_no_citations_is_ok(indexed: IndexedVault) -> None:
    report = verify(indexed, "Plain answer without sources.")
    assert report.ok and report.checked == 0 and report.as_dict()["unresolved"] == []


def test_without_an_index_the_error_names_the_indexer(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    handle = Vault(tmp_path / "vault", db=tmp_path / "none.db")
    with pytest.raises(IndexMissingError) as raised:
        handle.verify_citations("[[Alpha]]")
    assert raised.value.suggestion == f"run `{handle.index_command()}`", "this vault's command"
