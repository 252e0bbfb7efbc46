"""The HTTP server's bearer token: the persistent one in the user config dir, and how strong it is.

``serve --http`` requires a token by default (an unauthenticated local HTTP server lets every
process on the machine, of any user, read the notes). Clients are configured once, so the token
must survive restarts: it is generated on first use, ``secrets.token_urlsafe(32)``, and kept in
``<user config dir>/http-token``, readable by the user only. A token file that someone else could
have planted or read (a symlink, another owner, group or world permissions) is refused rather than
trusted, since it decides who may read the notes.

Imports the standard library and platformdirs only: the CLI checks a command line with it before
paying for the MCP SDK.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import stat
import string
import tempfile
from pathlib import Path
from typing import NamedTuple

import platformdirs

from vaultctx.config import APP_NAME
from vaultctx.errors import VaultctxError

TOKEN_FILE_NAME = "http-token"
TOKEN_BYTES = 32  # what a generated token carries, and the least a token for a remote bind must
# Characters per token by alphabet: 64 hex digits or 43 URL-safe base64 characters hold 32 bytes.
_HEX_DIGITS = frozenset(string.hexdigits)
_MIN_DISTINCT_CHARACTERS = 10  # a random 32-byte token has 14+ even in hex; "aaaa…" has one
_READ_LIMIT = 4096


class TokenFileError(VaultctxError):
    """The persistent token file cannot be trusted or read; the suggestion says how to fix it."""


class StoredToken(NamedTuple):
    token: str
    path: Path
    created: bool


def default_token_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / TOKEN_FILE_NAME


def load_or_create_token(path: Path | None = None) -> StoredToken:
    """The persistent token at ``path`` (default: the user config dir), created if missing."""
    path = path or default_token_path()
    try:
        return StoredToken(read_token_file(path), path, created=False)
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        _create_exclusively(path, token)
    except FileExistsError:  # another server created it first: use theirs
        return StoredToken(read_token_file(path), path, created=False)
    except OSError as exc:
        raise TokenFileError(
            f"cannot create the bearer token file {path} ({exc})",
            "pass a token with --token or VAULTCTX_TOKEN instead",
        ) from exc
    return StoredToken(token, path, created=True)


def read_token_file(path: Path) -> str:
    """The token stored at ``path``; FileNotFoundError if there is none, else TokenFileError
    when the file is not a private regular file of this user or holds no usable token."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if path.is_symlink():  # O_NOFOLLOW fails with ELOOP on a link
            raise _untrusted(path, "is a symbolic link") from exc
        raise TokenFileError(
            f"cannot read the bearer token file {path} ({exc})",
            "make it readable by you alone, or pass a token with --token or VAULTCTX_TOKEN",
        ) from exc
    with os.fdopen(fd, "rb") as handle:
        problem = _ownership_problem(os.fstat(handle.fileno()))
        if problem:
            raise _untrusted(path, problem)
        data = handle.read(_READ_LIMIT)
    try:
        token = data.decode("ascii").strip()
    except UnicodeDecodeError:
        token = ""
    problem = token_problem(token)
    if problem:
        raise TokenFileError(
            f"the bearer token in {path} is not usable ({problem})",
            "delete the file and vaultctx will generate a new one",
        )
    return token


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot travel in an ``Authorization`` header, or None."""
    if not token:
        return "it is empty"
    if not (token.isascii() and token.isprintable()) or any(c.isspace() for c in token):
        return "use printable ASCII without spaces"
    return None


def strength_problem(token: str) -> str | None:
    """Why ``token`` may hold fewer than 32 random bytes, or None.

    Randomness cannot be measured from one sample, so the rule is what a random token of 32 bytes
    looks like: 64 characters when written in hex digits only, 43 in any richer alphabet (URL-safe
    base64), and not mostly one repeated character.
    """
    hex_only = set(token) <= _HEX_DIGITS
    needed = math.ceil(TOKEN_BYTES * 8 / (4 if hex_only else 6))
    if len(token) < needed:
        alphabet = "hex digits" if hex_only else "characters"
        return f"{len(token)} {alphabet}; {TOKEN_BYTES} random bytes take at least {needed}"
    if len(set(token)) < _MIN_DISTINCT_CHARACTERS:
        return f"only {len(set(token))} different characters; it does not look random"
    return None


def _ownership_problem(info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if os.name == "nt":  # POSIX owners and modes do not apply; the profile folder is private
        return None
    if info.st_uid != os.getuid():
        return f"belongs to user id {info.st_uid}, not to you ({os.getuid()})"
    if info.st_mode & 0o077:
        return f"is readable or writable by others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def _untrusted(path: Path, problem: str) -> TokenFileError:
    return TokenFileError(
        f"refusing the bearer token file {path}: it {problem}; someone else may know or have "
        "chosen the token",
        "delete it (vaultctx then generates a new one, mode 0600) and update your clients",
    )


def _create_exclusively(path: Path, token: str) -> None:
    """Write the token to a private temporary file, then link it into place.

    ``os.link`` fails if anything exists at ``path`` (a planted symlink included), and a reader
    never sees a half-written token, which ``O_CREAT | O_EXCL`` followed by a write would allow.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
