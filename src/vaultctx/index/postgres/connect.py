"""Reaching a PostgreSQL server: which one (a ``postgresql://`` URL), with which password, and
what to tell the user when it does not work.

A password never travels on the command line: there it would sit in shell history and in every
process listing. It comes, in this order, from libpq's own password file (``PGPASSFILE`` or
``~/.pgpass``, which libpq reads itself: we pass no password unless the server asked for one that
libpq could not find), then from the OS keyring (service ``vaultctx-postgres``, stored by
``vaultctx db password set``), and libpq's other sources (``PGPASSWORD``) stay as they are. A URL in
the user's own settings file may carry one only while that file is private (mode 0600).

psycopg is imported on first use, so a SQLite user never loads it. Every failure a user can hit
becomes a ``PostgresError`` naming the server, the user or the database at fault and the fix; no
message ever contains the password (tests/security/test_postgres_credentials.py).
"""

from __future__ import annotations

import getpass
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlencode

from vaultctx.db_location import POSTGRES_SCHEMES, is_postgres_url
from vaultctx.index.database import IndexUnreachableError
from vaultctx.os_keyring import delete_password, keyring_backend, read_password, write_password

if TYPE_CHECKING:
    import psycopg

KEYRING_SERVICE = "vaultctx-postgres"
DEFAULT_CONNECT_TIMEOUT = 10
APPLICATION_NAME = "vaultctx"
# halfvec, the half-precision vector type the store keeps its vectors in, came with 0.7.
MIN_PGVECTOR = (0, 7)
SCHEMES = POSTGRES_SCHEMES
DOCS = "docs/postgres.md"
_LOCAL_HOSTS = ("", "localhost", "127.0.0.1", "::1")
# Keyring usernames whose server asked for a password libpq could not find: later connections in
# this process send the keyring's at once instead of asking the server twice.
_KEYRING_FIRST: set[str] = set()
_WARNED: set[str] = set()


class PostgresError(IndexUnreachableError):
    """A PostgreSQL server cannot be used; the suggestion says what to do. An index error like
    any other, so every command that opens an index reports it the same way."""


class PostgresNotInstalled(PostgresError):
    """psycopg, the PostgreSQL driver, is not installed (the ``postgres`` extra)."""


class PostgresUrlError(PostgresError):
    """The URL is not one vaultctx accepts: malformed, or carrying a password where it must not."""


class ServerUnreachable(PostgresError):
    """Nothing answered at the address (down, wrong host or port, a firewall, a timeout)."""


class AuthenticationFailed(PostgresError):
    """The server refused the user: no password found, a wrong one, or an unknown role."""


class DatabaseMissing(PostgresError):
    """The server has no database of that name."""


class TlsFailed(PostgresError):
    """The TLS settings could not be met (the server offers none, or a certificate is wrong)."""


class PgvectorMissing(PostgresError):
    """The database lacks the pgvector extension, or has one older than ``MIN_PGVECTOR``."""


@dataclass(frozen=True)
class PostgresTarget:
    """A server and database to connect to, as parsed from a URL.

    ``options`` are the URL's other libpq settings (``sslmode``, ``sslrootcert``, ``sslcert``,
    ``sslkey``, ``connect_timeout``, ...) passed through unchanged. ``password`` is set only when
    a private settings file gave one; it is left out of ``repr`` and ``display``.
    """

    host: str = ""
    port: str = ""
    user: str = ""
    dbname: str = ""
    options: tuple[tuple[str, str], ...] = ()
    password: str | None = field(default=None, repr=False, compare=False)

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    def display(self) -> str:
        """The URL without any password, for messages and ``status``."""
        host = self.host if not self.host.startswith("/") else ""
        netloc = (quote(self.user, safe="") + "@" if self.user else "") + _url_host(host)
        if self.port:
            netloc += f":{self.port}"
        query = [("host", self.host)] if self.host.startswith("/") else []
        query += list(self.options)
        tail = f"?{urlencode(query, safe='/')}" if query else ""
        return f"postgresql://{netloc}/{quote(self.dbname, safe='')}{tail}"

    def address(self) -> str:
        """``host:port`` as libpq will use it, for "nothing answered at …" messages."""
        host = self.host or os.environ.get("PGHOST", "") or "localhost"
        return f"{host}:{self.port or os.environ.get('PGPORT', '') or '5432'}"

    def effective_user(self) -> str:
        """The user libpq will log in as: the URL's, ``PGUSER``, else the operating system's."""
        if self.user or os.environ.get("PGUSER"):
            return self.user or os.environ["PGUSER"]
        try:
            return getpass.getuser()
        except Exception:  # no login name at all (a container without passwd entry)
            return ""

    def keyring_username(self) -> str:
        """``user@host:port/db``: the name the password is stored under in the keyring."""
        dbname = self.dbname or os.environ.get("PGDATABASE", "") or self.effective_user()
        return f"{self.effective_user()}@{self.address()}/{dbname}"

    def client_flags(self) -> str:
        """`` -h HOST -p PORT`` for createdb and psql, as far as the URL names them."""
        flags = f" -h {self.host}" if self.host else ""
        return flags + (f" -p {self.port}" if self.port else "")

    def is_local(self) -> bool:
        """A Unix socket or the loopback address: nothing crosses a network. ``hostaddr``, when
        given, is where libpq connects (an SSH tunnel's local end), so it decides."""
        named = self.option("hostaddr") or self.host or os.environ.get("PGHOST", "")
        hosts = named.split(",")
        return all(h.startswith("/") or h.strip().lower() in _LOCAL_HOSTS for h in hosts)

    def tls_warning(self) -> str | None:
        """The one line to print when TLS is switched off towards another machine."""
        if self.option("sslmode") != "disable" or self.is_local():
            return None
        return (
            f"warning: sslmode=disable: the connection to {self.address()} is not encrypted; "
            "passwords and notes cross the network in clear (see docs/postgres.md, TLS)"
        )


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else quote(host, safe=",")


def parse_target(
    url: str, *, from_command_line: bool, config_file: Path | None = None
) -> PostgresTarget:
    """The target a URL names, refusing a password where it would leak.

    ``from_command_line``: the URL came from a flag or the environment (shell history, process
    listings); any password in it is refused. Otherwise ``config_file`` is the settings file it
    was read from: a password there is accepted only while that file is private (no permission
    bits for group or others), as ``~/.pgpass`` is.
    """
    cleaned = url.strip()
    if not is_postgres_url(cleaned):
        raise PostgresUrlError(
            "a PostgreSQL address must start with postgresql:// (or postgres://)",
            f"write it as postgresql://USER@HOST:5432/DATABASE (see {DOCS})",
        )
    params = _conninfo(cleaned)
    ports = params.get("port", "").split(",")
    if any(port and not (port.isdigit() and 0 < int(port) < 65536) for port in ports):
        raise PostgresUrlError(
            f"{params['port']!r} is not a port number",
            f"write the port as a number, e.g. postgresql://USER@HOST:5432/DATABASE (see {DOCS})",
        )
    password = params.pop("password", None) or None
    target = PostgresTarget(
        host=params.pop("host", ""),
        port=params.pop("port", ""),
        user=params.pop("user", ""),
        dbname=params.pop("dbname", ""),
        options=tuple(sorted(params.items())),
    )
    if password is not None:
        _check_password_source(target, from_command_line, config_file)
    return PostgresTarget(
        target.host, target.port, target.user, target.dbname, target.options, password
    )


def command_line_url(url: str) -> str:
    """``url`` as a ``--db`` to write into advice or an installed hook: libpq's reading of it,
    without a password (one there is refused, as on any command line)."""
    return parse_target(url, from_command_line=True).display()


def _conninfo(url: str) -> dict[str, str]:
    """psycopg's own URL parser (libpq's rules), its complaint without any password in it."""
    _psycopg()
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError: libpq's parser refused it
        raise PostgresUrlError(
            f"not a valid PostgreSQL URL ({scrub(str(exc).strip(), *_url_passwords(url))})",
            f"write it as postgresql://USER@HOST:5432/DATABASE?sslmode=require (see {DOCS})",
        ) from None
    return {key: str(value) for key, value in params.items() if value is not None}


def _url_passwords(url: str) -> list[str]:
    """Whatever in ``url`` could be a password, as written and decoded, found without a parser:
    libpq quotes the offending part of a URL it refuses, and a URL that fails to parse is
    exactly when a parser cannot be trusted to find the password."""
    rest = url.split("://", 1)[-1]
    authority = re.split(r"[/?]", rest, maxsplit=1)[0]
    found = []
    if "@" in authority and ":" in authority.rsplit("@", 1)[0]:
        found.append(authority.rsplit("@", 1)[0].split(":", 1)[1])
    query = rest.split("?", 1)[1] if "?" in rest else ""
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key.strip().lower() == "password" and value:
            found.append(value)
    return [text for value in found for text in {value, unquote(value)} if text]


def scrub(text: str, *passwords: str | None) -> str:
    """``text`` with every occurrence of each password masked: a last guard on any message."""
    for password in sorted(filter(None, passwords), key=len, reverse=True):
        text = text.replace(password, "***")
    return text


def _check_password_source(
    target: PostgresTarget, from_command_line: bool, config_file: Path | None
) -> None:
    fix = (
        f"remove the password from the URL and run `vaultctx db password set "
        f"{target.display()}` (the OS keyring), or put it in a PGPASSFILE (see {DOCS})"
    )
    if from_command_line or config_file is None:
        raise PostgresUrlError(
            f"the URL for {target.display()} carries a password on the command line, where it "
            "stays in shell history and process listings",
            fix,
        )
    if os.name == "nt":
        return  # no mode bits: the user's profile folder is private by default
    try:
        mode = config_file.stat().st_mode
    except OSError:
        mode = stat.S_IRWXG | stat.S_IRWXO  # unreadable now: treat as not private
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise PostgresUrlError(
            f"{config_file} holds a PostgreSQL password but other users may read it "
            f"(mode {stat.S_IMODE(mode):o})",
            f"run `chmod 600 {config_file}`, or {fix}",
        )


def stored_password(target: PostgresTarget) -> str | None:
    """The keyring's password for ``target``; None without a keyring or an entry."""
    backend = keyring_backend()
    if backend is None:
        return None
    return read_password(backend, KEYRING_SERVICE, target.keyring_username())


def store_password(target: PostgresTarget, password: str) -> str:
    """Keep ``password`` for ``target`` in the OS keyring; returns the keyring's name."""
    if not password:
        raise PostgresError("the password is empty", "type the password when asked")
    return write_password(
        keyring_backend(),
        KEYRING_SERVICE,
        target.keyring_username(),
        password,
        error=PostgresError,
        what="the password",
        otherwise=f"put it in a PGPASSFILE (see {DOCS}, where the password comes from)",
    )


def forget_password(target: PostgresTarget) -> bool:
    """Remove ``target``'s password from the keyring; False when none was stored."""
    return delete_password(keyring_backend(), KEYRING_SERVICE, target.keyring_username())


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise PostgresNotInstalled(
            "PostgreSQL support is not installed (the psycopg package is missing)",
            "pip install 'vaultctx[postgres]'",
        ) from None
    return psycopg


def connect_params(target: PostgresTarget, password: str | None = None) -> dict[str, str]:
    """What psycopg is given: the URL's settings unchanged, plus a bounded connect timeout and
    our application name unless the URL chose its own; a password only when one is passed."""
    params = {"connect_timeout": str(DEFAULT_CONNECT_TIMEOUT), "application_name": APPLICATION_NAME}
    params.update(target.options)
    for key in ("host", "port", "user", "dbname"):
        if getattr(target, key):
            params[key] = getattr(target, key)
    if password is not None:
        params["password"] = password
    return params


def connect(
    target: PostgresTarget, *, autocommit: bool = False, check_vector: bool = True, **kwargs: Any
) -> psycopg.Connection[Any]:
    """An open connection to ``target``, or a ``PostgresError`` saying what to fix.

    ``check_vector`` makes sure the database has pgvector ``MIN_PGVECTOR`` or newer, creating
    the extension when the role may (a superuser); ``kwargs`` go to ``psycopg.connect`` as they
    are (``row_factory``, ``prepare_threshold``, ...).
    """
    driver = _psycopg()
    warning = target.tls_warning()
    if warning and target.address() not in _WARNED:
        _WARNED.add(target.address())
        print(warning, file=sys.stderr)
    conn: psycopg.Connection[Any] = _open(driver, target, autocommit, kwargs)
    if check_vector:
        try:
            require_pgvector(conn, target)
        except BaseException:
            conn.close()
            raise
    return conn


def _open(driver: Any, target: PostgresTarget, autocommit: bool, kwargs: dict[str, Any]) -> Any:
    """Connect as libpq would on its own; only when the server asked for a password that libpq
    found nowhere (no PGPASSWORD, no PGPASSFILE line) try again with the keyring's."""
    name = target.keyring_username()
    password = target.password
    if password is None and name in _KEYRING_FIRST:
        password = stored_password(target)
    for attempt in range(2):
        try:
            return driver.connect(
                **connect_params(target, password), autocommit=autocommit, **kwargs
            )
        except driver.OperationalError as exc:
            asked = "no password supplied" in str(exc)
            if asked and password is None and attempt == 0:
                password = stored_password(target)
                if password is not None:
                    _KEYRING_FIRST.add(name)
                    continue
            raise explain(exc, target, password) from None
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def explain(exc: Exception, target: PostgresTarget, password: str | None = None) -> PostgresError:
    """psycopg's connection failure as the error a user can act on (never with the password)."""
    text = scrub(str(exc), password, target.password)
    detail = (text.rsplit("failed:", 1)[-1].strip().splitlines() or [text])[0]
    for pattern, kind, message, fix in _failures(target, detail):
        if re.search(pattern, text):
            return kind(message, fix)
    return ServerUnreachable(
        f"cannot reach PostgreSQL at {target.address()} ({detail})",
        "is PostgreSQL running there, and are the host and port in the URL right?",
    )


def _failures(
    target: PostgresTarget, detail: str
) -> list[tuple[str, type[PostgresError], str, str]]:
    """(what libpq or the server says, the error, its message, its fix), first match first;
    libpq's own words, as a connection failure carries no SQLSTATE."""
    user, server = target.effective_user(), target.address()
    dbname = target.dbname or os.environ.get("PGDATABASE", "") or user
    set_password = (
        f"store it with `vaultctx db password set {target.display()}` (OS keyring) or add a "
        f"line for it to your PGPASSFILE (~/.pgpass; see {DOCS})"
    )
    return [
        (
            "no password supplied",
            AuthenticationFailed,
            f"{server} asks for the password of user {user!r} and none was found "
            "(no PGPASSFILE line, no keyring entry)",
            set_password,
        ),
        (
            "authentication failed",
            AuthenticationFailed,
            f"{server} refused the password of user {user!r}",
            f"check the user and password, then {set_password}",
        ),
        (
            'role ".*" does not exist',
            AuthenticationFailed,
            f"{server} has no user {user!r}",
            f"create it (`createuser --pwprompt {user}`) or put the right user in the URL",
        ),
        (
            'database ".*" does not exist',
            DatabaseMissing,
            f"{server} has no database {dbname!r}",
            f"create it once: `createdb{target.client_flags()} -O {user} {dbname}` (see {DOCS})",
        ),
        (
            "SSL|certificate",
            TlsFailed,
            f"TLS to {server} failed ({detail})",
            f"check sslmode, sslrootcert, sslcert and sslkey in the URL (see {DOCS}, TLS)",
        ),
        ("FATAL", PostgresError, f"{server} refused the connection ({detail})", f"see {DOCS}"),
    ]


def _version(text: str | None) -> tuple[int, ...]:
    parts = []
    for part in (text or "").split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def require_pgvector(conn: Any, target: PostgresTarget) -> str:
    """The database's pgvector version, after creating the extension where the role may; a
    ``PgvectorMissing`` with the exact statement to run otherwise."""
    installed, available, superuser = conn.execute(
        "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector'),"
        " (SELECT default_version FROM pg_available_extensions WHERE name = 'vector'),"
        " (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
    ).fetchone()
    dbname = conn.info.dbname
    sql = f'psql{target.client_flags()} -d {dbname} -c "CREATE EXTENSION vector;"'
    if installed is None and available is None:
        raise PgvectorMissing(
            f"the PostgreSQL server at {target.address()} has no pgvector installed",
            f"install pgvector ≥ 0.7 on the server (e.g. the postgresql-NN-pgvector package), "
            f"then run once as a superuser: {sql}",
        )
    if installed is None and not superuser:
        conn.rollback()
        raise PgvectorMissing(
            f"the database {dbname!r} has no pgvector extension, and only a superuser may add it",
            f"run once as a superuser: {sql}",
        )
    if installed is None:
        installed = _create_pgvector(conn)
    if not conn.autocommit:
        conn.commit()
    if _version(installed) < MIN_PGVECTOR:
        raise PgvectorMissing(
            f"the database {dbname!r} has pgvector {installed}; vaultctx needs "
            f"{'.'.join(map(str, MIN_PGVECTOR))} or newer (half-precision vectors)",
            f"upgrade pgvector on the server, then run: psql{target.client_flags()} -d {dbname} "
            '-c "ALTER EXTENSION vector UPDATE;"',
        )
    return str(installed)


def _create_pgvector(conn: Any) -> str | None:
    """``CREATE EXTENSION`` as a superuser; two processes doing it at once race on the catalog,
    and the loser finds the winner's extension."""
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except _psycopg().errors.UniqueViolation:
        conn.rollback()
    found = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return None if found is None else str(found[0])


@dataclass(frozen=True)
class ServerFacts:
    """What ``status`` and ``doctor`` show about the server behind a PostgreSQL index."""

    server_version: str
    pgvector_version: str | None
    tls: bool
    tls_version: str | None

    def as_dict(self) -> dict[str, str | bool | None]:
        return {
            "server_version": self.server_version,
            "pgvector_version": self.pgvector_version,
            "tls": self.tls,
            "tls_version": self.tls_version,
        }

    def summary(self) -> str:
        """One line: ``PostgreSQL 18.1, pgvector 0.8.5, TLS (TLSv1.3)``."""
        vector = f"pgvector {self.pgvector_version}" if self.pgvector_version else "no pgvector"
        tls = f"TLS ({self.tls_version})" if self.tls else "no TLS"
        return f"PostgreSQL {self.server_version}, {vector}, {tls}"


def server_facts(conn: Any) -> ServerFacts:
    """The server version, pgvector's version in this database and whether TLS is in use; the
    caller's transaction, if one is open, is left as it was."""
    idle = conn.info.transaction_status == 0  # psycopg.pq.TransactionStatus.IDLE
    version, vector = conn.execute(
        "SELECT current_setting('server_version'),"
        " (SELECT extversion FROM pg_extension WHERE extname = 'vector')"
    ).fetchone()
    if idle and not conn.autocommit:
        conn.rollback()  # only our own statement was in it
    pgconn = conn.pgconn
    protocol = pgconn.ssl_attribute(b"protocol") if pgconn.ssl_in_use else None
    return ServerFacts(
        server_version=str(version),
        pgvector_version=None if vector is None else str(vector),
        tls=bool(pgconn.ssl_in_use),
        tls_version=protocol.decode() if protocol else None,
    )
