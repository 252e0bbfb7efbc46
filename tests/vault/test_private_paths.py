"""The one rule for what tools never touch: control files, and paths the ignore rules exclude
(as a file, a folder, or under a folder), judged before and after a folder move."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.vault.private_paths import (
    BECOMES_IGNORED_REASON,
    CONTROL_REASON,
    HOLDS_CONTROL_REASON,
    HOLDS_IGNORED_REASON,
    IGNORED_REASON,
    UNREADABLE_REASON,
    is_control_path,
    private_reason,
    tree_reason,
)
from vaultctx.vault.scanner import DEFAULT_IGNORES, IgnoreRules

RULES = IgnoreRules([*DEFAULT_IGNORES, "private/", "*.secret.md", "archive/**/*.md", "build"])


@pytest.mark.parametrize(
    "path",
    [
        ".indexignore",
        "vaultctx.toml",
        "VaultCtx.TOML",
        "a/vaultctx.toml",
        ".obsidian/app.json",
        "notes/.draft.md",
        ".git",
        ".vaultctx-index.db",
        ".trash/x.md",
    ],
)
def test_control_paths(path: str) -> None:
    assert is_control_path(path)
    assert private_reason(path, RULES) == CONTROL_REASON


@pytest.mark.parametrize("path", ["notes/Plan.md", "vaultctx.toml.md", "a.b/c.md", "toml"])
def test_ordinary_paths(path: str) -> None:
    assert not is_control_path(path)
    assert private_reason(path, RULES) is None


NEVER = "so tools never read, change, move or delete it"


def _ignored_by(pattern: str) -> str:
    """The refusal, for rules built without their sources (``load_ignore_rules`` adds them)."""
    return f'{IGNORED_REASON} (the ignore pattern "{pattern}"), {NEVER}'


def test_ignored_as_a_file_a_folder_or_under_one() -> None:
    assert private_reason("private", RULES, folder=True) == _ignored_by("private/")
    assert private_reason("private/a.md", RULES, folder=False) == _ignored_by("private/")
    assert private_reason("x/private/a.md", RULES) == _ignored_by("private/")
    assert private_reason("plan.secret.md", RULES, folder=False) == _ignored_by("*.secret.md")
    # `build` matches both ways; a path whose kind is unknown gets the stricter answer.
    assert private_reason("build", RULES) == _ignored_by("build")
    assert private_reason("private", RULES, folder=False) is None  # `private/` is folders only


def test_a_folder_is_judged_by_everything_under_it_before_and_after(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path,
        {
            "journal/today.md": "t",
            "journal/private/dream.md": "d",
            "notes/a.secret.md": "s",
            "settings/.hidden.md": "h",
            "public/open.md": "o",
        },
    )
    assert tree_reason(root, "journal", RULES) == HOLDS_IGNORED_REASON
    assert tree_reason(root, "journal", RULES, "elsewhere") == HOLDS_IGNORED_REASON
    assert tree_reason(root, "notes", RULES) == HOLDS_IGNORED_REASON
    assert tree_reason(root, "settings", RULES, "prefs") == HOLDS_CONTROL_REASON
    assert tree_reason(root, "public", RULES, "archive/public") == BECOMES_IGNORED_REASON
    assert tree_reason(root, "public", RULES, "kept") is None
    assert tree_reason(root, "public", RULES) is None


def test_a_folder_that_cannot_be_read_fully_is_refused(tmp_path: Path) -> None:
    import os

    root = make_vault(tmp_path, {"box/inner/a.md": "a"})
    os.chmod(root / "box" / "inner", 0)
    try:
        if os.access(root / "box" / "inner", os.R_OK):
            pytest.skip("running as root: every folder is readable")
        assert tree_reason(root, "box", RULES) == UNREADABLE_REASON
    finally:
        os.chmod(root / "box" / "inner", 0o755)
