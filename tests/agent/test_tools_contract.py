"""The contract every tool call goes through: nulls dropped, string arguments type-checked, paths
that leave the vault refused by every tool that takes one (with nothing outside touched), text
arguments bounded, and every exception turned into a failure the model can read."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from tests.agent.tool_support import call, snapshot, vault_copy
from vaultctx.agent.tool_contract import PATH_KEYS
from vaultctx.agent.tool_list import BASIC_TOOLS, TOOLS_BY_NAME
from vaultctx.api import Vault

GOOD = {
    "query": "sqlite",
    "path": "daily/2024-03-12.md",
    "content": "text",
    "find": "a",
    "replace": "b",
    "folder": "daily",
    "name": "T",
    "template_name": "T",
    "output_path": "out/New.md",
    "source_path": "daily/2024-03-13.md",
    "destination_path": "moved/Day.md",
    "modifiedAfter": "2024-01-01",
    "modifiedBefore": "2024-12-31",
}


def escaping_paths(outside: Path) -> list[str]:
    """Spellings of a place outside the vault (``outside`` is next to it), or of the files inside
    it that no tool may touch."""
    victim = outside / "victim.md"
    return [
        "../outside/victim.md",
        "../../etc/passwd",
        "..",
        "../",
        "..\\outside\\victim.md",
        "a/../../outside/victim.md",
        "daily/../../outside/victim.md",
        "daily/./../../outside/victim.md",
        "./../outside/victim.md",
        "~/../../outside/victim.md",
        str(victim),
        victim.as_posix().replace("/", "\\"),
        "/etc/passwd",
        "/",
        "\\",
        "\\\\server\\share\\victim.md",
        "//server/share/victim.md",
        "C:\\Windows\\victim.md",
        "c:/victim.md",
        "C:victim.md",
        "%2e%2e/outside/victim.md",
        "%2e%2e%2foutside%2fvictim.md",
        "%252e%252e%252foutside%252fvictim.md",
        "..%2foutside%2fvictim.md",
        "..%5coutside%5cvictim.md",
        "%2Fetc%2Fpasswd",
        ".../outside/victim.md",
        ".. /outside/victim.md",
        "daily/\x00/../../outside/victim.md",
        "daily/evil\x00.md",
        "link/victim.md",
        "link",
        "daily/linked.md",
        ".obsidian/app.json",
        ".git/config",
        ".trash/victim.md",
        ".vaultctx/victim.md",
    ]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Vault, Path]:
    vault = vault_copy(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.md").write_text("outside the vault\n", encoding="utf-8")
    (vault.path / "link").symlink_to(outside)
    (vault.path / "daily" / "linked.md").symlink_to(outside / "victim.md")
    (vault.path / ".git").mkdir()
    (vault.path / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (vault.path / "Templates").mkdir()
    (vault.path / "Templates" / "T.md").write_text("{{x}}", encoding="utf-8")
    return vault, outside


TEMPLATE_NAMES = ("name", "template_name")
PATH_TAKING = [
    (spec.name, key)
    for spec in BASIC_TOOLS
    for key in spec.parameters["properties"]
    if key in PATH_KEYS
]


def test_every_path_argument_is_covered() -> None:
    assert {name for name, _ in PATH_TAKING} == {
        "search_vault",
        "read_note",
        "create_note",
        "edit_note",
        "append_to_note",
        "list_files",
        "open_note",
        "save_template",
        "apply_template",
        "move_file",
        "delete_file",
    }
    assert len(escaping_paths(Path("/x"))) >= 30


@pytest.mark.parametrize(("tool", "key"), PATH_TAKING)
def test_paths_leaving_the_vault_are_refused_and_nothing_changes(
    setup: tuple[Vault, Path], tool: str, key: str
) -> None:
    vault, outside = setup
    outside_before, vault_before = snapshot(outside), snapshot(vault.path)
    opened: list[str] = []
    for spelling in escaping_paths(outside):
        if key in TEMPLATE_NAMES and spelling == "link":
            continue  # a template name is a file name in the template folder: Templates/link.md
        args = {k: GOOD[k] for k in TOOLS_BY_NAME[tool].parameters["properties"] if k in GOOD}
        args[key] = spelling
        result = call(
            vault,
            tool,
            args,
            template_folder="Templates",
            open_uri=lambda uri: bool(opened.append(uri)),
        )
        assert result.startswith("Tool execution error:"), (tool, key, spelling, result)
        assert snapshot(outside) == outside_before, (tool, key, spelling)
        assert snapshot(vault.path) == vault_before, (tool, key, spelling)
    assert opened == []
    assert vault.ledger() == []


def test_the_guard_answers_in_the_anchor_words(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    assert call(vault, "read_note", {"path": "../x.md"}) == (
        "Tool execution error: read_note: paths outside the vault are not allowed: ../x.md"
    )
    assert call(vault, "move_file", {"source_path": "a.md", "destination_path": "C:\\x"}) == (
        "Tool execution error: move_file: paths outside the vault are not allowed: C:\\x"
    )


STRING_ARGUMENTS = [
    (spec.name, key)
    for spec in BASIC_TOOLS
    for key, schema in spec.parameters["properties"].items()
    if schema.get("type") == "string"
]


@pytest.mark.parametrize(("tool", "key"), STRING_ARGUMENTS)
@pytest.mark.parametrize("wrong", [5, 2.5, True, ["daily"], {"a": 1}])
def test_a_non_string_argument_is_refused(
    setup: tuple[Vault, Path], tool: str, key: str, wrong: Any
) -> None:
    vault, _ = setup
    before = snapshot(vault.path)
    args = {k: GOOD[k] for k in TOOLS_BY_NAME[tool].parameters["properties"] if k in GOOD}
    args[key] = wrong
    result = call(vault, tool, args)
    assert result == (
        f"Tool execution error: Missing or non-string arguments: {key}. No changes were made."
    )
    assert snapshot(vault.path) == before


def test_missing_required_arguments_are_named_together(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    assert call(vault, "move_file", {"destination_path": 3}) == (
        "Tool execution error: Missing or non-string arguments: source_path, destination_path. "
        "No changes were made."
    )
    assert call(vault, "create_note", {"path": "x.md", "content": None}) == (
        "Tool execution error: Missing or non-string arguments: content. No changes were made."
    )


def test_null_arguments_are_dropped(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    (vault.path / "n.md").write_text("old text", encoding="utf-8")
    result = call(
        vault, "edit_note", {"path": "n.md", "content": None, "find": "old", "replace": "new"}
    )
    assert result == "Note partially updated: n.md (1 replaced)"
    assert call(vault, "list_files", {"folder": None}).startswith("📁 ")


def test_arguments_that_are_not_an_object(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    assert call(vault, "read_note", ["daily/2024-03-12.md"]) == (
        "Tool execution error: read_note: the arguments must be a JSON object of named values"
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("create_note", {"path": "big.md", "content": "x" * 10_000_000}),
        ("edit_note", {"path": "daily/2024-03-12.md", "content": "x" * 10_000_000}),
        ("edit_note", {"path": "daily/2024-03-12.md", "find": "a", "replace": "x" * 10_000_000}),
        ("append_to_note", {"path": "daily/2024-03-12.md", "content": "x" * 10_000_000}),
        ("save_template", {"name": "Big", "content": "x" * 10_000_000}),
        (
            "apply_template",
            {"template_name": "T", "output_path": "o.md", "variables": {"x": "y" * 10_000_000}},
        ),
        ("search_vault", {"query": "x" * 10_000_000}),
    ],
)
def test_a_ten_megabyte_argument_is_refused(
    setup: tuple[Vault, Path], tool: str, args: dict[str, Any]
) -> None:
    vault, _ = setup
    before = snapshot(vault.path)
    result = call(vault, tool, args)
    assert result.startswith(f"Tool execution error: {tool}: `")
    assert "over the vault's limit of 5,000,000 bytes" in result
    assert snapshot(vault.path) == before and vault.ledger() == []


def test_an_unexpected_exception_is_logged_and_reported_generically(
    setup: tuple[Vault, Path], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    vault, _ = setup

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Vault, "read_note", broken)
    with caplog.at_level(logging.ERROR, logger="vaultctx.agent.tool_contract"):
        result = call(vault, "read_note", {"path": "daily/2024-03-12.md"})
    assert result == (
        "Tool execution error: read_note: the tool failed unexpectedly (a bug in vaultctx, logged "
        "for the user). No further changes were made; try another way or tell the user."
    )
    assert "disk on fire" not in result
    assert "disk on fire" in caplog.text


def test_a_vaultctx_error_carries_its_fix(setup: tuple[Vault, Path]) -> None:
    vault, _ = setup
    result = call(vault, "create_note", {"path": "picture.png", "content": "x"})
    assert result.startswith("Tool execution error: create_note: path refused: ")
    assert "; " in result  # the suggestion follows the message


def test_symlinked_folders_inside_the_vault_are_not_written_through(
    setup: tuple[Vault, Path],
) -> None:
    vault, _ = setup
    os.symlink(vault.path / "daily", vault.path / "daily-link")
    before = snapshot(vault.path)
    result = call(vault, "create_note", {"path": "daily-link/new.md", "content": "x"})
    assert result.startswith("Tool execution error: create_note: path refused")
    assert snapshot(vault.path) == before
