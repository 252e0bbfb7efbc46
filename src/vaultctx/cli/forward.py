"""Send a CLI command to the running server for its vault, or say it must run here.

``vaultctx search`` in a fresh process pays for Python, typer, the index and the query models on
every call; a running ``vaultctx serve --http`` (or ``vaultctx ui``) has them loaded. So before
the CLI imports anything heavy, ``forward`` looks for the server recorded beside the command's
index (``loopback.server_link``), sends it the command line, and prints the server's answer: the
output the same command renders in-process, since the server runs that very command
(``cli.served``). Anything unusual (no record, a dead process, a refused connection, a wrong
token, a server for another index or of another protocol, an answer that is not one) returns
None at once, and the command runs in-process as if no server existed.

Only the standard library (and the stdlib-only ``config`` and ``server_link``) is imported here:
this runs before typer is.

The token goes to loopback addresses only, to a listener owned by this user where the system
can tell (Linux's ``/proc/net/tcp``), and the answer read is bounded.
"""

from __future__ import annotations

import io
import ipaddress
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vaultctx.errors import VaultctxError
from vaultctx.loopback import server_link
from vaultctx.loopback.server_link import CLI_PATH

if TYPE_CHECKING:
    from collections.abc import Callable

PROTOCOL = 1
FORWARDED = frozenset({"search", "context", "links", "status", "hook"})
# Run by the engine alone (``serve --http`` answers within its 30 s and holds its tools' lock):
# the engine streams the progress and keeps the index's watcher out of the way meanwhile.
ENGINE_FORWARDED = frozenset({"index"})
# ``hooks.claude.GUARD_ENV``: a hook started from inside a hook does nothing, so it is not sent.
HOOK_GUARD_ENV = "VAULTCTX_HOOK_ACTIVE"
# A hook's event (its stdin) travels in the request, which the engine reads up to 256 KB; a
# larger one (a long test log for ``hook compress``) is answered in-process.
MAX_HOOK_EVENT_CHARS = 192 * 1024
# The environment the output depends on: rich's colour, width and terminal detection, and the
# defaults of --vault and --db. Nothing else of the user's environment leaves the process.
CLIENT_ENV = (
    "COLUMNS",
    "LINES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "VAULT_PATH",
    "DB_PATH",
)
DISABLE_ENV = "VAULTCTX_NO_SERVER"
VERBOSE_ENV = "VAULTCTX_VERBOSE"
CONNECT_TIMEOUT = 0.5
ANSWER_TIMEOUT = 30.0  # a stuck server: the command then runs in-process
MAX_ANSWER_BYTES = 32 * 1024 * 1024
# Options whose output the server cannot reproduce, or that read the client's files.
NOT_FORWARDED = frozenset({"--help", "--batch", "--translate", "--install-completion"})


def forward(argv: list[str]) -> int | None:
    """Run ``argv`` (without the program name) on the server and return its exit code after
    printing its output; None when the command must run in-process."""
    if not argv or argv[0] not in FORWARDED | ENGINE_FORWARDED:
        return None
    try:
        answer = _ask_server(argv)
    except KeyboardInterrupt:  # as cli.main.run says it (closing the connection on the way)
        interrupted = "\x1b[1;31merror:\x1b[0m" if _isatty(sys.stderr) else "error:"
        print(f"{interrupted} interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # anything at all: the in-process run is always the fallback
        note(f"running in-process ({type(exc).__name__}: {exc})")
        return None
    if answer is None:
        return None
    out, err, code = answer
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    sys.stderr.flush()
    return code


def note(message: str) -> None:
    """A --verbose style note: the CLI has no such flag, so an environment variable asks."""
    if os.environ.get(VERBOSE_ENV, "").strip() not in ("", "0"):
        print(f"vaultctx: {message}", file=sys.stderr)


def located_request(argv: list[str]) -> tuple[dict[str, Any], Path, Path | str] | None:
    """The request every forwarded command starts from (its command line, working folder, the
    environment its output depends on, the terminal), with the vault and index it names; None
    when they cannot be found (the in-process run says what is wrong, in its own words)."""
    located = _locate_index(*_vault_and_db(argv[1:]))
    if located is None:
        return None
    vault, db = located
    request = {
        "argv": argv,
        "cwd": os.getcwd(),
        "env": {name: os.environ[name] for name in CLIENT_ENV if name in os.environ},
        "terminal": _terminal(),
    }
    return request, vault, db


def _ask_server(argv: list[str]) -> tuple[str, str, int] | None:
    if declined_option(argv):
        return None
    event = None
    if argv[0] == "hook":
        if os.environ.get(HOOK_GUARD_ENV):
            return None
        event = _hook_event()
        if event is None:
            return None
    located = located_request(argv)
    if located is None:
        return None
    request, vault, db = located
    if event is not None:
        request["stdin"] = event
    # A PostgreSQL index (a URL) is answered by the engine, not looked for beside a file.
    server = served(vault, db) if argv[0] in FORWARDED and isinstance(db, Path) else None
    if server is None:
        return _ask_engine(request, vault, db)
    data = server.post(request)
    return None if data is None else _answer(data, server.url)


def _hook_event() -> str | None:
    """The hook event on stdin, which is then read again from memory if the hook runs here;
    None when it is too large to send."""
    text = sys.stdin.read()
    sys.stdin = io.StringIO(text)
    return text if len(text) <= MAX_HOOK_EVENT_CHARS else None


# What starts an engine once the command has answered (``start_engine_if_wanted``): the
# engine's start for a missing one, its replacement for a broken one or one of another version.
_engine_to_start: list[Callable[[], object]] = []


def start_after_answer(located: tuple[Path, Path | str]) -> None:
    """No engine runs: one is started, warm for this vault, after the command's answer."""
    from vaultctx.engine_link import client

    _engine_to_start.append(lambda: client.start(located))


def replace_after_answer(located: tuple[Path, Path | str]) -> None:
    """The engine is broken: killed now (a wedged one must not keep the socket from the next
    command), replaced after the command's answer, since the new one waits up to
    ``client.REPLACE_WAIT`` for the old one's lock."""
    from vaultctx.engine_link import client

    old = client.kill_broken()
    _engine_to_start.append(lambda: client.start_replacement(located, old))


def restart_after_answer(located: tuple[Path, Path | str]) -> None:
    """The engine is of another version: stopped and started again after the answer (its
    stop waits for it to go)."""
    from vaultctx.engine_link import client

    def restart() -> None:
        client.start_replacement(located, client.stop(wait=2.0))

    _engine_to_start.append(restart)


def start_engine_if_wanted() -> None:
    """Start the engine a forwarded command found missing, broken or of another version, once
    that command has printed its answer: started earlier, its imports would compete with the
    command's for the CPU (a cold search took 140 ms longer on two busy cores), and a
    replacement may wait seconds for the old engine's lock."""
    if not _engine_to_start:
        return
    import contextlib

    for stream in (sys.stdout, sys.stderr):  # the answer out first; a closed pipe is the exit's
        with contextlib.suppress(OSError, ValueError):
            stream.flush()

    while _engine_to_start:
        try:
            _engine_to_start.pop(0)()
        except Exception as exc:  # the next command tries again; this one has answered
            note(f"the engine did not start ({type(exc).__name__}: {exc})")


def _ask_engine(
    request: dict[str, Any], vault: Path, db: Path | str
) -> tuple[str, str, int] | None:
    """The engine's answer; None (the command runs here) when there is none yet, in which case
    one is started for the next command, or when it is broken or of another version, in which
    case it is replaced. Either happens after the command's answer (``start_engine_if_wanted``):
    the user never waits for an engine."""
    from vaultctx.engine_link import client

    if os.name == "nt" or not client.enabled():
        return None
    sent = {"protocol": PROTOCOL, "vault": str(vault), "db": str(db), **request}
    try:
        _hello, data = client.request(
            {"op": "cli", "request": sent, "settings_env": client.settings_env()},
            on_stream=_write_stderr,
        )
    except client.EngineNotRunningError:
        note("no engine yet: running in-process; starting one after it")
        start_after_answer((vault, db))
        return None
    except client.EngineVersionError as exc:
        note(exc.one_line())
        restart_after_answer((vault, db))
        return None
    except client.EngineBrokenError as exc:
        print(f"vaultctx: {exc.one_line()}", file=sys.stderr)
        replace_after_answer((vault, db))
        return None
    except VaultctxError as exc:  # the runtime folder refused: said every time, as it lasts
        print(f"vaultctx: {exc.one_line()}", file=sys.stderr)
        return None
    checked = _checked(data, "the engine")
    return None if checked is None else _answer(checked, "the engine", by="the engine")


def _write_stderr(text: str) -> None:
    """A streamed part of the command's stderr (``index``'s progress), shown as it comes."""
    if text:
        sys.stderr.write(text)
        sys.stderr.flush()


class Served:
    """The running server for one index, checked to be this user's and on this machine.

    A plain class: ``dataclasses`` would add 11 ms of imports to every forwarded command."""

    def __init__(
        self, url: str, address: tuple[str, int], token: str | None, vault: Path, db: Path
    ) -> None:
        self.url, self.address, self.token, self.vault, self.db = url, address, token, vault, db

    def post(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The server's JSON answer to ``request`` (sent with the protocol, vault and index), or
        None when there is none or the server declines it (``_note`` says why)."""
        sent = {"protocol": PROTOCOL, "vault": str(self.vault), "db": str(self.db), **request}
        body = _post(self.url, self.address, self.token, sent)
        return None if body is None else _decoded(body, self.url)


def _decoded(body: bytes, url: str) -> dict[str, Any] | None:
    """The server's JSON object in our protocol; None (and why, in a note) for anything else."""
    try:
        data = json.loads(body)
    except ValueError:
        note(f"{url} answered something that is not JSON")
        return None
    return _checked(data, url)


def _checked(data: Any, url: str) -> dict[str, Any] | None:
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL:
        note(f"{url} speaks another protocol")
        return None
    if isinstance(data.get("fallback"), str):
        note(f"the server left this to run here: {data['fallback']}")
        return None
    return data


def served(vault: Path, db: Path) -> Served | None:
    """The server recorded beside ``db`` when one is running for it (and the user has not
    turned forwarding off); None at once otherwise."""
    if os.name == "nt" or os.environ.get(DISABLE_ENV, "").strip() not in ("", "0"):
        return None
    server = server_link.find_server(db)
    if server is None:
        return None
    if server.pid is not None and not server_link.process_exists(server.pid):
        note(f"the server recorded for {db} (process {server.pid}) is gone")
        return None
    address = _loopback_address(server.url)
    if address is None:
        note(f"not sending the token to {server.url}: not an address on this machine")
        return None
    if not _listener_is_mine(*address):
        note(f"{server.url} is not a server of this user")
        return None
    return Served(server.url, address, server.token, vault, db)


def _locate_index(vault: str | None, db: str | None) -> tuple[Path, Path | str] | None:
    """As ``_locate``, and a PostgreSQL URL given by ``--db`` or ``DB_PATH`` as it is: the
    engine's name for that index. The engine opens it and reads the password as this command
    would, from the keyring or ``PGPASSFILE``. A URL that may hold a password never leaves this
    process (the in-process run refuses it), nor does one from ``DB_URL``, which the engine's
    check of the caller's environment (``cli.served``) does not see."""
    db_value = db if db is not None else os.environ.get("DB_PATH")
    from vaultctx.db_location import is_postgres_url

    if not db_value or not is_postgres_url(db_value) or _may_hold_password(db_value):
        return _locate(vault, db)
    vault_path = _vault_folder(vault)
    return None if vault_path is None else (vault_path, db_value.strip())


def _may_hold_password(url: str) -> bool:
    """Whether ``url`` may carry a password (``user:secret@``, ``?password=``); in doubt yes.
    An empty one (``user:@host``, as pgserver writes them) is none, as libpq reads it."""
    rest = url.strip().split("://", 1)[-1]
    authority, _, query = rest.partition("?")
    credentials = authority.split("/", 1)[0].rpartition("@")[0]
    return bool(credentials.partition(":")[2]) or "password" in query.lower()


def _locate(vault: str | None, db: str | None) -> tuple[Path, Path] | None:
    """The vault folder and index file the command would open, as ``config.load_config``
    resolves them; None where it would refuse them (it then says why, in-process)."""
    vault_path = _vault_folder(vault)
    if vault_path is None:
        return None
    db_value = db if db is not None else os.environ.get("DB_PATH") or os.environ.get("DB_URL")
    from vaultctx.db_location import default_db_path, is_postgres_url

    if db_value and is_postgres_url(db_value):
        return None  # a PostgreSQL index is opened in-process (docs/postgres.md)
    if db_value:
        return vault_path, Path(db_value).expanduser().resolve()

    return vault_path, default_db_path(vault_path)


def _vault_folder(vault: str | None) -> Path | None:
    """``--vault`` (or ``VAULT_PATH``) resolved, if it is a folder."""
    vault_value = vault if vault is not None else os.environ.get("VAULT_PATH")
    if not vault_value or not vault_value.strip():
        return None
    vault_path = Path(vault_value).expanduser()
    return vault_path.resolve() if vault_path.is_dir() else None


def declined_option(argv: list[str]) -> bool:
    """Whether the command line has an option the server does not run (help, a file to read)."""
    return any(arg.split("=", 1)[0] in NOT_FORWARDED for arg in _options(argv[1:]))


def _options(args: list[str]) -> list[str]:
    """The arguments up to ``--`` (after it everything is a value)."""
    return args[: args.index("--")] if "--" in args else args


def _vault_and_db(args: list[str]) -> tuple[str | None, str | None]:
    """--vault/-v and --db as click reads them (last one wins). A value that merely looks like
    these options (``--folder --db``) may mislead this scan; the server checks the parsed values
    against its own index and declines the command if they differ."""
    vault: str | None = None
    db: str | None = None
    options = _options(args)
    for position, arg in enumerate(options):
        following = options[position + 1] if position + 1 < len(options) else None
        if arg in ("--vault", "-v"):
            vault = following
        elif arg.startswith("--vault="):
            vault = arg.removeprefix("--vault=")
        elif arg.startswith("-v") and not arg.startswith("--") and len(arg) > 2:
            vault = arg[2:]
        elif arg == "--db":
            db = following
        elif arg.startswith("--db="):
            db = arg.removeprefix("--db=")
    return vault, db


def _terminal() -> dict[str, Any]:
    """What rich measures about the terminal, measured here for the server's consoles."""
    size: list[int] | None = None
    for descriptor in (0, 1, 2):  # rich's order on POSIX
        try:
            columns, lines = os.get_terminal_size(descriptor)
        except (AttributeError, ValueError, OSError):
            continue
        size = [columns, lines]
        break
    return {
        "stdout": _isatty(sys.stdout),
        "stderr": _isatty(sys.stderr),
        "size": size,
        "encoding": getattr(sys.stdout, "encoding", None) or "utf-8",
    }


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _loopback_address(url: str) -> tuple[str, int] | None:
    """(host, port) when ``url`` is plain http to this machine; None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port or 80
    except ValueError:
        return None
    host = parts.hostname or ""
    if parts.scheme != "http":
        return None
    if host == "localhost":
        return "127.0.0.1", port
    try:
        if not ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        return None
    return host, port


def _listener_is_mine(host: str, port: int) -> bool:
    """Whether the socket listening at ``host:port`` belongs to this user.

    A record may outlive its server (SIGKILL), and the port may since be taken by another user's
    program, which would be sent the token. Linux lists each socket's owner in /proc/net/tcp;
    elsewhere (or if /proc is not readable) only the record's own checks apply.
    """
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    wanted_port = f"{port:04X}"
    owners = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                rows = handle.read(16 * 1024 * 1024).splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 8 or fields[3] != "0A":  # 0A: LISTEN
                continue
            address, _, listening_port = fields[1].rpartition(":")
            if listening_port == wanted_port and _accepts(address, host):
                owners.add(int(fields[7]))
    return not owners or owners == {getuid()}


def _accepts(hex_address: str, host: str) -> bool:
    """Whether a listener on a /proc/net/tcp address (hex, each 32-bit word in host byte order)
    takes connections to ``host``: the same address, its IPv4-mapped form, or a wildcard."""
    try:
        raw = bytes.fromhex(hex_address)
    except ValueError:
        return False
    if sys.byteorder == "little":
        raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    wanted = ipaddress.ip_address(host).packed
    mapped = bytes(10) + b"\xff\xff" + wanted if len(wanted) == 4 else wanted
    return raw in (wanted, mapped) or not any(raw)


def _post(
    url: str, address: tuple[str, int], token: str | None, request: dict[str, Any]
) -> bytes | None:
    """One HTTP/1.1 request over a plain socket: ``http.client`` would import the email
    package and ssl, a third of this path's start-up. The server's answer is a JSON body with a
    Content-Length (``Connection: close`` ends it); anything else is declined."""
    import socket

    body = json.dumps(request).encode()
    path = urlsplit(url).path.rstrip("/") + CLI_PATH
    host = f"[{address[0]}]" if ":" in address[0] else address[0]
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{address[1]}",
        "Content-Type: application/json",
        "Accept: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    if token:
        head.append(f"Authorization: Bearer {token}")
    try:
        connection = socket.create_connection(address, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        note(f"no server answers at {url} ({exc})")
        return None
    with connection:
        connection.settimeout(ANSWER_TIMEOUT)
        connection.sendall("\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + body)
        received = _receive(connection, MAX_ANSWER_BYTES + 64 * 1024)
    status, body_bytes = _parse_response(received)
    if status != 200 or body_bytes is None:
        shown = (body_bytes or received)[:200].decode(errors="replace")
        note(f"{url} declined ({status}): {shown}")
        return None
    return body_bytes


def _receive(connection: Any, limit: int) -> bytes:
    """Everything until the server closes, or the first ``limit`` bytes and no more."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = connection.recv(min(1024 * 1024, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _parse_response(data: bytes) -> tuple[int, bytes | None]:
    """(status, body) of an HTTP/1.1 answer with a Content-Length; body None when it is
    malformed, incomplete, chunked, over the limit or not JSON."""
    head, separator, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if (
        not separator
        or len(parts) < 2
        or not parts[0].startswith("HTTP/1.")
        or not parts[1].isdigit()
    ):
        return 0, None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length", "")
    if not length.isdigit() or int(length) > MAX_ANSWER_BYTES or len(body) != int(length):
        return int(parts[1]), None
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return int(parts[1]), None
    return int(parts[1]), body


def _answer(data: dict[str, Any], url: str, by: str | None = None) -> tuple[str, str, int] | None:
    """The output and exit code from the server's JSON, or None for anything else."""
    out, err, code = data.get("stdout"), data.get("stderr"), data.get("exit")
    if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 255:
        note(f"{url} answered without an exit code")
        return None
    if not (isinstance(out, str) and isinstance(err, str)):
        note(f"{url} answered without output")
        return None
    note(f"answered by {by or 'the server at ' + url}")
    return out, err, code
