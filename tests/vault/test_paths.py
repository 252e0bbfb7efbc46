from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultctx.vault.paths import (
    UnsafePathError,
    is_vault_folder,
    normalize_vault_path,
    resolve_vault_file,
)
from vaultctx.vault.scanner import IgnoreRules, load_ignore_rules


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("daily/2024-03-12.md", "daily/2024-03-12.md"),
        ("./daily//2024-03-12.md", "daily/2024-03-12.md"),
        ("daily\\2024-03-12.md", "daily/2024-03-12.md"),
        ("daily/", "daily"),
        ("100% done.md", "100% done.md"),
        ("100%25 done.md", "100%25 done.md"),  # kept as given: a real name may contain %25
        ("a..b/c...d.md", "a..b/c...d.md"),  # dots inside a name are not traversal
        ("형태소 분석기 메모.md", "형태소 분석기 메모.md"),
        ("~/notes.md", "~/notes.md"),  # never expanded: a folder called ~ inside the vault
    ],
)
def test_normalize_keeps_safe_paths(raw: str, expected: str) -> None:
    assert normalize_vault_path(raw) == expected


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (".", "vault folder itself"),
        ("./", "vault folder itself"),
        ("../a.md", "parent folder"),
        ("a/../../b.md", "parent folder"),
        ("a/../b.md", "parent folder"),  # harmless in effect, refused anyway: no honest use
        ("..\\a.md", "parent folder"),
        (".../a.md", "parent folder"),
        (". ./a.md", "parent folder"),
        ("/etc/passwd", "absolute"),
        ("//host/share/a.md", "UNC"),
        ("\\\\host\\share\\a.md", "UNC"),
        ("C:\\a.md", "drive"),
        ("z:a.md", "drive"),
        ("a.md\x00.txt", "NUL"),
        ("a\tb.md", "control"),
        ("%2e%2e/a.md", "URL-decoded"),
        ("%252e%252e%252fa.md", "URL-decoded"),
        ("%2Fetc%2Fpasswd", "URL-decoded"),
        ("a%00.md", "URL-decoded"),
        ("%2525252525252e", "percent-encoded more times"),
        ("a" * 2000, "longer than"),
    ],
)
def test_normalize_refuses(raw: str, reason: str) -> None:
    with pytest.raises(UnsafePathError) as refused:
        normalize_vault_path(raw)
    assert reason in str(refused.value)
    assert refused.value.suggestion


@given(st.text(alphabet=st.sampled_from("ab./\\%2e5cfC:\x00 ~"), max_size=24))
def test_normalized_paths_never_leave_the_root(raw: str) -> None:
    try:
        normalized = normalize_vault_path(raw)
    except UnsafePathError:
        return
    assert not normalized.startswith("/") and "\\" not in normalized and "\x00" not in normalized
    parts = normalized.split("/")
    assert all(part and part.strip(". ") for part in parts)
    joined = posixpath.normpath("/root/" + normalized)
    assert joined.startswith("/root/") and ".." not in joined.split("/")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel in ("notes/a.md", "notes/data.csv", ".obsidian/x.md", "private/p.md", "img.png"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("text", encoding="utf-8")
    (root / ".indexignore").write_text("private/\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("outside", encoding="utf-8")
    (root / "out.md").symlink_to(outside / "o.md")
    (root / "out-dir").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "notes" / "a.md")
    (root / "peek.md").symlink_to(root / ".obsidian" / "x.md")
    return root


def rules_for(vault: Path) -> IgnoreRules:
    return load_ignore_rules(vault)[0]


def test_resolve_inside(vault: Path) -> None:
    found = resolve_vault_file(vault, "notes\\a.md", rules_for(vault))
    assert found.relative == "notes/a.md"
    assert found.absolute == (vault / "notes" / "a.md").resolve()
    assert resolve_vault_file(vault, "notes/data.csv", rules_for(vault)).absolute.is_file()
    assert not resolve_vault_file(vault, "notes/new.md", rules_for(vault)).absolute.exists()


def test_symlink_inside_the_vault_is_followed(vault: Path) -> None:
    found = resolve_vault_file(vault, "alias.md", rules_for(vault))
    assert found.relative == "alias.md"
    assert found.absolute == (vault / "notes" / "a.md").resolve()


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("out.md", "outside the vault"),
        ("out-dir/o.md", "outside the vault"),
        ("peek.md", "excluded"),  # in-vault link into .obsidian/
        (".obsidian/x.md", "excluded"),
        ("private/p.md", "excluded"),  # .indexignore
        (".git/config.md", "git"),
        (".vaultctx.db.md", "vaultctx"),
        ("img.png", "not a note type"),
        ("notes/a.md.exe", "not a note type"),
    ],
)
def test_resolve_refuses(vault: Path, raw: str, reason: str) -> None:
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_file(vault, raw, rules_for(vault))
    assert reason in str(refused.value)


def test_is_vault_folder(vault: Path) -> None:
    assert is_vault_folder(vault, "notes")
    assert not is_vault_folder(vault, "notes/a.md")
    assert not is_vault_folder(vault, "out-dir")  # a folder, but outside the vault
    assert not is_vault_folder(vault, "missing")
