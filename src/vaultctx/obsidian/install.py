"""``vaultctx obsidian install`` / ``uninstall``: the built plugin into ``<vault>/.obsidian``.

The plugin folder sits in a place the vault controls, and a vault can arrive from anywhere (a
synced folder, a cloned repository): a symbolic link at ``.obsidian``, ``plugins``, ``vaultctx``
or one of the files could send our writes, or our deletions, out of the vault. So every name on
the way is checked with ``lstat`` and a link is refused before anything is written or removed.
Only our own files are written or removed; the user's other plugins, their settings and
Obsidian's list of enabled plugins are never touched.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from vaultctx.atomic_write import write_atomically
from vaultctx.errors import VaultctxError

PLUGIN_ID = "vaultctx"
SHIPPED = Path(__file__).parent / "plugin"
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")
SETTINGS_FILE = "data.json"  # Obsidian writes the plugin's settings here (never a token)
ENABLE_HINT = (
    "in Obsidian: Settings → Community plugins → turn off Restricted mode if it is on → "
    "Installed plugins → enable vaultctx"
)


class UnsafePluginPathError(VaultctxError):
    """A link or a non-folder on the plugin's path: nothing was written or removed."""


def plugin_folder(vault: Path) -> Path:
    return vault / ".obsidian" / "plugins" / PLUGIN_ID


def shipped_files() -> dict[str, bytes]:
    """The built plugin as the package ships it."""
    missing = [name for name in PLUGIN_FILES if not (SHIPPED / name).is_file()]
    if missing:
        raise VaultctxError(
            f"this vaultctx has no built Obsidian plugin ({', '.join(missing)} missing)",
            "build it with `npm ci && npm run build` in the repository's obsidian/ folder",
        )
    return {name: (SHIPPED / name).read_bytes() for name in PLUGIN_FILES}


def _checked_vault(vault: Path) -> Path:
    """The vault folder itself, resolved (the user named it); the path below is checked."""
    resolved = vault.expanduser().resolve()
    if not resolved.is_dir():
        raise VaultctxError(f"no vault folder at {vault}", "pass the folder Obsidian opens")
    return resolved


def _refuse_links(vault: Path, *, create: bool) -> Path:
    """Each folder from ``.obsidian`` down to the plugin's: a real folder, created when asked."""
    folder = vault
    for part in (".obsidian", "plugins", PLUGIN_ID):
        folder = folder / part
        try:
            info = folder.lstat()
        except FileNotFoundError:
            if not create:
                return folder
            folder.mkdir(mode=0o755)
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
            raise UnsafePluginPathError(
                f"{folder} is {kind}; refusing to install or remove the plugin through it",
                "replace it with a real folder inside the vault, then run the command again",
            )
    return folder


def _refuse_file_link(path: Path) -> bool:
    """Whether ``path`` exists as a regular file; a link or anything else is refused."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePluginPathError(
            f"{path} is a symbolic link or not a regular file; refusing to replace or remove it",
            "delete it yourself, then run the command again",
        )
    return True


def install(vault: Path) -> list[Path]:
    """Copy the plugin in (replacing an older copy of our files); the files written."""
    files = shipped_files()
    folder = _refuse_links(_checked_vault(vault), create=True)
    for name in files:
        _refuse_file_link(folder / name)
    written = []
    for name, data in files.items():
        write_atomically(folder / name, data, mode=0o644)
        written.append(folder / name)
    return written


def uninstall(vault: Path) -> list[Path]:
    """Remove our files (and the settings Obsidian kept for the plugin); the folder goes when
    nothing else is left in it. The files removed."""
    folder = _refuse_links(_checked_vault(vault), create=False)
    if not folder.exists():
        return []
    ours = [folder / name for name in (*PLUGIN_FILES, SETTINGS_FILE)]
    present = [path for path in ours if _refuse_file_link(path)]
    for path in present:
        os.unlink(path)
    if not any(folder.iterdir()):
        folder.rmdir()
    return present
