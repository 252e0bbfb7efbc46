"""``vaultctx ui`` as a real process over an indexed copy of the example vault.

The ledger lives in the per-user data dir, so the server and the test process both get a private
one (``XDG_DATA_HOME`` for the server, ``platformdirs`` patched here), and changes made by a test
through ``Vault`` are the ones the UI lists and undoes.
"""

from __future__ import annotations

import http.client
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import copy_example_vault
from tests.mcp.conftest import free_port, subprocess_env
from vaultctx.api import Vault

START_DEADLINE = 120.0  # the machine is shared and loaded: start-up may take a while
URL_LINE = re.compile(r"at (http://127\.0\.0\.1:(\d+)/\?token=(\S+))")
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]*)">')


@dataclass(frozen=True)
class Session:
    """A browser's session as the UI opened it: the cookie's value and its CSRF token."""

    cookie: str
    csrf: str


@dataclass
class UiServer:
    process: subprocess.Popen[str]
    port: int
    token: str
    vault: Path
    db: Path
    data_home: Path
    session: Session | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def login_url(self) -> str:
        return f"{self.base}/?token={self.token}"

    @property
    def cookie(self) -> str:
        """The Cookie header of this test's session (opened by ``start_ui``)."""
        assert self.session is not None
        return f"vaultctx_ui_{self.port}={self.session.cookie}"

    def open_session(self) -> Session:
        """What a browser does with the printed address: the token opens a session (303 with
        its cookie), whose pages carry the session's CSRF token."""
        status, headers, _ = self.request(f"/?token={self.token}", cookie=False)
        assert status == 303, status
        value = headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
        cookie = f"vaultctx_ui_{self.port}={value}"
        status, _, page = self.request("/status", headers={"Cookie": cookie})
        assert status == 200, status
        match = CSRF_META.search(page)
        assert match, "the page carries no CSRF token"
        return Session(value, match.group(1))

    def request(
        self,
        path: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        cookie: bool = True,
        csrf: bool = True,
    ) -> tuple[int, dict[str, str], str]:
        """One raw request (http.client sends exactly the Host and headers given). With
        ``cookie`` it carries the test's session; a change with ``csrf`` also its CSRF token."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
        if cookie:
            if "Cookie" not in sent:
                sent["Cookie"] = self.cookie
            if csrf and method not in ("GET", "HEAD") and self.session is not None:
                sent.setdefault("X-CSRF-Token", self.session.csrf)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            return response.status, {k.lower(): v for k, v in response.getheaders()}, text
        finally:
            connection.close()


def ui_env(data_home: Path) -> dict[str, str]:
    env = subprocess_env()
    env["XDG_DATA_HOME"] = str(data_home)
    env["XDG_CONFIG_HOME"] = str(data_home / "config")
    return env


def start_ui(
    vault: Path, db: Path, data_home: Path, *extra: str, env: dict[str, str] | None = None
) -> UiServer:
    port = free_port()
    where = ["--vault", str(vault), "--db", str(db), "--port", str(port)]
    log_path = data_home / f"ui-{port}.log"
    log = log_path.open("w", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "ui", *where, *extra],
        env={**ui_env(data_home), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=log,  # a file: a pipe nobody reads would stall the server once full
        text=True,
    )
    log.close()  # the server has its own descriptor
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    deadline = time.monotonic() + START_DEADLINE
    token = None
    while token is None and time.monotonic() < deadline:
        try:
            match = URL_LINE.search(lines.get(timeout=0.5))
        except queue.Empty:
            if process.poll() is not None:
                raise AssertionError(f"vaultctx ui exited: {log_path.read_text()}") from None
            continue
        if match:
            assert int(match.group(2)) == port
            token = match.group(3)
    assert token, "vaultctx ui printed no address"
    server = UiServer(process, port, token, vault, db, data_home)
    while time.monotonic() < deadline:
        try:
            status, _, _ = server.request("/status/progress", cookie=False)
        except OSError:
            time.sleep(0.1)
            continue
        assert status == 403  # answering, and wanting the token
        server.session = server.open_session()
        return server
    raise AssertionError(f"vaultctx ui did not answer within {START_DEADLINE} s")


def stop_ui(server: UiServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=30)


@contextmanager
def running_ui(
    root: Path,
    notes: dict[str, str] | None = None,
    prepare: Callable[[Path], None] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[UiServer]:
    """The example vault (plus ``notes``, then ``prepare(vault)``), indexed and served; the test
    process shares its ledger."""
    data_home = root / "data"
    data_home.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(data_home))
        patch.setattr(platformdirs, "user_data_dir", lambda name: str(data_home / name))
        vault = copy_example_vault(root / "vault")
        for relative, text in (notes or {}).items():
            target = vault / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        if prepare is not None:
            prepare(vault)
        db = root / "index.db"
        with Vault(vault, db=db) as handle:
            handle.index(fast=True)
        server = start_ui(vault, db, data_home, env=env)
        try:
            yield server
        finally:
            stop_ui(server)
