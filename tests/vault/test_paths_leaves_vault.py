"""``leaves_vault`` is ``normalize_vault_path``'s own rule for a path spelled to leave the vault,
so the agent's tool contract (which words the refusal itself) and the vault refuse the same
spellings: one check, not a cheaper copy beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.tool_support import call, vault_copy
from vaultctx.vault import paths
from vaultctx.vault.paths import UnsafePathError, leaves_vault, normalize_vault_path

LEAVING = [
    "/etc/passwd",
    "\\\\server\\share\\x.md",
    "//server/share/x.md",
    "C:/Windows/x.md",
    "c:x.md",
    "../x.md",
    "a/../../x.md",
    "a\\..\\..\\x.md",
    "...",
    "a/.. /x.md",
    "%2e%2e/x.md",
    "%252e%252e/x.md",
    "%2Fetc/passwd",
]
STAYING = ["x.md", "a/b.md", "./a/b.md", "100%25 done.md", "a..b.md", ".hidden.md", "a/.x/b.md"]


@pytest.mark.parametrize("raw", LEAVING)
def test_a_path_spelled_to_leave_is_refused_by_both_for_that_reason(raw: str) -> None:
    assert leaves_vault(raw)
    with pytest.raises(UnsafePathError) as refused:
        normalize_vault_path(raw)
    assert any(
        words in refused.value.reason
        for words in ("absolute path", "UNC", "drive path", "parent folder", "percent-encoded")
    )


@pytest.mark.parametrize("raw", STAYING)
def test_a_path_inside_is_not_leaving(raw: str) -> None:
    assert not leaves_vault(raw)
    normalize_vault_path(raw)


def test_the_tool_contract_uses_the_vaults_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = vault_copy(tmp_path)
    result = call(vault, "read_note", {"path": "%2e%2e/secret.md"})
    assert "paths outside the vault are not allowed" in result
    # Whatever the vault's rule says is what the contract refuses.
    monkeypatch.setattr(paths, "leaves_vault", lambda raw: raw == "Welcome.md")
    assert "paths outside the vault are not allowed" in call(
        vault, "read_note", {"path": "Welcome.md"}
    )
