"""The plugin's own transport (Node's http over a Unix socket, built from obsidian/src) against a
real engine that ``vaultctx obsidian connect`` starts: status, search, a chat turn with the
OpenAI wire fake whose change is confirmed, the ledger and undo. A browser page cannot open a
Unix socket, so the Chromium tests keep the loopback HTTP path; this is the desktop path."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.engine.conftest import DEADLINE, Indexed, engine_env, folder, indexed
from tests.obsidian.plugin_page import stop_started_server
from tests.obsidian.test_plugin_unit import PLUGIN_SOURCE, npm_ready, run
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

__all__ = ["folder", "indexed"]  # the engine tests' fixtures, used here too

CLIENT = Path(__file__).parent / "socket_client.mjs"
NOTE = "30-resources/databases/SQLite tuning.md"
CREATED = "00-inbox/From the engine.md"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    """node, once the plugin's transport is built into obsidian/build/ from this source."""
    node = npm_ready()
    out = tmp_path_factory.mktemp("plugin-build")
    run(node, "esbuild.config.mjs", env={"VAULTCTX_PLUGIN_OUT": str(out)})
    assert (PLUGIN_SOURCE / "build" / "socket_transport.mjs").is_file()
    return node


@pytest.fixture
def user(
    tmp_path: Path, folder: Path, indexed: Indexed
) -> Iterator[tuple[dict[str, str], OpenAIFake]]:
    """The environment `vaultctx obsidian connect` (and so the engine it starts) runs in: the
    OpenAI wire fake in the user's own settings, this test's engine folder. A `vaultctx ui`
    started when the engine was refused is stopped after."""
    config = tmp_path / "config"
    with OpenAIFake() as fake:
        settings = config / "vaultctx" / "vaultctx.toml"
        settings.parent.mkdir(parents=True)
        settings.write_text("[agent]\n" + openai_toml(fake) + "translate = false\n")
        env = engine_env()
        env.update(
            XDG_CONFIG_HOME=str(config),
            OPENAI_TEST=KEY,
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        )
        try:
            yield env, fake
        finally:
            stop_started_server(indexed.db)


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP to a Unix socket, as Node's ``http.request({ socketPath })`` sends it."""

    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=120)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(self.path)


def post(
    found: dict[str, Any], action: str, headers: dict[str, str] | None = None, base: str = ""
) -> tuple[int, dict[str, Any]]:
    connection = UnixHTTPConnection(found["socket"])
    sent = {"Content-Type": "application/json", **(headers or {})}
    try:
        path = f"{base or found['base']}/vaultctx/obsidian/{action}"
        connection.request("POST", path, body=b"{}", headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        return response.status, json.loads(text) if text.startswith("{") else {}
    finally:
        connection.close()


def connect(indexed: Indexed, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", "obsidian", "connect", *indexed.args(), *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=DEADLINE + 60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def connected(indexed: Indexed, env: dict[str, str]) -> dict[str, Any]:
    done = connect(indexed, env)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return {**data, "stderr": done.stderr} if "socket" not in data else data


def test_the_plugins_transport_talks_to_a_real_engine(
    built: str, indexed: Indexed, folder: Path, user: tuple[dict[str, str], OpenAIFake]
) -> None:
    env, fake = user
    found = connected(indexed, env)
    assert set(found) == {"socket", "base", "pid", "started"}, found  # no token, no address
    assert found["socket"] == str(folder / runtime.PLUGIN_SOCKET_NAME)
    assert found["started"] is True
    assert connected(indexed, env) == {**found, "started": False}  # the same engine, found
    status = subprocess.run(
        [sys.executable, "-m", "vaultctx", "engine", "status"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert f"Obsidian plugin socket {found['socket']}" in status.stdout, status.stdout
    fake.queue(
        Answer(tool_calls=[ToolCall("create_note", {"path": CREATED, "content": "# Engine\n"})]),
        Answer(["Created it."]),
    )
    done = subprocess.run(
        [built, str(CLIENT), json.dumps(found), "WAL mode readers writer", "make a note"],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answered = json.loads(done.stdout)
    assert answered["status"]["indexed"] is True and answered["status"]["files"] > 20
    assert NOTE in answered["search"]
    answer = answered["answer"]
    assert answer["done"] and answer["error"] is None, answer
    assert answer["text"] == "Created it."
    assert [c["tool"] for c in answer["confirms"]] == ["create_note"]
    assert "+# Engine" in answer["confirms"][0]["diff"]
    assert answered["newest"]["paths"] == [CREATED]
    assert answered["undone"]["paths"] == [CREATED]
    assert not (indexed.vault / CREATED).exists()
    assert fake.last("/chat/completions").json["model"] == "gpt-5.2"  # the engine asked the fake


def test_an_engine_with_other_settings_is_not_given_to_the_plugin(
    indexed: Indexed, folder: Path, user: tuple[dict[str, str], OpenAIFake], tmp_path: Path
) -> None:
    """The engine reads the settings of the environment it started in: a plugin whose
    `vaultctx` runs with another config folder must not get answers decided by those."""
    env, _fake = user
    assert "socket" in connected(indexed, env)
    other = {**env, "XDG_CONFIG_HOME": str(tmp_path / "other-config")}
    done = connect(indexed, other, "--no-start")
    assert "the engine runs with another XDG_CONFIG_HOME" in done.stderr, done.stderr
    assert '"socket"' not in done.stdout


def test_the_plugins_requests_keep_the_engine_from_its_idle_exit(
    indexed: Indexed, folder: Path, user: tuple[dict[str, str], OpenAIFake]
) -> None:
    found = connected(indexed, {**user[0], client.IDLE_ENV: "4"})
    until = time.monotonic() + 12  # three idle timeouts, a request a second
    while time.monotonic() < until:
        assert post(found, "status")[0] == 200
        time.sleep(1)
    deadline = time.monotonic() + DEADLINE  # then silence: it exits, its sockets removed
    while Path(found["socket"]).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(found["socket"]).exists()
    assert not (folder / runtime.SOCKET_NAME).exists()
