"""A turn sent to the engine runs with the engine's own settings and keys, which are those of the
user who started it: nothing in the request can point it at another config folder, key or user.

Why this holds: only this user reaches the socket (tests/security/test_engine_socket.py); the
request's environment is filtered to the display's variables and VAULT_PATH/DB_PATH (the
vault, which this user could open in-process all the same); and the engine runs a turn only
when the digest of the client's environment equals its own, so a client whose keys, config
or data folders differ runs its turn itself. Here a request on the raw socket tries both: a
foreign digest is declined before anything runs, and a config folder and key smuggled in the
request's ``env`` are ignored (the backend the engine's config names answers, with its key).
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from tests.agent.cli_support import KEY, agent_env, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from tests.engine.conftest import Indexed, folder, indexed
from tests.engine.test_turns import start_engine, turn_env
from vaultctx.engine_link import client
from vaultctx.engine_link.turn_link import environment_digest

__all__ = ["folder", "indexed"]  # the engine tests' fixtures, used here too
OTHER_KEY = "sk-other-9876543210zyxwvutsrqponm"


def engine_for(tmp_path: Path, fake: OpenAIFake, folder: Path) -> dict[str, str]:
    env = turn_env(tmp_path, fake, folder)
    start_engine(env)
    return env


def raw_turn(indexed: Indexed, digest: str, env: dict[str, str]) -> list[dict[str, Any]]:
    """Every frame the engine sends for an ``ask`` sent by hand, up to its last."""
    request = {
        "protocol": 1,
        "vault": str(indexed.vault.resolve()),
        "db": str(indexed.db.resolve()),
        "argv": ["ask", "whose key?", *indexed.args()],
        "cwd": "/",
        "env": env,
        "terminal": {"stdout": False, "stderr": False, "stdin": False, "size": None},
    }
    message = {"version": client.VERSION, "op": "turn", "request": request, "environment": digest}
    frames = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(240)
        connection.connect(str(client.socket_path()))
        connection.sendall(json.dumps(message).encode() + b"\n")
        for line in connection.makefile("rb"):
            frames.append(json.loads(line))
            if "exit" in frames[-1] or "fallback" in frames[-1]:
                break
    return frames


def test_a_request_of_another_environment_is_declined_before_it_runs(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = engine_for(tmp_path, fake, folder)
        other_config = {**env, "XDG_CONFIG_HOME": str(tmp_path / "elsewhere")}
        frames = raw_turn(indexed, environment_digest(other_config), {})
        asked = fake.requests_to("/chat/completions")
    assert frames[-1].get("fallback") == "the engine runs with another environment", frames
    assert not any("out" in f or "err" in f for f in frames)
    assert asked == []


def test_settings_and_keys_in_the_request_are_not_used(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake(require_key=KEY) as fake, OpenAIFake() as elsewhere:
        env = engine_for(tmp_path, fake, folder)
        other = tmp_path / "other"
        other.mkdir()
        smuggled = agent_env(other, "[agent]\n" + openai_toml(elsewhere))
        fake.queue(Answer("the engine's own backend"))
        frames = raw_turn(
            indexed,
            environment_digest(env),
            {
                "XDG_CONFIG_HOME": smuggled["XDG_CONFIG_HOME"],
                "OPENAI_TEST": OTHER_KEY,
                "HOME": str(other),
            },
        )
        to_elsewhere = elsewhere.requests_to("/chat/completions")
        sent = fake.requests_to("/chat/completions")
    out = "".join(f.get("out", "") for f in frames)
    assert frames[-1].get("exit") == 0, frames
    assert out == "the engine's own backend\n"
    assert to_elsewhere == []
    assert [r.header("authorization") for r in sent] == [f"Bearer {KEY}"]
    assert OTHER_KEY not in json.dumps(frames)
    assert os.environ.get("OPENAI_TEST") != OTHER_KEY
