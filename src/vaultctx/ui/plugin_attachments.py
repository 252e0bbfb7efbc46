"""What the Obsidian plugin attaches to a question: files of the vault by their path (a note or
an image dragged from Obsidian's file explorer) and files from disk by their bytes (dropped from
the desktop or picked in a file dialog).

A vault path from the plugin is hostile input, as a tool's is: a note is read through the vault
(``note_attachment``: confined, ignored notes refused, credentials scrubbed, as ``--note`` is);
any other file must resolve, symbolic links followed, to a served file inside the vault before
it is read. A file from disk is the user's own pick, sent whole like the Chat page's uploads and
read the same way (``uploads``: its base name only, in a private temporary folder).
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from vaultctx.errors import VaultctxError
from vaultctx.ui.uploads import MAX_REQUEST_BYTES, attachments_from_bytes, check_count

if TYPE_CHECKING:
    from vaultctx.agent.attachments import Attachment
    from vaultctx.api import Vault

# The Chat page's upload limit, in base64 (4 characters for 3 bytes), plus the question.
MAX_ENCODED_BYTES = MAX_REQUEST_BYTES // 3 * 4 + 512 * 1024
NOTE_SUFFIX = ".md"


def _refused(what: str) -> VaultctxError:
    return VaultctxError(f"the attachments are not valid: {what}", "update the vaultctx plugin")


def _list(body: dict[str, Any], name: str) -> list[Any]:
    value = body.get(name, [])
    if not isinstance(value, list):
        raise _refused(f"`{name}` must be a list")
    return value


def disk_files(body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The files from disk as (name, bytes), decoded strictly."""
    decoded = []
    for item in _list(body, "files"):
        if not isinstance(item, dict):
            raise _refused("each file must be an object with `name` and `data`")
        name, data = item.get("name"), item.get("data")
        if not isinstance(name, str) or not isinstance(data, str):
            raise _refused("each file must have a `name` and base64 `data`")
        try:
            decoded.append((name, base64.b64decode(data, validate=True)))
        except (binascii.Error, ValueError):
            raise _refused(f"{name[:120]!r} is not base64") from None
    return decoded


def vault_attachment(vault: Vault, path: str) -> Attachment:
    """The vault's file at ``path`` (vault-relative), confined and checked before it is read."""
    from vaultctx.agent.attachments import load_attachment, note_attachment
    from vaultctx.vault.paths import resolve_vault_attachment
    from vaultctx.vault.scanner import load_ignore_rules

    if path.lower().endswith(NOTE_SUFFIX):
        return note_attachment(vault, path)
    rules, _ = load_ignore_rules(vault.config.vault, vault.config.settings.ignore)
    located = resolve_vault_attachment(vault.config.vault, path, rules)
    if not located.absolute.is_file():
        raise VaultctxError(f"no file at {located.relative} in the vault", "drag the file in again")
    return load_attachment(located.absolute)


def plugin_attachments(vault: Vault, body: dict[str, Any]) -> list[Attachment]:
    """The question's attachments: the vault's files first, then those from disk."""
    paths = _list(body, "vault_files")
    if not all(isinstance(path, str) for path in paths):
        raise _refused("`vault_files` must be vault paths")
    files = disk_files(body)
    check_count(len(paths) + len(files))
    return [vault_attachment(vault, path) for path in paths] + attachments_from_bytes(files)
