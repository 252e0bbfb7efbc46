"""The client side's decisions, without a server: which index a command line names, which
command lines are forwarded at all, and how an answer is read."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultctx.cli import forward
from vaultctx.config import load_config
from vaultctx.loopback import server_link


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["q", "--vault", "A", "--db", "B"], ("A", "B")),
        (["q", "--vault=A", "--db=B"], ("A", "B")),
        (["q", "-v", "A"], ("A", None)),
        (["q", "-vA"], ("A", None)),
        (["q", "--vault", "A", "--vault", "C"], ("C", None)),  # click: the last one wins
        (["--", "--vault", "A"], (None, None)),  # after -- everything is the query
        (["q"], (None, None)),
    ],
)
def test_the_vault_and_index_a_command_line_names(
    args: list[str], expected: tuple[str | None, str | None]
) -> None:
    assert forward._vault_and_db(args) == expected


def test_the_index_is_located_as_the_settings_locate_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "notes"
    vault.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DB_PATH", raising=False)
    monkeypatch.delenv("VAULT_PATH", raising=False)
    for db in (None, "index.db", str(tmp_path / "elsewhere" / "x.db")):
        config = load_config("notes", db)
        assert forward._locate("notes", db) == (config.vault, config.db)
    monkeypatch.setenv("VAULT_PATH", str(vault))
    assert forward._locate(None, None) == (vault, load_config().db)
    assert forward._locate("missing", None) is None


@pytest.fixture
def recorded_listener(tmp_path: Path) -> Iterator[tuple[list[str], list[int]]]:
    """A vault whose index records a local listener that counts connections and closes them;
    the ``--vault``/``--db`` arguments naming it, and the count."""
    vault = tmp_path / "vault"
    vault.mkdir()
    db = tmp_path / "index.db"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    connections: list[int] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connections.append(1)
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    server_link.write_server_state(db, "127.0.0.1", listener.getsockname()[1], "t")
    yield ["--vault", str(vault), "--db", str(db)], connections
    listener.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["index"],
        ["ask", "why?"],
        ["search", "--batch", "q.jsonl"],
        ["search", "x", "--translate"],
        ["status", "--help"],
    ],
)
def test_commands_that_always_run_in_process(
    argv: list[str],
    recorded_listener: tuple[list[str], list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(forward.DISABLE_ENV, raising=False)
    where, connections = recorded_listener
    assert forward.forward([*argv, *where]) is None
    # The same record is used for a forwarded command (the listener answers nothing useful).
    assert forward.forward(["status", *where]) is None
    time.sleep(0.2)
    assert connections == [1]


def test_switched_off_by_the_environment(
    recorded_listener: tuple[list[str], list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    where, connections = recorded_listener
    monkeypatch.setenv(forward.DISABLE_ENV, "1")
    assert forward.forward(["status", *where]) is None
    time.sleep(0.2)
    assert connections == []


def response(body: bytes, *, length: int | None = None, kind: str = "application/json") -> bytes:
    size = len(body) if length is None else length
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {size}\r\n\r\n"
    return head.encode() + body


def test_reading_answers() -> None:
    good = json.dumps({"protocol": 1, "stdout": "out", "stderr": "", "exit": 0}).encode()
    status, body = forward._parse_response(response(good))
    assert status == 200 and body is not None
    assert forward._answer(forward._decoded(body, "u") or {}, "u") == ("out", "", 0)
    assert forward._parse_response(response(good, length=len(good) + 1))[1] is None  # cut short
    assert forward._parse_response(response(good, kind="text/html"))[1] is None
    assert forward._parse_response(b"HTTP/1.1 200 OK\r\n")[1] is None
    for data in (
        {"protocol": 2, "stdout": "x", "stderr": "", "exit": 0},
        {"protocol": 1, "fallback": "no"},
        [1, 2],
    ):
        assert forward._decoded(json.dumps(data).encode(), "u") is None
    assert forward._decoded(b"not json", "u") is None
    for data in (
        {"protocol": 1, "stdout": "x", "stderr": "", "exit": True},
        {"protocol": 1, "stdout": 5, "stderr": "", "exit": 0},
    ):
        assert forward._answer(data, "u") is None


def test_ctrl_c_while_waiting_for_the_server(tmp_path: Path) -> None:
    """A server that never answers: Ctrl-C ends the wait as an in-process run ends (status 130,
    one line), and the connection is closed."""
    import signal
    import subprocess
    import sys

    from tests.cli_server.conftest import cli_env
    from tests.terminal_signals import ctrl_c_as_from_a_terminal

    vault = tmp_path / "vault"
    vault.mkdir()
    db = tmp_path / "index.db"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server_link.write_server_state(db, "127.0.0.1", listener.getsockname()[1], "t")
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "vaultctx", "status", "--vault", str(vault), "--db", str(db)],
            env=cli_env(VAULTCTX_VERBOSE="0"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=ctrl_c_as_from_a_terminal,
        )
        listener.settimeout(120)
        connection, _ = listener.accept()
        with connection:
            # The whole request first: then the process is surely waiting for the answer (a
            # connection accepted is not yet a request sent, and a loaded machine shows it).
            connection.settimeout(120)
            received = b""
            while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
                chunk = connection.recv(65536)
                assert chunk, f"the process closed the connection: {received!r}"
                received += chunk
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
            assert process.returncode == 130, (out, err)
            assert (out, err) == ("", "error: interrupted\n")
            connection.settimeout(10)
            while connection.recv(65536):  # the request, then end of stream: closed
                pass
    finally:
        listener.close()


def test_a_server_that_never_answers_is_given_up_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = tmp_path / "index.db"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()  # accepts (the kernel does) and never answers
    server_link.write_server_state(db, "127.0.0.1", listener.getsockname()[1], "t")
    monkeypatch.delenv(forward.DISABLE_ENV, raising=False)
    monkeypatch.setattr(forward, "ANSWER_TIMEOUT", 0.5)
    try:
        started = time.monotonic()
        assert forward.forward(["status", "--vault", str(vault), "--db", str(db)]) is None
        assert time.monotonic() - started < 10
    finally:
        listener.close()


def test_the_scan_reads_vault_and_db_as_click_does() -> None:
    """For command lines whose values do not look like options, the scan before typer finds
    the --vault and --db click parses (where a value does look like one, the server compares
    click's values with its own index and declines a mismatch)."""
    import typer
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from vaultctx.cli import search_cmds

    app = typer.Typer()

    @app.callback()
    def group() -> None:
        pass

    search_cmds.register(app)
    search = typer.main.get_command(app).commands["search"]  # type: ignore[attr-defined]
    value = st.text(alphabet="abc/._ ", min_size=1, max_size=5).filter(lambda v: v.strip())
    option = st.one_of(
        st.tuples(st.sampled_from(["--vault", "-v", "--db", "--folder", "--tag"]), value),
        st.tuples(st.sampled_from(["--vault=", "--db=", "-v"]), value).map(lambda p: ("".join(p),)),
        st.just(("--json",)),
    )

    @settings(max_examples=200, deadline=None)
    @given(st.lists(option, max_size=6), value)
    def check(options: list[tuple[str, ...]], query: str) -> None:
        args = [query, *(part for pair in options for part in pair)]
        parsed = search.make_context("search", list(args))  # click consumes the list
        expected = (parsed.params["vault"], parsed.params["db"])
        assert forward._vault_and_db(args) == expected

    check()
