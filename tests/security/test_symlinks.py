"""A symlink inside the vault is judged by where it leads: nothing outside the vault, inside an
ignored folder or in a default exclusion (``.obsidian/``) is ever indexed, listed, returned or
read, whatever link points at it (docs/security.md, "Symbolic links")."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.postgres.conftest import location_for
from tests.security.stored_index import STORES
from vaultctx.api import Vault
from vaultctx.db_location import IndexLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.vault.paths import VaultAccessError
from vaultctx.vault.scanner import is_served_path, load_ignore_rules

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")

API_KEY = "sk-plugin-7Hq2LxW9vR4tZ8mP3nK6yB1cD5fG0jS2"
PRIVATE = "PRIVATE-DIARY-c41d"


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / ".obsidian" / "plugins" / "copilot").mkdir(parents=True)
    (vault / ".obsidian" / "plugins" / "copilot" / "data.json").write_text(
        f'{{"apiKey": "{API_KEY}", "model": "gpt"}}'
    )
    (vault / "private").mkdir()
    (vault / "private" / "diary.md").write_text(f"# Diary\n\n{PRIVATE} about the lighthouse.\n")
    (vault / "notes").mkdir()
    (vault / "notes" / "public.md").write_text("# Public\n\nThe lighthouse keeper's log.\n")
    (vault / ".indexignore").write_text("private/\n")
    (vault / "plugin.json").symlink_to(vault / ".obsidian" / "plugins" / "copilot" / "data.json")
    (vault / "notes" / "diary.md").symlink_to(vault / "private" / "diary.md")
    (vault / "notes" / "private-folder").symlink_to(vault / "private", target_is_directory=True)
    (vault / "obsidian").symlink_to(vault / ".obsidian", target_is_directory=True)
    return vault


def _indexed_paths(db: IndexLocation) -> set[str]:
    index = open_index(db, readonly=True)
    try:
        return {str(row[0]) for row in index.execute("SELECT path FROM files")}
    finally:
        index.close()


@pytest.mark.parametrize("kind", STORES)
def test_links_to_ignored_and_default_excluded_files_are_not_indexed(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    vault = _vault(tmp_path)
    with Vault(vault, db=location_for(kind, vault, tmp_path, request)) as handle:
        report = handle.index(fast=True)
        assert _indexed_paths(handle.db_path) == {"notes/public.md"}
        skipped = {s["path"]: s["reason"] for s in report.as_dict()["skipped"]}
        assert "not indexed" in skipped["plugin.json"]
        assert "not indexed" in skipped["notes/diary.md"]
        for query in (API_KEY, PRIVATE, "apiKey", "diary"):
            found = handle.search(query, mode="bm25").results
            assert not found, query
        listed = {note.path for note in handle.list_notes(limit=100).notes}
        assert listed == {"notes/public.md"}
        for path in ("plugin.json", "notes/diary.md", "notes/private-folder/diary.md"):
            with pytest.raises(VaultAccessError):
                handle.read_note(path)


def test_a_link_swapped_in_after_the_scan_is_not_read(tmp_path: Path) -> None:
    from vaultctx.vault.errors import UnreadableFileError
    from vaultctx.vault.scanner import read_vault_file, scan_vault

    vault = _vault(tmp_path)
    [public] = [f for f in scan_vault(vault).files if f.path == "notes/public.md"]
    outside = tmp_path / "outside.md"
    outside.write_text("outside the vault")
    os.unlink(public.fs_path)
    os.symlink(outside, public.fs_path)
    with pytest.raises(UnreadableFileError, match="symbolic link"):
        read_vault_file(public)


# --- property: random links never expose what the rules exclude -----------------------------------

# Real files: (vault-relative path or "OUT/…" for outside the vault, is it served?)
_FILES = {
    "notes/a.md": True,
    "notes/deep/b.md": True,
    "private/c.md": False,  # .indexignore
    ".obsidian/d.md": False,  # default exclusion
    ".obsidian/plugins/p/data.json": False,
    "notes/e.secret.md": False,  # .indexignore pattern on files
    "OUT/f.md": False,
    "OUT/sub/g.md": False,
}
_FOLDERS = ["", "notes", "notes/deep", "private", ".obsidian", "OUT", "OUT/sub"]
_TARGETS = [*_FILES, *_FOLDERS, "missing.md", "notes/missing/"]
_PLACES = ["", "notes", "notes/deep", "private", ".obsidian"]


def _location(root: Path, spec: str) -> Path:
    if spec == "OUT" or spec.startswith("OUT/"):
        return root / "outside" / spec[4:] if spec != "OUT" else root / "outside"
    return root / "vault" / spec if spec else root / "vault"


def _marker(path: str) -> str:
    return "MARK" + "".join(ch for ch in path if ch.isalnum()).upper()


_links = st.lists(
    st.tuples(
        st.sampled_from(_PLACES),
        st.sampled_from(["l1", "l2.md", "l3.json", "l4"]),
        st.sampled_from(_TARGETS),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda link: (link[0], link[1]),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(links=_links)
def test_random_links_never_expose_excluded_or_outside_files(
    tmp_path_factory: pytest.TempPathFactory,
    embedder: StaticEmbedder,
    links: list[tuple[str, str, str]],
) -> None:
    root = tmp_path_factory.mktemp("links")
    for spec in _FILES:
        file = _location(root, spec)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"# {spec}\n\n{_marker(spec)} lighthouse\n")
    vault = root / "vault"
    (vault / ".indexignore").write_text("private/\n*.secret.md\n")
    for place, name, target in links:
        link = _location(root, place) / name
        if not link.parent.is_dir() or os.path.lexists(link):
            continue
        os.symlink(_location(root, target), link)

    with Vault(vault, db=root / "index.db") as handle:
        Indexer(handle.config, embedder).run(fast=True)
        rules, _ = load_ignore_rules(vault)
        real_root = os.path.realpath(vault)
        indexed = _indexed_paths(handle.db_path)
        for path in indexed:
            real = os.path.realpath(vault / path)
            assert real.startswith(real_root + os.sep), path
            assert is_served_path(os.path.relpath(real, real_root).replace(os.sep, "/"), rules)
        listed = {note.path for note in handle.list_notes(limit=1000).notes}
        assert listed == indexed
        for spec, served in _FILES.items():
            found = {r.file_path for r in handle.search(_marker(spec), mode="bm25").results}
            assert bool(found) == served, (spec, found)
        for place, name, _target in links:
            relative = f"{place}/{name}" if place else name
            try:
                text = handle.read_note(relative).text
            except VaultAccessError:
                continue
            leaked = [
                spec for spec, served in _FILES.items() if not served and _marker(spec) in text
            ]
            assert not leaked, (relative, leaked)
    shutil.rmtree(root)
