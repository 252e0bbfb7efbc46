from __future__ import annotations

import codecs
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE_VAULT, shared_data
from vaultctx.vault import scanner
from vaultctx.vault.errors import UnreadableFileError, VaultNotFoundError
from vaultctx.vault.scanner import DEFAULT_IGNORES, VaultFile, read_vault_file, scan_vault


def make_vault(
    root: Path, files: Mapping[str, str | bytes], indexignore: str | None = None
) -> Path:
    for rel_path, content in files.items():
        path = root / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if indexignore is not None:
        (root / ".indexignore").write_text(indexignore, encoding="utf-8")
    return root


def paths(root: Path, extra_ignores: Sequence[str] = ()) -> list[str]:
    return [f.path for f in scan_vault(root, extra_ignores=extra_ignores).files]


def skipped(root: Path) -> dict[str, str]:
    return {s.path: s.reason for s in scan_vault(root).skipped}


# --- what is indexed -------------------------------------------------------------------------


def test_indexes_the_spec_file_types_sorted_with_posix_paths(tmp_path: Path) -> None:
    make_vault(
        tmp_path,
        {
            "b/note.md": "x",
            "a.txt": "x",
            "data/table.csv": "a,b",
            "data/config.json": "{}",
            "clip/page.html": "<p>x</p>",
            "clip/old.htm": "<p>x</p>",
            "UPPER.MD": "x",
            "image.png": b"\x89PNG",
            "doc.pdf": b"%PDF",
            "script.py": "print()",
            "no-suffix": "x",
        },
    )
    result = scan_vault(tmp_path)
    assert [f.path for f in result.files] == [
        "UPPER.MD",
        "a.txt",
        "b/note.md",
        "clip/old.htm",
        "clip/page.html",
        "data/config.json",
        "data/table.csv",
    ]
    assert result.skipped == []  # other file types are ignored silently


def test_vault_file_records_stat_and_absolute_path(tmp_path: Path) -> None:
    make_vault(tmp_path, {"sub/note.md": "hello world"})
    (found,) = scan_vault(tmp_path).files
    stat = os.stat(tmp_path / "sub" / "note.md")
    assert found.path == "sub/note.md"
    assert found.abs_path == tmp_path / "sub" / "note.md"
    assert (found.mtime_ns, found.size) == (stat.st_mtime_ns, stat.st_size)


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFoundError, match="not found"):
        scan_vault(tmp_path / "nope")
    (tmp_path / "file.md").write_text("x")
    with pytest.raises(VaultNotFoundError, match="not a folder"):
        scan_vault(tmp_path / "file.md")


def test_example_vault_excludes_templates_obsidian_and_excalidraw() -> None:
    found = paths(EXAMPLE_VAULT)
    assert len(found) >= 25
    assert not [p for p in found if p.startswith(("templates/", ".obsidian/"))]
    assert not [p for p in found if p.endswith(".excalidraw.md")]
    assert (EXAMPLE_VAULT / "templates").is_dir()
    assert list((EXAMPLE_VAULT / "10-projects").rglob("*.excalidraw.md"))


# --- default exclusions ----------------------------------------------------------------------


DEFAULT_EXCLUDED = {
    ".obsidian/app.json": "{}",
    "sub/.obsidian/workspace.json": "{}",
    ".trash/old.md": "x",
    ".git/notes.md": "x",
    "node_modules/pkg/README.md": "x",
    ".vaultctx/cache.json": "{}",
    ".vaultctx-index.json": "{}",
    "drawing.excalidraw.md": "x",
}


def test_default_exclusions(tmp_path: Path) -> None:
    make_vault(tmp_path, {**DEFAULT_EXCLUDED, "keep.md": "x"})
    assert paths(tmp_path) == ["keep.md"]


def test_defaults_can_be_overridden_except_git_and_own_files(tmp_path: Path) -> None:
    make_vault(
        tmp_path,
        DEFAULT_EXCLUDED,
        indexignore="!.obsidian/\n!*.excalidraw.md\n!.git/\n!.vaultctx*\n",
    )
    assert paths(tmp_path) == [
        ".obsidian/app.json",
        "drawing.excalidraw.md",
        "sub/.obsidian/workspace.json",
    ]


def test_ignored_folders_are_pruned_not_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_vault(tmp_path, {"node_modules/a/b/x.md": "x", "notes/n.md": "x"})
    listed: list[str] = []
    real_list_folder = scanner._list_folder

    @contextlib.contextmanager
    def recording(path: str) -> Iterator[Iterator[os.DirEntry[str]]]:
        listed.append(path)
        with real_list_folder(path) as entries:
            yield entries

    monkeypatch.setattr(scanner, "_list_folder", recording)
    assert paths(tmp_path) == ["notes/n.md"]
    assert not [p for p in listed if "node_modules" in p]
    assert any(p.endswith("notes") for p in listed)


# --- .indexignore: gitignore semantics ---------------------------------------------------------


def test_negation_re_includes_a_file(tmp_path: Path) -> None:
    make_vault(
        tmp_path, {"a.txt": "", "keep.txt": "", "n.md": ""}, indexignore="*.txt\n!keep.txt\n"
    )
    assert paths(tmp_path) == ["keep.txt", "n.md"]


def test_leading_slash_anchors_to_the_vault_root(tmp_path: Path) -> None:
    files = {"drafts/a.md": "", "projects/drafts/b.md": ""}
    make_vault(tmp_path, files, indexignore="/drafts/\n")
    assert paths(tmp_path) == ["projects/drafts/b.md"]


def test_unanchored_pattern_matches_at_any_depth(tmp_path: Path) -> None:
    files = {"drafts/a.md": "", "projects/drafts/b.md": "", "c.md": ""}
    make_vault(tmp_path, files, indexignore="drafts\n")
    assert paths(tmp_path) == ["c.md"]


def test_trailing_slash_matches_folders_only(tmp_path: Path) -> None:
    make_vault(
        tmp_path, {"build/a.md": "", "notes/build": "", "build.md": ""}, indexignore="build/\n"
    )
    assert paths(tmp_path) == ["build.md"]


def test_double_star_patterns(tmp_path: Path) -> None:
    files = {
        "private/a.md": "",
        "x/y/private/b.md": "",
        "x/public/c.md": "",
        "journal/2023/d.md": "",
        "journal/e.md": "",
    }
    make_vault(tmp_path, files, indexignore="**/private/\njournal/**/*.md\n")
    # journal/**/*.md matches at any depth below journal/, including directly inside it.
    assert paths(tmp_path) == ["x/public/c.md"]


def test_a_file_in_an_excluded_folder_cannot_be_re_included(tmp_path: Path) -> None:
    # git: "It is not possible to re-include a file if a parent directory of that file is excluded."
    files = {"templates/daily.md": "", "templates/keep.md": "", "n.md": ""}
    make_vault(tmp_path, files, indexignore="templates/\n!templates/keep.md\n")
    assert paths(tmp_path) == ["n.md"]
    # ...but excluding the folder's contents instead of the folder leaves room for exceptions.
    (tmp_path / ".indexignore").write_text("templates/*\n!templates/keep.md\n")
    assert paths(tmp_path) == ["n.md", "templates/keep.md"]


def test_only_markdown_idiom_keeps_walking_folders(tmp_path: Path) -> None:
    files = {"a/b/deep.md": "", "a/b/data.json": "", "top.txt": "", "top.md": ""}
    make_vault(tmp_path, files, indexignore="*\n!*/\n!*.md\n")
    assert paths(tmp_path) == ["a/b/deep.md", "top.md"]


def test_extra_ignores_apply_after_indexignore(tmp_path: Path) -> None:
    make_vault(tmp_path, {"a.md": "", "b.md": "", "c.md": ""}, indexignore="a.md\n")
    assert paths(tmp_path, extra_ignores=["b.md"]) == ["c.md"]
    assert paths(tmp_path, extra_ignores=["!a.md"]) == ["a.md", "b.md", "c.md"]


def test_invalid_indexignore_line_is_reported_and_the_rest_applies(tmp_path: Path) -> None:
    make_vault(tmp_path, {"a.md": "", "b.md": ""}, indexignore="a.md\n!\n")
    result = scan_vault(tmp_path)
    assert [f.path for f in result.files] == ["b.md"]
    (problem,) = result.skipped
    assert problem.path == ".indexignore"
    assert "line 2" in problem.reason


PATTERN_CASES = [
    "*.txt\n!keep.txt\n",
    "/drafts/\n",
    "drafts\n",
    "build/\n",
    "**/private/\n",
    "journal/**/*.md\n",
    "templates/\n!templates/keep.md\n",
    "templates/*\n!templates/keep.md\n",
    "templates/**\n!templates/keep.md\n",
    "*\n!*/\n!*.md\n",
    "a/*/c/\n!a/b/\n",
    "*.md\n!keep/\n",
    "# comment\n\nnotes/**/secret*\n",
    "[Dd]rafts/\n",
    "a?c.md\n",
]
TREE = [
    "a.txt", "keep.txt", "n.md", "abc.md", "build.md", "notes/build",
    "drafts/a.md", "Drafts/x.md", "projects/drafts/b.md", "build/a.md",
    "private/a.md", "x/y/private/b.md", "x/public/c.md", "journal/2023/d.md", "journal/e.md",
    "templates/daily.md", "templates/keep.md", "keep/a.md", "a/b/c/d.md", "a/x/c/d.md",
    "notes/deep/secret-plan.md", "notes/secrets.md",
]  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("indexignore", PATTERN_CASES)
def test_ignore_rules_agree_with_git(tmp_path: Path, indexignore: str) -> None:
    make_vault(tmp_path, dict.fromkeys(TREE, ""), indexignore=indexignore)
    exclude_file = tmp_path.parent / f"{tmp_path.name}-exclude"
    exclude_file.write_text("\n".join(DEFAULT_IGNORES) + "\n" + indexignore)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listing = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", f"--exclude-from={exclude_file}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    git_paths = sorted(p for p in listing if scanner.is_indexed_name(p))
    assert paths(tmp_path) == git_paths


# --- symlinks ----------------------------------------------------------------------------------

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")


@needs_symlinks
def test_symlinks_leaving_the_vault_are_not_followed(tmp_path: Path) -> None:
    outside = make_vault(tmp_path / "outside", {"secret.md": "x", "dir/other.md": "x"})
    vault = make_vault(tmp_path / "vault", {"note.md": "x"})
    (vault / "linked-dir").symlink_to(outside / "dir", target_is_directory=True)
    (vault / "linked.md").symlink_to(outside / "secret.md")
    result = scan_vault(vault)
    assert [f.path for f in result.files] == ["note.md"]
    reasons = {s.path: s.reason for s in result.skipped}
    assert "outside the vault" in reasons["linked-dir"]
    assert "outside the vault" in reasons["linked.md"]


@needs_symlinks
def test_symlink_loops_terminate_and_files_are_listed_once(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"a/note.md": "x", "b/other.md": "x"})
    (vault / "a" / "up").symlink_to(vault, target_is_directory=True)
    (vault / "a" / "self").symlink_to(vault / "a", target_is_directory=True)
    (vault / "b" / "to-a").symlink_to(vault / "a", target_is_directory=True)
    result = scan_vault(vault)
    assert [f.path for f in result.files] == ["a/note.md", "b/other.md"]
    assert {s.path for s in result.skipped} == {"a/up/", "a/self/", "b/to-a/"}
    assert all("already scanned" in s.reason for s in result.skipped)


@needs_symlinks
def test_symlink_to_an_ignored_in_vault_folder_is_not_followed(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"archive/old.md": "x", "notes/n.md": "x"}, "archive/\n")
    (vault / "notes" / "old").symlink_to(vault / "archive", target_is_directory=True)
    assert paths(vault) == ["notes/n.md"]
    assert "not indexed" in skipped(vault)["notes/old/"]


@needs_symlinks
def test_symlinked_file_inside_the_vault_is_not_indexed_twice(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"real.md": "x"})
    (vault / "alias.md").symlink_to(vault / "real.md")
    result = scan_vault(vault)
    assert [f.path for f in result.files] == ["real.md"]
    assert "already indexed" in {s.path: s.reason for s in result.skipped}["alias.md"]


@needs_symlinks
def test_broken_symlink_is_skipped_with_reason(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"n.md": "x"})
    (vault / "dead.md").symlink_to(vault / "missing.md")
    assert paths(vault) == ["n.md"]
    assert "broken symlink" in skipped(vault)["dead.md"]


# --- files that cannot be indexed ---------------------------------------------------------------


def test_oversized_file_is_skipped_naming_the_setting(tmp_path: Path) -> None:
    make_vault(tmp_path, {"big.md": "x" * 2000, "small.md": "x"})
    result = scan_vault(tmp_path, max_file_bytes=1000)
    assert [f.path for f in result.files] == ["small.md"]
    (big,) = result.skipped
    assert big.path == "big.md"
    assert "2,000 bytes" in big.reason and "max_file_bytes" in big.reason


def _listing_with_side_effect(
    monkeypatch: pytest.MonkeyPatch, before_entry: str, action: Callable[[], object]
) -> None:
    """Run ``action`` when the walk reaches the entry named ``before_entry``, like a sync tool
    deleting files while the scan runs."""
    real_list_folder = scanner._list_folder

    @contextlib.contextmanager
    def listing(path: str) -> Iterator[Iterator[os.DirEntry[str]]]:
        with real_list_folder(path) as entries:
            yield _interrupt(entries)

    def _interrupt(entries: Iterator[os.DirEntry[str]]) -> Iterator[os.DirEntry[str]]:
        for entry in entries:
            if entry.name == before_entry:
                action()
            yield entry

    monkeypatch.setattr(scanner, "_list_folder", listing)


def test_file_vanishing_during_the_scan_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_vault(tmp_path, {"gone.md": "x", "stays.md": "x"})
    _listing_with_side_effect(monkeypatch, "gone.md", (tmp_path / "gone.md").unlink)
    result = scan_vault(tmp_path)
    assert [f.path for f in result.files] == ["stays.md"]
    assert [(s.path, s.reason) for s in result.skipped] == [("gone.md", "vanished during the scan")]


def test_folder_vanishing_during_the_scan_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_vault(tmp_path, {"sub/a.md": "x", "stays.md": "x"})
    _listing_with_side_effect(monkeypatch, "sub", lambda: shutil.rmtree(tmp_path / "sub"))
    result = scan_vault(tmp_path)
    assert [f.path for f in result.files] == ["stays.md"]
    assert [(s.path, s.reason) for s in result.skipped] == [("sub/", "vanished during the scan")]


def test_unreadable_folder_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_vault(tmp_path, {"locked/a.md": "x", "open.md": "x"})
    real_list_folder = scanner._list_folder

    def list_folder(path: str) -> contextlib.AbstractContextManager[Iterator[os.DirEntry[str]]]:
        if path.endswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return real_list_folder(path)

    monkeypatch.setattr(scanner, "_list_folder", list_folder)
    result = scan_vault(tmp_path)
    assert [f.path for f in result.files] == ["open.md"]
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("locked/", "cannot open the folder: Permission denied")
    ]


# --- read_vault_file ------------------------------------------------------------------------------


def _scanned(root: Path, name: str, content: bytes) -> VaultFile:
    make_vault(root, {name: content})
    return next(f for f in scan_vault(root).files if f.path == name)


def test_read_strips_bom_and_normalises_crlf(tmp_path: Path) -> None:
    body = "# Title\r\n\r\nline one\r\nline two\r\n"
    vault_file = _scanned(tmp_path, "n.md", codecs.BOM_UTF8 + body.encode())
    assert read_vault_file(vault_file) == "# Title\n\nline one\nline two\n"


def test_read_keeps_non_ascii_text(tmp_path: Path) -> None:
    vault_file = _scanned(tmp_path, "ko.md", "# 임베딩 모델 비교\n🚀".encode())
    assert read_vault_file(vault_file) == "# 임베딩 모델 비교\n🚀"


def test_invalid_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    data = "café ok\n".encode() + b"\xff broken"
    vault_file = _scanned(tmp_path, "latin.md", data)
    with pytest.raises(UnreadableFileError) as error:
        read_vault_file(vault_file)
    assert error.value.path == "latin.md"
    bad_byte_offset = data.index(b"\xff")
    assert f"byte offset {bad_byte_offset}" in error.value.reason
    assert "UTF-8" in error.value.reason


def test_invalid_utf8_offset_counts_the_bom(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + b"ab\xc3"  # truncated two-byte sequence at the end
    vault_file = _scanned(tmp_path, "bom.md", data)
    with pytest.raises(UnreadableFileError, match=f"byte offset {len(data) - 1}"):
        read_vault_file(vault_file)


def test_binary_file_with_markdown_name_is_refused(tmp_path: Path) -> None:
    vault_file = _scanned(tmp_path, "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(UnreadableFileError, match="binary"):
        read_vault_file(vault_file)


def test_file_vanished_after_the_scan(tmp_path: Path) -> None:
    vault_file = _scanned(tmp_path, "n.md", b"x")
    (tmp_path / "n.md").unlink()
    with pytest.raises(UnreadableFileError, match="vanished"):
        read_vault_file(vault_file)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read a chmod 000 file"
)
def test_permission_denied_with_chmod(tmp_path: Path) -> None:
    vault_file = _scanned(tmp_path, "locked.md", b"x")
    (tmp_path / "locked.md").chmod(0)
    try:
        with pytest.raises(UnreadableFileError, match="permission denied"):
            read_vault_file(vault_file)
    finally:
        (tmp_path / "locked.md").chmod(0o644)


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault_file = _scanned(tmp_path, "locked.md", b"x")

    def refuse(fs_path: str) -> bytes:
        raise PermissionError(13, "Permission denied", fs_path)

    monkeypatch.setattr(scanner, "_read_bytes_no_follow", refuse)
    with pytest.raises(UnreadableFileError, match="permission denied"):
        read_vault_file(vault_file)


# --- real data ----------------------------------------------------------------------------------


def test_obsidian_help_vault_lists_every_markdown_file() -> None:
    root = shared_data("obsidian-help", "en")
    expected = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    assert paths(root) == expected


@pytest.mark.slow
def test_scans_the_powershell_corpus_fast(tmp_path: Path) -> None:
    archive = shared_data("md-corpus-windows-powershell-docs", "windows-powershell-docs.tar.gz")
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp_path, filter="data")
        else:  # Python < 3.10.12 has no extraction filters; the archive is our own test data
            tar.extractall(tmp_path)
    expected = sum(1 for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".md")
    scan_vault(tmp_path)  # warm the OS cache
    started = time.process_time()
    result = scan_vault(tmp_path)
    used = time.process_time() - started
    assert len(result.files) == expected
    # A guard against work growing faster than the file count, not the speed target (well under
    # 0.1 s on a quiet machine: bench/wallclock.py): CPU time, which other processes on a shared
    # machine do not inflate as they do wall time, with a bound 30 times the target.
    assert used < 3.0, f"scan used {used:.3f} s of CPU"


def test_the_default_rules_are_pathspecs_own_without_importing_it() -> None:
    """The defaults' regexes are written out (scanner.py) so a vault without .indexignore never
    imports pathspec for the patterns; they must be exactly what pathspec makes of the lines."""
    from pathspec import GitIgnoreSpec

    from vaultctx.vault import scanner

    folders = [scanner._without_dir_slash(line) for line in scanner.DEFAULT_IGNORES]
    assert (
        scanner._active(GitIgnoreSpec.from_lines(scanner.DEFAULT_IGNORES))
        == scanner._DEFAULT_FILE_PATTERNS
    )
    assert scanner._active(GitIgnoreSpec.from_lines(folders)) == scanner._DEFAULT_FOLDER_PATTERNS


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                ".obsidian",
                ".trash",
                "node_modules",
                "a",
                "b.md",
                "x.excalidraw.md",
                "excalidraw.md",
                ".obsidianx",
                "y.EXCALIDRAW.md",
                "node_modules.md",
                ".trash.md",
                "c d",
            ]
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_default_rules_answer_as_pathspec_does(parts: list[str]) -> None:
    """Without pathspec, the defaults exclude exactly the files and folders pathspec excludes."""
    from pathspec import GitIgnoreSpec

    rules = scanner.IgnoreRules(DEFAULT_IGNORES)
    files = GitIgnoreSpec.from_lines(DEFAULT_IGNORES)
    folders = GitIgnoreSpec.from_lines([scanner._without_dir_slash(x) for x in DEFAULT_IGNORES])
    rel_path = "/".join(parts)
    parents = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
    touched = bool(parents) and rules.folder_is_touched(parents[-1])
    assert rules.excludes_file(rel_path, parts[-1], touched) == files.match_file(rel_path)
    assert rules.excludes_folder(rel_path) == folders.match_file(rel_path)


def test_a_vault_without_ignore_files_is_scanned_without_pathspec(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "a.md").write_text("# A\n", encoding="utf-8")
    (vault / "drawing.excalidraw.md").write_text("{}", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "b.md").write_text("# B\n", encoding="utf-8")
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from vaultctx.vault.scanner import scan_vault\n"
        "found = [f.path for f in scan_vault(Path(sys.argv[1])).files]\n"
        "print(json.dumps([found, 'pathspec' in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def scanned() -> object:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(vault)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        return json.loads(done.stdout)

    assert scanned() == [["notes/a.md"], False]
    (vault / ".indexignore").write_text("notes/\n", encoding="utf-8")
    assert scanned() == [[], True]
