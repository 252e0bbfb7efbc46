"""Confine a user-supplied path (from an MCP client, later an agent tool) to the vault.

The path usually comes from a language model, which a note's own text can prompt-inject, so it is
treated as hostile: every spelling that could reach outside the vault is refused before the
filesystem is touched (``..`` in any encoding or separator style, absolute and Windows drive or
UNC paths, NUL and control characters), and the resolved location is checked again so a symlink
cannot lead out. Inside the vault, what the indexer never reads (``.obsidian/``, ``.git/``,
``.indexignore`` matches, non-note file types) is not served either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from vaultctx.vault.errors import VaultError
from vaultctx.vault.scanner import (
    IgnoreRules,
    unserved_reason,
    withheld_reason,
)

PATH_SUGGESTION = (
    "pass a vault-relative path with forward slashes, such as `folder/Note.md`, "
    "as shown in search or list results"
)
MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255  # every common file system's limit for one file or folder name
# Enough to undo any realistic stack of percent-encodings (`%252e` is `.` encoded twice).
_MAX_DECODING_ROUNDS = 4

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class VaultAccessError(VaultError):
    """A request for something in the vault that cannot be served; ``suggestion`` tells the
    caller (often a model) what to ask for instead."""


class UnsafePathError(VaultAccessError):
    """The path could reach outside the vault, or into files vaultctx never serves."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"path refused: {reason} ({_shown(path)})", PATH_SUGGESTION)
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class VaultPath:
    """A path proven to be inside the vault: ``relative`` as the index spells it, ``absolute``
    with symlinks resolved (the file actually read)."""

    relative: str
    absolute: Path


def normalize_vault_path(raw: str) -> str:
    """``raw`` as a canonical vault-relative path (``a/b.md``), or ``UnsafePathError``.

    Only string checks, no filesystem access, so it is also the check for folder filters.
    Backslashes count as separators (a Windows client may send ``notes\\a.md``), which turns
    every backslash traversal into a plain one. Percent-encoded forms are decoded only to be
    checked: a note may really be called ``100%25 done.md``, so the raw spelling is what is kept.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise UnsafePathError(str(raw), "empty path")
    if len(raw) > MAX_PATH_CHARS:
        raise UnsafePathError(raw, f"longer than {MAX_PATH_CHARS} characters")
    decoded = raw
    for _ in range(_MAX_DECODING_ROUNDS):
        _check_spelling(raw, decoded)
        once_more = unquote(decoded) if "%" in decoded else decoded
        if once_more == decoded:
            break
        decoded = once_more
    else:
        raise UnsafePathError(raw, "percent-encoded more times than any real file name is")
    parts = [part for part in raw.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts:
        raise UnsafePathError(raw, "names the vault folder itself, not a note")
    _check_name_lengths(raw, parts)
    return "/".join(parts)


def _check_name_lengths(raw: str, parts: list[str]) -> None:
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in parts):
        raise UnsafePathError(raw, f"has a file or folder name longer than {MAX_NAME_BYTES} bytes")


def resolve_indexed_file(vault: Path, indexed: str, rules: IgnoreRules) -> VaultPath:
    """The file at ``indexed``, a path exactly as the index stores it (read from the index, not
    from a caller), taken literally: a note may be named ``C# notes.md``, ``back\\slash.md`` or
    hold a tab, which the spelling rules of ``normalize_vault_path`` would refuse or reinterpret.
    Confinement is the same: no parent steps, and the resolved file must be inside the vault and
    served."""
    parts = indexed.split("/")
    if "\x00" in indexed or indexed.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise UnsafePathError(indexed, "is not a path the index could hold")
    _check_name_lengths(indexed, parts)
    return _confined(vault, indexed, indexed, rules)


def _check_spelling(raw: str, candidate: str) -> None:
    """Refuse ``candidate`` (``raw`` or one of its decodings) if it could leave the vault."""
    encoded = "" if candidate is raw else " once URL-decoded"
    if _CONTROL.search(candidate):
        raise UnsafePathError(raw, f"contains a NUL byte or control character{encoded}")
    leaving = _way_out(candidate)
    if leaving is not None:
        raise UnsafePathError(raw, f"{leaving}{encoded}")


def _way_out(candidate: str) -> str | None:
    """How ``candidate``, as spelled, reaches outside the vault; None if it does not."""
    slashed = candidate.replace("\\", "/")
    if slashed.startswith("/"):
        return "is a UNC network path" if slashed.startswith("//") else "is an absolute path"
    if _DRIVE.match(slashed):
        return "is a Windows drive path"
    for part in slashed.split("/"):
        # Windows drops trailing dots and spaces, so `...` and `.. ` also mean the parent.
        if part not in ("", ".") and not part.strip(". "):
            return f"goes up to a parent folder with `{part}`"
    return None


def leaves_vault(raw: str) -> bool:
    """Whether ``raw`` is spelled to reach outside the vault (absolute, a drive or UNC path, a
    parent step), as given or URL-decoded: ``normalize_vault_path``'s own rule, for a caller
    that words the refusal itself (the agent's tool contract) before the full confinement."""
    decoded = raw
    for _ in range(_MAX_DECODING_ROUNDS):
        if _way_out(decoded) is not None:
            return True
        once_more = unquote(decoded) if "%" in decoded else decoded
        if once_more == decoded:
            return False
        decoded = once_more
    return True


def resolve_vault_file(vault: Path, raw: str, rules: IgnoreRules) -> VaultPath:
    """The file ``raw`` names inside ``vault``, if vaultctx may serve it; it need not exist yet.

    Both the path as given and its symlink-resolved target must stay inside the vault and pass the
    index's exclusion rules, so an in-vault link into ``.obsidian/`` is refused as well.
    """
    return _confined(vault, raw, normalize_vault_path(raw), rules)


def resolve_vault_attachment(vault: Path, raw: str, rules: IgnoreRules) -> VaultPath:
    """A file of any type inside ``vault`` (an image or a PDF a note embeds, to attach to a
    question): ``resolve_vault_file``'s confinement and exclusions, without its note types."""
    return _confined(vault, raw, normalize_vault_path(raw), rules, _check_not_excluded)


def _confined(
    vault: Path,
    raw: str,
    relative: str,
    rules: IgnoreRules,
    check: Callable[[str, str, IgnoreRules], None] | None = None,
) -> VaultPath:
    check = check or _check_served
    root = Path(os.path.realpath(vault))
    target = Path(os.path.realpath(root.joinpath(*relative.split("/"))))
    if target != root and root not in target.parents:
        raise UnsafePathError(raw, "leads outside the vault through a symbolic link")
    real_relative = target.relative_to(root).as_posix()
    check(raw, relative, rules)
    if real_relative != relative:
        check(raw, real_relative, rules)
    return VaultPath(relative, target)


def is_vault_folder(vault: Path, relative: str) -> bool:
    """Whether the normalized ``relative`` is a folder inside the vault, symlinks resolved."""
    root = Path(os.path.realpath(vault))
    target = Path(os.path.realpath(root.joinpath(*relative.split("/"))))
    try:
        return root in target.parents and target.is_dir()
    except OSError:  # a name too long for this file system, a path through a file, …
        return False


def _check_not_excluded(raw: str, relative: str, rules: IgnoreRules) -> None:
    withheld = withheld_reason(relative, rules)
    if withheld is not None:
        raise UnsafePathError(raw, withheld)


def _check_served(raw: str, relative: str, rules: IgnoreRules) -> None:
    reason = unserved_reason(relative, rules)
    if reason is not None:
        raise UnsafePathError(raw, reason)


def _shown(path: str) -> str:
    """The refused path as it can be shown safely: control characters escaped, length capped."""
    escaped = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", path)
    return escaped if len(escaped) <= 200 else escaped[:200] + "…"
