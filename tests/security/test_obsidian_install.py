"""`vaultctx obsidian install|uninstall` write and remove only the plugin's own files, and never
through a symbolic link: a vault can come from anywhere, and a link at `.obsidian`, `plugins`,
`vaultctx` or a file name would carry the write (or the deletion) out of the vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultctx.cli.main import build_app
from vaultctx.errors import VaultctxError
from vaultctx.obsidian.install import (
    PLUGIN_FILES,
    SHIPPED,
    UnsafePluginPathError,
    install,
    plugin_folder,
    uninstall,
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault Obsidian has opened: its settings and another plugin."""
    root = tmp_path / "vault"
    (root / ".obsidian" / "plugins" / "dataview").mkdir(parents=True)
    (root / ".obsidian" / "plugins" / "dataview" / "main.js").write_text("// theirs\n")
    (root / ".obsidian" / "community-plugins.json").write_text('["dataview"]\n')
    (root / ".obsidian" / "app.json").write_text('{"theme": "moonstone"}\n')
    (root / "Note.md").write_text("# Note\n")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "plugins/vaultctx" not in p.as_posix()
    }


def test_install_copies_the_plugin_and_touches_nothing_else(vault: Path) -> None:
    before = snapshot(vault)
    written = install(vault)
    folder = plugin_folder(vault)
    assert sorted(p.name for p in written) == sorted(PLUGIN_FILES)
    for name in PLUGIN_FILES:
        assert (folder / name).read_bytes() == (SHIPPED / name).read_bytes()
    assert snapshot(vault) == before  # other plugins, the enabled list, the settings


def test_install_again_keeps_the_plugins_settings(vault: Path) -> None:
    install(vault)
    (plugin_folder(vault) / "data.json").write_text('{"executable": "vaultctx"}')
    (plugin_folder(vault) / "main.js").write_text("// an old version")
    install(vault)
    assert (plugin_folder(vault) / "data.json").read_text() == '{"executable": "vaultctx"}'
    assert (plugin_folder(vault) / "main.js").read_bytes() == (SHIPPED / "main.js").read_bytes()


def test_uninstall_removes_exactly_the_plugins_files(vault: Path) -> None:
    before = snapshot(vault)
    install(vault)
    (plugin_folder(vault) / "data.json").write_text("{}")
    removed = uninstall(vault)
    assert sorted(p.name for p in removed) == sorted([*PLUGIN_FILES, "data.json"])
    assert not plugin_folder(vault).exists()
    assert snapshot(vault) == before
    assert uninstall(vault) == []


def test_uninstall_leaves_files_it_did_not_ship(vault: Path) -> None:
    install(vault)
    (plugin_folder(vault) / "notes-of-mine.txt").write_text("keep")
    uninstall(vault)
    assert [p.name for p in plugin_folder(vault).iterdir()] == ["notes-of-mine.txt"]


@pytest.mark.parametrize("link", [".obsidian", ".obsidian/plugins", ".obsidian/plugins/vaultctx"])
def test_a_linked_folder_on_the_way_is_refused(tmp_path: Path, link: str) -> None:
    root = tmp_path / "vault"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "main.js").write_text("// outside\n")
    target = root / link
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePluginPathError, match="symbolic link"):
        install(root)
    with pytest.raises(UnsafePluginPathError, match="symbolic link"):
        uninstall(root)
    assert sorted(p.name for p in outside.rglob("*")) == ["main.js"]
    assert (outside / "main.js").read_text() == "// outside\n"


@pytest.mark.parametrize("name", [*PLUGIN_FILES, "data.json"])
def test_a_linked_file_is_neither_written_through_nor_removed(
    vault: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("precious")
    folder = plugin_folder(vault)
    folder.mkdir()
    (folder / name).symlink_to(outside)
    if name in PLUGIN_FILES:
        with pytest.raises(UnsafePluginPathError):
            install(vault)
    with pytest.raises(UnsafePluginPathError):
        uninstall(vault)
    assert outside.read_text() == "precious"
    assert (folder / name).is_symlink()


def test_the_command_says_how_to_enable_it(vault: Path) -> None:
    app = build_app()
    done = CliRunner().invoke(app, ["obsidian", "install", "--vault", str(vault)])
    assert done.exit_code == 0, done.output
    assert "Community plugins" in done.output
    done = CliRunner().invoke(app, ["obsidian", "uninstall", "--vault", str(vault)])
    assert done.exit_code == 0, done.output
    assert "removed" in done.output
    missing = CliRunner().invoke(app, ["obsidian", "install", "--vault", str(vault / "nope")])
    assert isinstance(missing.exception, VaultctxError)  # the entry point prints it with its fix
    assert "no vault folder" in missing.exception.message
