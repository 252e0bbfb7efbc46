"""One rule for what vaultctx serves: the scanner's ``unserved_reason``, which the index's links,
capture and the readers' path confinement (``vault.paths``) all ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.vault.paths import UnsafePathError, resolve_vault_file
from vaultctx.vault.scanner import is_served_path, load_ignore_rules, unserved_reason

PATHS = (
    "Note.md",
    "notes/plan.txt",
    "drafts/idea.md",
    "drafts/keep/idea.md",
    "secret.md",
    "deep/secret.md",
    "image.png",
    "archive/old.pdf",
    ".obsidian/workspace.md",
    ".git/HEAD.md",
    "notes/.vaultctx-cache.md",
    "scratch.tmp.md",
)


def test_the_readers_refuse_exactly_what_the_index_leaves_out(tmp_path: Path) -> None:
    (tmp_path / ".indexignore").write_text("drafts/\n!drafts/keep/\nsecret.md\n*.tmp.md\n")
    rules = load_ignore_rules(tmp_path)[0]
    for relative in PATHS:
        reason = unserved_reason(relative, rules)
        assert is_served_path(relative, rules) == (reason is None), relative
        if reason is None:
            assert resolve_vault_file(tmp_path, relative, rules).relative == relative
        else:
            with pytest.raises(UnsafePathError) as refused:
                resolve_vault_file(tmp_path, relative, rules)
            assert refused.value.reason == reason, relative


def test_each_reason_is_named(tmp_path: Path) -> None:
    rules = load_ignore_rules(tmp_path)[0]
    assert "own files" in (unserved_reason(".git/x.md", rules) or "")
    assert "excluded" in (unserved_reason(".obsidian/x.md", rules) or "")
    assert "not a note type" in (unserved_reason("a.png", rules) or "")
    assert unserved_reason("a.md", rules) is None
