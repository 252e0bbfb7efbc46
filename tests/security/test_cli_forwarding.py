"""A CLI command forwarded to a running server (``cli.forward``) trusts nothing it finds.

The record beside the index names where to send the command and the bearer token: a record
someone else could have written is ignored, the token never leaves for an address off this
machine or for another user's listener, and a server answering garbage, a huge body or nothing
useful makes the command run in-process with its usual output. The server's endpoint keeps the
hook endpoint's guard and runs only the forwarded commands.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli_server.conftest import TOKEN, Served, comparable, served, vaultctx
from vaultctx.cli import forward
from vaultctx.loopback import server_link

__all__ = ["served"]  # the package fixture, used here too


class FakeServer:
    """A listener on loopback that answers every connection with ``answer`` and keeps what it
    was sent."""

    def __init__(self, answer: bytes, host: str = "127.0.0.1") -> None:
        self.answer = answer
        self.received: list[bytes] = []
        self.socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.socket.bind((host, 0))
        self.socket.listen()
        self.port = self.socket.getsockname()[1]
        self.host = host
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(10)
                try:
                    self.received.append(connection.recv(65536))
                    connection.sendall(self.answer)
                except OSError:
                    pass

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def other_db(served: Served, tmp_path: Path) -> Path:
    db = tmp_path / "other.db"
    db.write_bytes(served.db.read_bytes())
    return db


def plant(db: Path, url: str, *, pid: int | None = None, mode: int = 0o600) -> Path:
    path = server_link.state_path(db)
    path.write_text(json.dumps({"url": url, "pid": pid or os.getpid(), "token": "planted-secret"}))
    path.chmod(mode)
    return path


def status_runs_in_process(served: Served, db: Path) -> None:
    args = ["status", "--json", "--vault", str(served.vault), "--db", str(db)]
    run = vaultctx(args)
    local = vaultctx(args, in_process=True)
    assert not run.forwarded and run.code == local.code == 0, run.stderr
    assert comparable(run.stdout) == comparable(local.stdout)


HUGE = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"
ANSWERS = {
    "garbage": b"\x00\xff not http at all",
    "huge body": HUGE,
    "html": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi",
    "not json": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\nhi",
    "other protocol": (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 41\r\n\r\n"
        b'{"protocol": 99, "stdout": "x", "exit": 0}'[:41]
    ),
    "exit code out of range": (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 56\r\n\r\n"
        b'{"protocol": 1, "stdout": "x", "stderr": "", "exit": 999}'[:56]
    ),
}


@pytest.mark.parametrize("answer", ANSWERS.values(), ids=ANSWERS.keys())
def test_a_server_answering_nonsense_leaves_the_command_in_process(
    served: Served, other_db: Path, answer: bytes
) -> None:
    fake = FakeServer(answer)
    try:
        plant(other_db, fake.url)
        status_runs_in_process(served, other_db)
        assert fake.received, "the fake server was never asked: the test proves nothing"
    finally:
        fake.close()


def test_an_endless_answer_is_read_no_further_than_the_bound() -> None:
    class Endless:
        sent = 0

        def recv(self, size: int) -> bytes:
            self.sent += size
            return b"x" * size

    endless = Endless()
    received = forward._receive(endless, 1000)
    assert len(received) == 1001 and endless.sent == 1001


def test_the_token_is_never_sent_off_this_machine(served: Served, other_db: Path) -> None:
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address besides loopback")
    fake = FakeServer(b"HTTP/1.1 200 OK\r\n\r\n", host=address)
    try:
        plant(other_db, fake.url)
        status_runs_in_process(served, other_db)
        time.sleep(0.5)
        assert fake.received == []
    finally:
        fake.close()
    for url in ("https://127.0.0.1:1", "http://example.com:80", "http://10.0.0.1:80", "ftp://x"):
        assert forward._loopback_address(url) is None
    assert forward._loopback_address("http://localhost:8765") == ("127.0.0.1", 8765)
    assert forward._loopback_address("http://[::1]:8765") == ("::1", 8765)


def _non_loopback_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_a_record_others_may_write_is_ignored(served: Served, other_db: Path) -> None:
    fake = FakeServer(b"HTTP/1.1 500 x\r\n\r\n")
    try:
        path = plant(other_db, fake.url, mode=0o622)
        assert server_link.find_server(other_db, {}) is None
        path.chmod(0o600)
        assert server_link.find_server(other_db, {}) is not None
    finally:
        fake.close()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_record_of_another_user_is_ignored(other_db: Path) -> None:
    path = plant(other_db, "http://127.0.0.1:1")
    os.chown(path, 65534, 65534)
    assert server_link.find_server(other_db, {}) is None


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux lists socket owners")
def test_the_listener_must_belong_to_this_user() -> None:
    fake = FakeServer(b"")
    try:
        assert forward._listener_is_mine("127.0.0.1", fake.port)
    finally:
        fake.close()
    if os.geteuid() != 0:
        return
    # Another user's program on the recorded port is never sent the token.
    listener = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, socket, sys, time\n"
            "os.setuid(65534)\n"
            "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
            "print(s.getsockname()[1], flush=True); time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert listener.stdout is not None
        port = int(listener.stdout.readline())
        assert not forward._listener_is_mine("127.0.0.1", port)
    finally:
        listener.kill()
        listener.wait()


def test_proc_net_tcp_addresses() -> None:
    assert forward._accepts("0100007F", "127.0.0.1")
    assert forward._accepts("00000000", "127.0.0.1")
    assert not forward._accepts("0101A8C0", "127.0.0.1")
    assert forward._accepts("00000000000000000000000001000000", "::1")
    assert forward._accepts("0000000000000000FFFF00000100007F", "127.0.0.1")


def endpoint(served: Served, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=60)
    try:
        connection.request("POST", "/vaultctx/cli", body, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


GOOD = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content-Type": "application/json"}, 401),
        ({**GOOD, "Authorization": "Bearer wrong"}, 401),
        ({**GOOD, "Origin": "http://127.0.0.1:1"}, 403),
        ({**GOOD, "Host": "evil.example"}, 403),
        ({**GOOD, "Content-Type": "text/plain"}, 415),
    ],
)
def test_the_endpoint_keeps_the_hook_guard(
    served: Served, headers: dict[str, str], status: int
) -> None:
    assert endpoint(served, b"{}", headers)[0] == status


def test_the_endpoint_refuses_a_huge_body(served: Served) -> None:
    assert endpoint(served, b" " * (300 * 1024), GOOD)[0] == 413


def request(served: Served, argv: list[str], **changes: object) -> dict[str, object]:
    body = {
        "protocol": 1,
        "argv": argv,
        "cwd": "/",
        "vault": str(served.vault),
        "db": str(served.db),
        "env": {},
        "terminal": {"stdout": False, "stderr": False, "size": None},
        **changes,
    }
    status, payload = endpoint(served, json.dumps(body).encode(), GOOD)
    assert status == 200
    answer = json.loads(payload)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize(
    "argv",
    [
        ["index"],
        ["serve", "--http"],
        ["search", "--batch", "/etc/passwd"],
        ["search", "x", "--translate"],
        ["search", "--help"],
    ],
    ids=" ".join,
)
def test_the_server_runs_only_the_forwarded_commands(served: Served, argv: list[str]) -> None:
    answer = request(served, argv)
    assert "fallback" in answer and "stdout" not in answer


def test_the_server_declines_another_vault_or_index(served: Served, tmp_path: Path) -> None:
    assert "fallback" in request(served, ["status"], db=str(tmp_path / "x.db"))
    assert "fallback" in request(served, ["status"], protocol=2)
    # The command line names another index than the one the request claims.
    argv = ["status", "--vault", str(served.vault), "--db", str(tmp_path / "x.db")]
    assert "fallback" in request(served, argv)
    argv = ["status", "--json", "--vault", str(served.vault), "--db", str(served.db)]
    answer = request(served, argv)  # JSON: a table would shorten a long path to fit 80 columns
    assert answer["exit"] == 0 and json.dumps(str(served.db)) in str(answer["stdout"])


def test_a_relative_vault_is_resolved_from_the_callers_directory(served: Served) -> None:
    argv = ["status", "--vault", served.vault.name, "--db", served.db.name]
    answer = request(served, argv, cwd=str(served.vault.parent))
    assert answer.get("exit") == 0, answer
    assert "fallback" in request(served, argv, cwd="/")


def search_request(served: Served, search: object, **changes: object) -> dict[str, object]:
    """One search of ``vaultctx ask`` (cli.remote_search) as the endpoint receives it."""
    body = {"protocol": 1, "vault": str(served.vault), "db": str(served.db), "search": search}
    status, payload = endpoint(served, json.dumps({**body, **changes}).encode(), GOOD)
    assert status == 200
    answer = json.loads(payload)
    assert isinstance(answer, dict)
    return answer


def test_a_search_is_answered_as_the_same_search_in_process(served: Served) -> None:
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest
    from vaultctx.search.request_json import request_to_json, response_from_json

    asked = SearchRequest("roll back the billing deploy", limit=5)
    answer = search_request(served, request_to_json(asked))
    remote = response_from_json(answer["search"])
    with Vault(served.vault, db=served.db) as vault:
        local = vault.search(asked)
    assert [r.citation for r in remote.results] == [r.citation for r in local.results]
    assert remote.results


@pytest.mark.parametrize(
    "search",
    [
        "roll back",
        ["roll back"],
        {},
        {"query": ""},
        {"query": "x", "limit": 0},
        {"query": "x", "limit": "10"},
        {"query": "x", "mode": "sql"},
        {"query": "x", "depth": 9},
        {"query": "x", "notes": "yes"},
        {"query": "x", "filters": {"since": "yesterday-ish"}},
        {"query": "x", "filters": {"tags": "security"}},
        {"query": "x", "filters": {"folder": 7}},
        {"query": "x", "filters": {"path": "/etc"}},
        {"query": "x", "weights": {"bm25": -1}},
        {"query": "x", "batch": "/etc/passwd"},
    ],
    ids=repr,
)
def test_a_malformed_search_is_declined_never_run(served: Served, search: object) -> None:
    answer = search_request(served, search)
    assert "fallback" in answer and "search" not in answer, answer


def test_a_search_for_another_index_is_declined(served: Served, tmp_path: Path) -> None:
    search = {"query": "billing"}
    assert "search" in search_request(served, search)
    assert "fallback" in search_request(served, search, db=str(tmp_path / "x.db"))
    assert "fallback" in search_request(served, search, vault=str(tmp_path))
    assert "fallback" in search_request(served, search, protocol=2)
