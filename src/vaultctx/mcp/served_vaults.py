"""The served-vaults file: which vaults one ``serve --http --vaults FILE`` serves, under which
names, with which scope and whose token.

A team server answers several vaults from one process, each at ``/mcp/<name>`` and each behind
its own bearer token, so a token given to one team opens that team's vault and no other. The
file says where each token comes from (an environment variable or a private token file), never
the token itself: it is a file people copy into tickets and repositories. It is read from the
user's config folder or a path given on the command line, never from inside a vault: a vault's
files travel with it (sync, a cloned repository) and could otherwise grant themselves access.

Everything is checked before a socket is bound (``load_served_vaults``); a problem is a
``VaultctxError`` naming the vault, the key and the fix.

Imports the standard library and the loopback policy only: ``serve --check`` validates the
file without paying for the MCP SDK.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import platformdirs

from vaultctx.config import APP_NAME, read_toml
from vaultctx.errors import VaultctxError
from vaultctx.loopback import policy
from vaultctx.loopback.token import TokenFileError, read_token_file, token_problem

VAULTS_FILE_NAME = "vaults.toml"
MAX_VAULTS = 64
# URL-safe and unambiguous: no "/", no dots (so never "." or ".."), no percent-escapes.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYS = frozenset({"name", "vault", "db", "scope", "token_env", "token_file"})

Scope = Literal["read", "write"]


class ServedVaultsError(VaultctxError):
    """The served-vaults file cannot be trusted or used as written."""


@dataclass(frozen=True)
class ServedVault:
    """One vault of the file, checked: ``vault`` resolved, ``db`` as ``--db`` would take it
    (a path made absolute, a URL untouched, None for the default), the token loaded."""

    name: str
    vault: Path
    db: str | None
    scope: Scope
    token: str
    token_source: str  # "$NAME" or the token file's path: what ``--check`` shows

    @property
    def url_path(self) -> str:
        return f"/mcp/{self.name}"


def default_vaults_file() -> Path:
    """Where the file lives by convention: beside the user's vaultctx.toml."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / VAULTS_FILE_NAME


def load_served_vaults(
    path: Path, *, host: str, env: dict[str, str] | None = None
) -> list[ServedVault]:
    """Every vault of the file at ``path``, checked for serving on ``host`` (beyond loopback each
    token must be strong, ``policy.check_bind``)."""
    environ = dict(os.environ) if env is None else env
    file = _checked_file(path)
    tables = _tables(file)
    served = [_served_vault(table, index, file, environ) for index, table in enumerate(tables)]
    _refuse_overlaps(file, served)
    for vault in served:
        try:
            policy.check_bind(host, vault.token)
        except policy.InsecureBindError as exc:
            raise ServedVaultsError(
                f"vault {vault.name!r} in {file}: {exc.message}",
                f"put a random one in {vault.token_source}, e.g. from `openssl rand -hex 32`, "
                "and give it to that vault's clients",
            ) from exc
    return served


def _checked_file(path: Path) -> Path:
    """The file, resolved, when only this user can change it: it decides who reads which notes."""
    given = path.expanduser()
    try:
        info = given.stat()
    except OSError as exc:
        raise ServedVaultsError(
            f"cannot read the served-vaults file {given} ({exc.strerror})",
            f"create it (one [[vault]] table per vault; see docs/cli-server.md) or pass "
            f"another with --vaults; the usual place is {default_vaults_file()}",
        ) from exc
    if not stat.S_ISREG(info.st_mode):
        raise ServedVaultsError(
            f"the served-vaults file {given} is not a regular file", "pass the TOML file itself"
        )
    if os.name != "nt" and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        raise ServedVaultsError(
            f"refusing the served-vaults file {given}: someone else can change it (owner uid "
            f"{info.st_uid}, mode {stat.S_IMODE(info.st_mode):04o}), and it decides who may "
            "read which notes",
            f"own it yourself and `chmod go-w {given}`",
        )
    return Path(os.path.realpath(given))


def _tables(file: Path) -> list[dict[str, Any]]:
    data = read_toml(file)
    extra = sorted(set(data) - {"vault"})
    if extra:
        raise ServedVaultsError(
            f"{file}: unknown top-level key {extra[0]!r}",
            "the file holds only [[vault]] tables (name, vault, db, scope, token_env or "
            "token_file)",
        )
    tables = data.get("vault")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise ServedVaultsError(
            f"{file}: no [[vault]] tables", "add one [[vault]] table per vault to serve"
        )
    if len(tables) > MAX_VAULTS:
        raise ServedVaultsError(
            f"{file}: {len(tables)} vaults; one server serves at most {MAX_VAULTS}",
            "split them over several servers (each on its own --port)",
        )
    return tables


def _served_vault(
    table: dict[str, Any], index: int, file: Path, env: dict[str, str]
) -> ServedVault:
    where = f"{file}, [[vault]] number {index + 1}"
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ServedVaultsError(
            f"{where}: unknown key {unknown[0]!r}",
            f"use only {', '.join(sorted(_KEYS))}",
        )
    name = table.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ServedVaultsError(
            f"{where}: the name {name!r} cannot be part of a URL path",
            "use 1-64 letters, digits, '-' and '_', starting with a letter or digit",
        )
    where = f"vault {name!r} in {file}"
    vault = _vault_folder(_string(table, "vault", where), file, where)
    db = table.get("db")
    if db is not None:
        db = _db_value(_string(table, "db", where), file, where)
    scope = table.get("scope", "read")
    if scope not in ("read", "write"):
        raise ServedVaultsError(
            f"{where}: scope {scope!r}",
            'write scope = "read" (search and read notes) or "write" (also the tools that '
            "change notes)",
        )
    token, source = _token(table, file, where, env)
    return ServedVault(name, vault, db, scope, token, source)


def _string(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ServedVaultsError(f"{where}: {key} is missing or empty", f'set {key} = "..."')
    return value


def _beside(value: str, file: Path) -> Path:
    """A path of the file: ``~`` expanded, relative ones taken from the file's folder."""
    return file.parent / Path(value).expanduser()


def _vault_folder(value: str, file: Path, where: str) -> Path:
    folder = _beside(value, file)
    if not folder.is_dir():
        raise ServedVaultsError(
            f"{where}: the vault folder {folder} does not exist or is not a folder",
            "fix the path (relative paths are read from the served-vaults file's folder)",
        )
    return Path(os.path.realpath(folder))


def _db_value(value: str, file: Path, where: str) -> str:
    """The index location as ``--db`` takes it: a URL (``postgresql://…``) untouched, a path
    made absolute so it does not depend on where the server was started. A URL with a password
    is refused: this file holds no secret, and ``--check`` prints the location."""
    if "://" not in value:
        return str(_beside(value, file))
    try:
        parts = urlsplit(value)
        # An empty password (``user:@host``, as pgserver writes its URLs) is no password, as
        # libpq and ``--db`` read it; one in the query (``?password=``) is one.
        password = parts.password or parse_qs(parts.query).get("password")
    except ValueError as exc:
        raise ServedVaultsError(f"{where}: db is not a valid URL ({exc})", "fix the URL") from exc
    if password:
        raise ServedVaultsError(
            f"{where}: the db URL carries a password",
            "remove it from the URL and keep it where vaultctx reads database passwords (the "
            "keyring or a PGPASSFILE; see postgres.md)",
        )
    return value


def _token(table: dict[str, Any], file: Path, where: str, env: dict[str, str]) -> tuple[str, str]:
    has_env, has_file = "token_env" in table, "token_file" in table
    if has_env == has_file:
        raise ServedVaultsError(
            f"{where}: give exactly one of token_env and token_file",
            'token_env = "NAME" reads the token from that environment variable, token_file = '
            '"path" from a file readable by you alone (never the token itself in this file)',
        )
    if has_env:
        name = _string(table, "token_env", where)
        if not _ENV_NAME.fullmatch(name):
            raise ServedVaultsError(
                f"{where}: token_env {name!r} is not an environment variable name",
                'give the variable\'s name, e.g. token_env = "HANDBOOK_TOKEN"',
            )
        token = env.get(name, "").strip()
        if not token:
            raise ServedVaultsError(
                f"{where}: the environment variable {name} is not set or empty",
                f"set {name} to the token (e.g. from `openssl rand -hex 32`) before serving",
            )
        source = f"${name}"
    else:
        path = _beside(_string(table, "token_file", where), file)
        token = _read_token(path, where)
        source = str(path)
    problem = token_problem(token)
    if problem:
        raise ServedVaultsError(
            f"{where}: the token from {source} cannot be sent in a header: {problem}",
            "choose printable ASCII without spaces, e.g. from `openssl rand -hex 32`",
        )
    return token, source


def _read_token(path: Path, where: str) -> str:
    """The token of a token file that only this user can read (``read_token_file`` refuses a
    symbolic link, another owner, group or world permissions)."""
    try:
        return read_token_file(path)
    except FileNotFoundError as exc:
        raise ServedVaultsError(
            f"{where}: the token file {path} does not exist",
            f"create it: `(umask 077; openssl rand -hex 32 > {path})`",
        ) from exc
    except TokenFileError as exc:
        raise ServedVaultsError(
            f"{where}: {exc.message}",
            f"make {path} a regular file of yours, not a link, and `chmod 600 {path}`; then "
            "give the token to that vault's clients again if others could read it",
        ) from exc


def _refuse_overlaps(file: Path, served: list[ServedVault]) -> None:
    """Names, vaults, index files and tokens are each one vault's own: a shared token would
    open both vaults, a token file or the served-vaults file inside a vault could be read or
    changed through that vault's tools."""
    _refuse_twice(file, "name", [(v.name.lower(), v.name) for v in served])
    _refuse_twice(file, "vault folder", [(str(v.vault), v.name) for v in served])
    local = [(os.path.realpath(v.db), v.name) for v in served if v.db and "://" not in v.db]
    _refuse_twice(file, "index file", local)
    tokens: dict[str, str] = {}
    for vault in served:
        other = tokens.setdefault(vault.token, vault.name)
        if other != vault.name:
            raise ServedVaultsError(
                f"{file}: vaults {other!r} and {vault.name!r} have the same token, so it "
                "would open both",
                "give each vault a token of its own",
            )
    inside = [(file, "the served-vaults file")] + [
        (Path(os.path.realpath(v.token_source)), f"the token file of {v.name!r}")
        for v in served
        if not v.token_source.startswith("$")
    ]
    for path, what in inside:
        for vault in served:
            if path.is_relative_to(vault.vault):
                raise ServedVaultsError(
                    f"{what} {path} is inside the served vault {vault.name!r} ({vault.vault}), "
                    "whose files its clients can read",
                    f"keep it outside every vault, e.g. in {default_vaults_file().parent}",
                )


def _refuse_twice(file: Path, what: str, keyed: list[tuple[str, str]]) -> None:
    seen: dict[str, str] = {}
    for key, name in keyed:
        if key in seen:
            raise ServedVaultsError(
                f"{file}: vaults {seen[key]!r} and {name!r} have the same {what}",
                f"serve each {what} once, under one name",
            )
        seen[key] = name
