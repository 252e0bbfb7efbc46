"""Path refusals word for word, their limits at the exact boundary, and the index's own paths.

A refusal reaches a model as ``{error, suggestion}``, so its text is behaviour: it must name the
reason and show the path as given (control characters escaped, cut at 200 characters), and tell a
percent-encoded trick from a plain one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.vault.paths import (
    PATH_SUGGESTION,
    UnsafePathError,
    is_vault_folder,
    normalize_vault_path,
    resolve_indexed_file,
    resolve_vault_file,
)
from vaultctx.vault.scanner import load_ignore_rules


@pytest.mark.parametrize(
    ("raw", "reason", "shown"),
    [
        ("", "empty path", ""),
        ("   ", "empty path", "   "),
        (".", "names the vault folder itself, not a note", "."),
        ("../a.md", "goes up to a parent folder with `..`", "../a.md"),
        ("%2e%2e/a.md", "goes up to a parent folder with `..` once URL-decoded", "%2e%2e/a.md"),
        ("/etc/passwd", "is an absolute path", "/etc/passwd"),
        ("%2Fetc%2Fpasswd", "is an absolute path once URL-decoded", "%2Fetc%2Fpasswd"),
        ("//host/share/a.md", "is a UNC network path", "//host/share/a.md"),
        ("C:\\a.md", "is a Windows drive path", "C:\\a.md"),
        ("a\tb.md", "contains a NUL byte or control character", "a\\x09b.md"),
        (
            "%252525252e.md",
            "percent-encoded more times than any real file name is",
            "%252525252e.md",
        ),
    ],
)
def test_each_refusal_says_why_and_shows_the_path(raw: str, reason: str, shown: str) -> None:
    with pytest.raises(UnsafePathError) as refused:
        normalize_vault_path(raw)
    assert str(refused.value) == f"path refused: {reason} ({shown})"
    assert (refused.value.path, refused.value.reason) == (raw, reason)
    assert refused.value.suggestion == PATH_SUGGESTION


def test_a_long_path_is_shown_cut_at_200_characters() -> None:
    for length in (200, 201):
        raw = "../" + "a" * (length - 3)
        with pytest.raises(UnsafePathError) as refused:
            normalize_vault_path(raw)
        shown = raw if length == 200 else raw[:200] + "…"
        assert str(refused.value) == f"path refused: goes up to a parent folder with `..` ({shown})"


def test_the_path_length_limit_is_inclusive() -> None:
    folders = "/".join(["d" * 200] * 4)
    longest = f"{folders}/{'e' * 217}.md"
    assert len(longest) == 1024
    assert normalize_vault_path(longest) == longest
    with pytest.raises(UnsafePathError) as refused:
        normalize_vault_path(f"{folders}/{'e' * 218}.md")
    assert refused.value.reason == "longer than 1024 characters"


def test_the_name_limit_counts_utf8_bytes_inclusively() -> None:
    assert normalize_vault_path("e" * 252 + ".md") == "e" * 252 + ".md"  # 255 bytes
    for name in ("e" * 253 + ".md", "é" * 126 + "x.md"):  # 256 bytes; the second in 130 chars
        with pytest.raises(UnsafePathError) as refused:
            normalize_vault_path(f"folder/{name}")
        assert refused.value.reason == "has a file or folder name longer than 255 bytes"


def test_a_folder_name_of_dots_and_x_is_an_ordinary_name() -> None:
    assert normalize_vault_path("X/a.md") == "X/a.md"
    assert normalize_vault_path("XX. X/a.md") == "XX. X/a.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel in ("a/b.md", "b.md", "My Projects/plan.md", "private/keep.md", "notes/private/k.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("text", encoding="utf-8")
    # git cannot re-include a file inside an excluded folder, and neither can vaultctx.
    (root / ".indexignore").write_text(
        "private/\n!private/keep.md\nnotes/private/\n!notes/private/k.md\n", encoding="utf-8"
    )
    return root


@pytest.mark.parametrize(
    "indexed", ["a/../b.md", "../b.md", "a//b.md", "a/./b.md", "/b.md", "a/b.md\x00", ""]
)
def test_an_index_path_with_empty_dot_or_parent_parts_is_refused(vault: Path, indexed: str) -> None:
    with pytest.raises(UnsafePathError) as refused:
        resolve_indexed_file(vault, indexed, load_ignore_rules(vault)[0])
    assert refused.value.reason == "is not a path the index could hold"


def test_an_index_path_is_taken_literally(vault: Path) -> None:
    found = resolve_indexed_file(vault, "My Projects/plan.md", load_ignore_rules(vault)[0])
    assert found.absolute == (vault / "My Projects" / "plan.md").resolve()
    too_long = "n" * 256 + ".md"
    with pytest.raises(UnsafePathError) as refused:
        resolve_indexed_file(vault, too_long, load_ignore_rules(vault)[0])
    assert str(refused.value) == (
        f"path refused: has a file or folder name longer than 255 bytes ({too_long[:200]}…)"
    )


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("private/keep.md", '"private/" on line 1'),
        # Both lines match the folder: git's last match decides, and is the one named.
        ("notes/private/k.md", '"notes/private/" on line 3'),
    ],
)
def test_a_file_in_an_excluded_folder_stays_excluded_whatever_it_negates(
    vault: Path, raw: str, rule: str
) -> None:
    rules = load_ignore_rules(vault)[0]
    for resolve in (resolve_vault_file, resolve_indexed_file):
        with pytest.raises(UnsafePathError) as refused:
            resolve(vault, raw, rules)
        assert refused.value.reason == (
            f"is excluded from the index by the pattern {rule} of .indexignore"
        )


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (".git/config.md", "is inside git's or vaultctx's own files"),
        ("a/b.png", "is not a note type vaultctx serves (.md, .txt, .csv, …)"),
    ],
)
def test_files_never_served_say_why(vault: Path, raw: str, reason: str) -> None:
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_file(vault, raw, load_ignore_rules(vault)[0])
    assert str(refused.value) == f"path refused: {reason} ({raw})"


def test_vault_folders(vault: Path) -> None:
    assert is_vault_folder(vault, "My Projects")
    assert is_vault_folder(vault, "notes/private")
    assert not is_vault_folder(vault, "b.md")
    assert not is_vault_folder(vault, "n" * 300)  # the file system refuses the name: not a folder
