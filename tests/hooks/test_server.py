"""The hook and a running ``serve --http``: discovery, the endpoint's guards, the fallback."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hooks import events
from tests.hooks.conftest import IndexedVault, run_hook_process, subprocess_env
from tests.mcp.conftest import HttpServer, free_port, start_http_server, stop, wait_until_listening
from vaultctx.hooks.context import Excerpt, fitting, format_context
from vaultctx.loopback import server_link
from vaultctx.loopback.guard import refusal
from vaultctx.loopback.hook_endpoint import parse_request

TOKEN = "hook-test-token"


def prompt() -> str:
    """A new session each time, so no run is told "already injected" by an earlier one."""
    return events.as_stdin(events.user_prompt_submit("How do we roll back the billing deploy?"))


LOCAL = {"host": "127.0.0.1:8765", "content-type": "application/json"}


def test_state_file_is_private_and_names_this_process(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    path = server_link.write_server_state(db, "0.0.0.0", 8765, "secret")
    assert path == tmp_path / "index.db.server.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert server_link.find_server(db, {}) == server_link.ServerInfo(
        "http://127.0.0.1:8765", "secret", os.getpid()
    )
    server_link.remove_server_state(db, "0.0.0.0", 8765)
    assert not path.exists()


def test_another_servers_state_file_is_not_removed(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    path = server_link.state_path(db)
    path.write_text(json.dumps({"url": "http://127.0.0.1:1", "pid": os.getpid() + 1}))
    server_link.remove_server_state(db, "127.0.0.1", 1)
    assert path.exists()
    # The same process, another port: a record this server did not write.
    path.write_text(json.dumps({"url": "http://127.0.0.1:2", "pid": os.getpid()}))
    server_link.remove_server_state(db, "127.0.0.1", 1)
    assert path.exists()


def _exited_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", ""])
    done.wait()
    return done.pid


def test_a_running_servers_state_file_is_never_replaced(tmp_path: Path) -> None:
    """Owned by pid and port: a record is stale once its process is gone or its port is closed."""
    db = tmp_path / "index.db"
    path = server_link.state_path(db)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        theirs = json.dumps({"url": url, "pid": os.getppid(), "token": "theirs"})
        path.write_text(theirs)
        with pytest.raises(server_link.ServerStateTakenError, match=url):
            server_link.write_server_state(db, "127.0.0.1", 9, "mine")
        assert path.read_text() == theirs
        path.write_text(json.dumps({"url": url, "pid": _exited_pid(), "token": "dead"}))
        server_link.write_server_state(db, "127.0.0.1", 9, "mine")
        assert server_link.find_server(db, {}) == ("http://127.0.0.1:9", "mine", os.getpid())
    path.write_text(theirs)  # its process runs, but nothing listens at its port any more
    server_link.write_server_state(db, "127.0.0.1", 9, "mine")
    info = server_link.find_server(db, {})
    assert info is not None and info.token == "mine"


@pytest.mark.parametrize("url", ["http://localhost:9000", "http://localhost:9000/mcp/"])
def test_a_configured_url_wins(tmp_path: Path, url: str) -> None:
    db = tmp_path / "index.db"
    server_link.write_server_state(db, "127.0.0.1", 8765, None)
    environ = {"VAULTCTX_SERVER_URL": url, "VAULTCTX_TOKEN": "t"}
    assert server_link.find_server(db, environ) == server_link.ServerInfo(
        "http://localhost:9000", "t"
    )


@pytest.mark.parametrize("content", ["", "{", "[]", '{"url": 5}'])
def test_damaged_state_files_are_ignored(tmp_path: Path, content: str) -> None:
    server_link.state_path(tmp_path / "index.db").write_text(content)
    assert server_link.find_server(tmp_path / "index.db", {}) is None


@pytest.mark.parametrize(
    ("host", "url"),
    [("0.0.0.0", "http://127.0.0.1:1"), ("::", "http://[::1]:1"), ("::1", "http://[::1]:1")],
)
def test_local_url(host: str, url: str) -> None:
    assert server_link.local_url(host, 1) == url


def test_nothing_listening_is_unavailable() -> None:
    server = server_link.ServerInfo(f"http://127.0.0.1:{free_port()}", None)
    with pytest.raises(server_link.ServerUnavailableError):
        server_link.post_json(server, "/x", {}, timeout=2)


@pytest.mark.parametrize(
    ("headers", "peer", "status"),
    [
        (LOCAL, "127.0.0.1", None),
        ({**LOCAL, "host": "localhost"}, "::1", None),
        ({**LOCAL, "host": "[::1]:8765"}, "::1", None),
        (LOCAL, "192.168.1.20", 403),
        (LOCAL, None, 403),
        ({**LOCAL, "origin": "http://127.0.0.1:8765"}, "127.0.0.1", 403),
        ({**LOCAL, "host": "evil.example:8765"}, "127.0.0.1", 403),
        ({**LOCAL, "content-type": "text/plain"}, "127.0.0.1", 415),
    ],
)
def test_who_may_call_the_endpoint(
    headers: dict[str, str], peer: str | None, status: int | None
) -> None:
    refused = refusal(headers, peer, None)
    assert (refused[0] if refused else None) == status


def test_the_token_is_required_when_the_server_has_one() -> None:
    assert refusal(LOCAL, "127.0.0.1", TOKEN) == (401, "missing or wrong bearer token")
    wrong = {**LOCAL, "authorization": "Bearer nope"}
    assert refusal(wrong, "127.0.0.1", TOKEN) is not None
    assert refusal({**LOCAL, "authorization": f"Bearer {TOKEN}"}, "127.0.0.1", TOKEN) is None


def test_request_body() -> None:
    assert parse_request(b'{"text": "roll back", "extra": 1}') == "roll back"


@pytest.mark.parametrize("body", [b"nope", b"[]", b'{"query": "x"}', b'{"text": 5}', b" " * 70000])
def test_bad_request_bodies(body: bytes) -> None:
    with pytest.raises(ValueError):
        parse_request(body)


@pytest.fixture(scope="module")
def server(indexed_vault: IndexedVault) -> Iterator[HttpServer]:
    """One real server with a bearer token, found by the hook through its state file."""
    env = subprocess_env(VAULTCTX_TOKEN=TOKEN)
    args = ["serve", "--vault", str(indexed_vault.vault), "--db", str(indexed_vault.db)]
    started = start_http_server(args, env)
    try:
        wait_until_listening(started)
        state = server_link.state_path(indexed_vault.db)
        deadline = time.monotonic() + 60
        while not state.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        # One answered request first, with a generous deadline: the server warms its models on
        # the first search, which on a loaded machine can outlast the hook's own 5 s budget.
        server_link.post_json(
            server_link.ServerInfo(f"http://127.0.0.1:{started.port}", TOKEN),
            server_link.HOOK_CONTEXT_PATH,
            {"text": "warm up"},
            timeout=120,
        )
        yield started
    finally:
        stop(started)


def test_the_server_records_itself_with_its_token(
    server: HttpServer, indexed_vault: IndexedVault
) -> None:
    info = server_link.find_server(indexed_vault.db, {})
    assert info is not None
    assert info.url == f"http://127.0.0.1:{server.port}" and info.token == TOKEN


def test_a_second_server_leaves_the_first_ones_state_file_alone(
    server: HttpServer, indexed_vault: IndexedVault
) -> None:
    """Neither a second server on the busy port nor one on another port that comes and goes may
    replace or delete the running server's record: hooks would lose the warm server."""
    state = server_link.state_path(indexed_vault.db)
    recorded = state.read_text()
    env = subprocess_env(VAULTCTX_TOKEN=TOKEN)
    args = ["serve", "--vault", str(indexed_vault.vault), "--db", str(indexed_vault.db)]
    busy = subprocess.run(
        [sys.executable, "-m", "vaultctx", *args, "--http", "--port", str(server.port)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert busy.returncode == 2
    [line] = busy.stderr.splitlines()
    assert line.startswith(f"error: port {server.port} is in use")
    assert line.endswith("; choose another with --port")
    assert state.read_text() == recorded
    second = start_http_server(args, env)
    try:
        wait_until_listening(second)
        # An answer proves its start-up, state file included, is over.
        second_info = server_link.ServerInfo(f"http://127.0.0.1:{second.port}", TOKEN)
        server_link.post_json(second_info, server_link.HOOK_CONTEXT_PATH, {"text": "x"}, 60)
        assert state.read_text() == recorded
    finally:
        stop(second)
    assert second.process.returncode is not None
    assert state.read_text() == recorded


def test_the_hook_answers_from_the_server(
    server: HttpServer, indexed_vault: IndexedVault, tmp_path: Path
) -> None:
    # No index where the hook looks: only the server can have answered.
    env = subprocess_env(
        VAULTCTX_SERVER_URL=f"http://127.0.0.1:{server.port}", VAULTCTX_TOKEN=TOKEN
    )
    args = ["context", "--vault", str(indexed_vault.vault), "--db", str(tmp_path / "none.db")]
    run = run_hook_process(args, prompt(), env=env)
    assert run.returncode == 0 and run.stderr == ""
    context = run.answer()["hookSpecificOutput"]["additionalContext"]
    assert "On-call handbook.md#Rules" in context


def test_the_hook_finds_the_server_by_its_state_file(
    server: HttpServer, indexed_vault: IndexedVault
) -> None:
    server_answer = server_link.post_json(
        server_link.ServerInfo(f"http://127.0.0.1:{server.port}", TOKEN),
        server_link.HOOK_CONTEXT_PATH,
        {"text": "How do we roll back the billing deploy?"},
        timeout=30,
    )
    excerpts = [Excerpt(citation, text) for citation, text in server_answer["excerpts"]]
    run = run_hook_process(indexed_vault.hook_args("context"), prompt())
    hook_context = run.answer()["hookSpecificOutput"]["additionalContext"]
    assert hook_context == format_context(fitting(excerpts))


def test_a_refusing_server_falls_back_to_in_process_search(
    server: HttpServer, indexed_vault: IndexedVault
) -> None:
    env = subprocess_env(
        VAULTCTX_SERVER_URL=f"http://127.0.0.1:{server.port}", VAULTCTX_TOKEN="wrong"
    )
    run = run_hook_process(indexed_vault.hook_args("context"), prompt(), env=env)
    assert "401" in run.stderr and "searching in-process" in run.stderr
    assert "On-call handbook.md#Rules" in run.answer()["hookSpecificOutput"]["additionalContext"]


def test_a_server_that_is_gone_means_in_process_search(indexed_vault: IndexedVault) -> None:
    env = subprocess_env(VAULTCTX_SERVER_URL=f"http://127.0.0.1:{free_port()}")
    run = run_hook_process(indexed_vault.hook_args("context"), prompt(), env=env)
    assert run.returncode == 0 and run.stderr == ""
    assert "On-call handbook.md#Rules" in run.answer()["hookSpecificOutput"]["additionalContext"]
