"""The tools that only read: search_vault, read_note, list_files, get_active_note, open_note and
list_templates, with the texts the model gets for success and for each failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.tool_support import call, vault_copy
from vaultctx.agent.note_opener import has_desktop, obsidian_uri
from vaultctx.api import Vault


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return vault_copy(tmp_path_factory.mktemp("read-tools"), indexed=True)


# -- search_vault


def test_search_returns_citations_and_short_excerpts(vault: Vault) -> None:
    result = call(vault, "search_vault", {"query": "WAL mode checkpoint", "limit": 3})
    assert result.startswith("Search results (")
    assert "[[30-resources/databases/SQLite tuning#" in result
    excerpts = [line for line in result.splitlines() if line.strip().startswith("Excerpt: ")]
    assert 1 <= len(excerpts) <= 3
    assert all(len(line.strip()) <= len("Excerpt: ") + 500 for line in excerpts)


def test_search_applies_the_folder_and_property_filters(vault: Vault) -> None:
    result = call(vault, "search_vault", {"query": "sqlite", "folder": "30-resources/databases"})
    assert "filter: folder=30-resources/databases" in result
    paths = [line for line in result.splitlines() if line[:1].isdigit()]
    assert paths and all("(30-resources/databases/" in line for line in paths)


def test_an_invalid_filter_is_reported_with_every_problem_never_dropped(vault: Vault) -> None:
    result = call(
        vault,
        "search_vault",
        {
            "query": "sqlite",
            "modifiedAfter": "2024-02-30",
            "properties": ["status => done", "rating >= 4"],
            "tags": 7,
        },
    )
    assert result.startswith("Tool execution error: The search filter is not valid:\n- ")
    problems = result.splitlines()[1:]
    assert len(problems) == 3  # the date, the operator, the tags; the good condition passes
    assert any("2024-02-30" in line for line in problems)
    assert any("=>" in line for line in problems)
    assert any(line.startswith("- tags must be a list") for line in problems)


def test_an_inverted_date_range_is_a_filter_problem(vault: Vault) -> None:
    result = call(
        vault,
        "search_vault",
        {"query": "sqlite", "modifiedAfter": "2024-05-01", "modifiedBefore": "2024-04-01"},
    )
    assert result.startswith("Tool execution error: The search filter is not valid:")


def test_no_hits_is_not_an_error_and_names_the_filter_that_excluded_notes(vault: Vault) -> None:
    result = call(vault, "search_vault", {"query": "sqlite", "tags": ["no-such-tag"]})
    assert result.startswith("No search results. Your vault may need indexing")
    assert "The filter (tag=no-such-tag) excluded" in result


def test_an_empty_query_and_a_bad_limit_are_failures(vault: Vault) -> None:
    assert call(vault, "search_vault", {"query": "  "}) == (
        "Tool execution error: The search query is empty. Give the words to look for."
    )
    for limit in ("ten", float("inf"), float("nan"), True):
        assert call(vault, "search_vault", {"query": "x", "limit": limit}).startswith(
            "Tool execution error: search_vault: limit must be a number"
        )
    assert call(vault, "search_vault", {"query": "sqlite", "limit": 1000}).count("Citation:") > 10


def test_search_without_an_index_fails_as_search_failed(tmp_path: Path) -> None:
    bare = vault_copy(tmp_path)
    assert call(bare, "search_vault", {"query": "sqlite"}).startswith(
        "Tool execution error: Search failed: "
    )


# -- read_note, get_active_note


def test_read_note_returns_path_and_content(vault: Vault) -> None:
    result = call(vault, "read_note", {"path": "30-resources/databases/SQLite tuning.md"})
    text = (vault.path / "30-resources/databases/SQLite tuning.md").read_text(encoding="utf-8")
    assert result == f"Path: 30-resources/databases/SQLite tuning.md\n\n{text}"


def test_read_note_of_a_missing_note_suggests_paths(vault: Vault) -> None:
    result = call(vault, "read_note", {"path": "30-resources/databases/SQLite tunin.md"})
    assert result.startswith(
        "Tool execution error: File not found: 30-resources/databases/SQLite tunin.md; "
    )
    assert "SQLite tuning.md" in result


def test_read_note_refuses_an_ignored_file(vault: Vault) -> None:
    result = call(vault, "read_note", {"path": ".obsidian/app.json"})
    assert result.startswith("Tool execution error: read_note: path refused:")


def test_get_active_note(vault: Vault) -> None:
    assert call(vault, "get_active_note") == "No note is currently open."
    result = call(vault, "get_active_note", active_note="daily/2024-03-12.md")
    assert result.startswith("Path: daily/2024-03-12.md\n\n")


# -- list_files


def test_list_files_shows_one_level_folders_first_without_hidden_entries(vault: Vault) -> None:
    top = call(vault, "list_files", {"folder": ""}).splitlines()
    assert "📁 10-projects" in top and "📁 daily" in top
    assert not any(".obsidian" in line or ".indexignore" in line for line in top)
    assert "📁 templates" not in top  # excluded by the vault's .indexignore
    assert top == sorted(top, key=lambda line: (not line.startswith("📁"), line[2:].casefold()))
    inner = call(vault, "list_files", {"folder": "30-resources/databases"})
    assert inner.splitlines() == ["📄 SQLite FTS5.md", "📄 SQLite tuning.md"]
    assert call(vault, "list_files").splitlines() == top  # no folder: the top level


def test_list_files_of_an_empty_or_missing_folder(tmp_path: Path) -> None:
    writable = vault_copy(tmp_path)
    (writable.path / "empty").mkdir()
    assert call(writable, "list_files", {"folder": "empty"}) == "The folder is empty."
    assert call(writable, "list_files", {"folder": "nope"}) == (
        "Tool execution error: Folder not found: nope"
    )
    refused = call(writable, "list_files", {"folder": ".obsidian"})
    assert refused.startswith("Tool execution error: list_files: path refused")


def test_list_files_leaves_out_links_that_lead_outside(tmp_path: Path) -> None:
    writable = vault_copy(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("s", encoding="utf-8")
    (writable.path / "daily" / "escape").symlink_to(outside)
    assert "escape" not in call(writable, "list_files", {"folder": "daily"})
    assert call(writable, "list_files", {"folder": "daily/escape"}) == (
        "Tool execution error: Folder not found: daily/escape"
    )


# -- open_note


def test_open_note_hands_the_obsidian_link_to_the_opener(vault: Vault) -> None:
    opened: list[str] = []

    def opener(uri: str) -> bool:
        opened.append(uri)
        return True

    result = call(
        vault, "open_note", {"path": "00-inbox/sqlite-vec 0.1.6 release.md"}, open_uri=opener
    )
    assert result == "Note opened: 00-inbox/sqlite-vec 0.1.6 release.md"
    assert opened == [
        f"obsidian://open?vault={vault.path.name}&file=00-inbox%2Fsqlite-vec%200.1.6%20release.md"
    ]


def test_open_note_without_a_desktop_returns_the_link(vault: Vault) -> None:
    result = call(vault, "open_note", {"path": "daily/2024-03-12.md"}, open_uri=lambda _: False)
    assert result.endswith(
        f"daily/2024-03-12.md: {obsidian_uri(vault.path.name, 'daily/2024-03-12.md')}"
    )
    assert call(vault, "open_note", {"path": "daily/nope.md"}).startswith(
        "Tool execution error: File not found: daily/nope.md"
    )


def test_obsidian_uri_encodes_every_reserved_character() -> None:
    assert obsidian_uri("My Vault & co", "a/b#c?d=1&e.md") == (
        "obsidian://open?vault=My%20Vault%20%26%20co&file=a%2Fb%23c%3Fd%3D1%26e.md"
    )


def test_a_desktop_session_is_needed_on_linux_only() -> None:
    assert not has_desktop("linux", {})
    assert has_desktop("linux", {"WAYLAND_DISPLAY": "wayland-0"})
    assert has_desktop("linux", {"DISPLAY": ":0"})
    assert has_desktop("darwin", {}) and has_desktop("win32", {})


def test_the_os_opener_is_not_run_without_a_desktop(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from vaultctx.agent import note_opener

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(note_opener.sys, "platform", "linux")
    ran: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: ran.append(a))
    assert note_opener.open_with_desktop("obsidian://open?vault=v&file=a.md") is False
    monkeypatch.setenv("DISPLAY", ":0")
    assert note_opener.open_with_desktop("obsidian://open?vault=v&file=a.md") is True
    assert ran == [(["xdg-open", "obsidian://open?vault=v&file=a.md"],)]


# -- list_templates


def test_list_templates_in_an_excluded_folder_says_why(vault: Vault) -> None:
    result = call(vault, "list_templates", template_folder="templates")
    assert result.startswith("Tool execution error: list_templates: the template folder templates/")


def test_list_templates(tmp_path: Path) -> None:
    writable = vault_copy(tmp_path)
    assert call(writable, "list_templates").startswith(
        "The template folder Templates/ does not exist yet"
    )
    (writable.path / "Templates").mkdir()
    assert call(writable, "list_templates") == "No templates saved yet."
    for name in ("meeting.md", "Daily.md", "notes.txt"):
        (writable.path / "Templates" / name).write_text("x", encoding="utf-8")
    assert call(writable, "list_templates") == "1. 📋 Daily\n2. 📋 meeting"


def _paths(result: str) -> set[str]:
    lines = [line for line in result.splitlines() if line[:1].isdigit()]
    return {line.rsplit("(", 1)[1].rstrip(")") for line in lines}


def test_several_tags_keep_a_note_with_any_of_them_as_the_seeds_tool_does(vault: Vault) -> None:
    args = {"query": "deploy performance", "tags": ["#Performance", "config"], "limit": 20}
    either = call(vault, "search_vault", args)
    assert "filter: tag=Performance or config" in either
    assert _paths(either) == {
        "30-resources/databases/SQLite tuning.md",
        "10-projects/billing-service/Deploy config.md",
    }
    both = call(vault, "search_vault", {**args, "tagMatch": "all"})
    assert both.startswith("No search results.")  # no note carries both
    nested = call(vault, "search_vault", {**args, "tags": ["python", "nothing"]})
    assert "20-areas/engineering/Python packaging.md" in _paths(nested)  # python/packaging


def test_an_unknown_tag_match_is_a_filter_problem(vault: Vault) -> None:
    result = call(vault, "search_vault", {"query": "x", "tags": ["a"], "tagMatch": "some"})
    assert result.startswith("Tool execution error: The search filter is not valid:")
    assert "tagMatch must be one of any, all" in result


def test_search_adds_passages_of_linked_notes_after_the_ranked_ones(vault: Vault) -> None:
    """Graph RAG as the seed's tool does it: the hybrid results first, unchanged, then notes
    the graph expansion reached from them, each saying where its link starts."""
    query = "project alpha goals"
    result = call(vault, "search_vault", {"query": query, "limit": 8})
    ranked, _, linked = result.partition("Linked notes (reached through the links")
    assert linked, result
    plain = vault.search(query, limit=8, max_tokens=8 * 600)
    assert _paths(ranked) == {r.file_path for r in plain.results}
    shown = {r.file_path for r in plain.results}
    starts = [line.split(": ", 1)[1] for line in linked.splitlines() if "Linked from: " in line]
    assert starts and set(starts) <= shown
    assert 1 <= linked.count("Citation: [[") <= 3
