"""``vaultctx ask`` beside a running server: its searches are answered there (the models are
loaded), the model is called from the asking process with its own key, and the model is sent
the same passages as when the process searches itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.agent.cli_support import KEY, agent_env, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.cli_server.conftest import Served

ANSWERED = "vaultctx: searches answered by the server at "
QUESTION = "how do we roll back the billing deploy?"


def ask(served: Served, fake: OpenAIFake, tmp_path: Path, **env: str) -> tuple[str, str]:
    """The process's stderr and the last request the backend received (its clock line cut)."""
    environment = agent_env(
        tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
    )
    environment.update(VAULTCTX_VERBOSE="1", **env)
    argv = [sys.executable, "-m", "vaultctx", "ask", QUESTION]
    argv += ["--vault", str(served.vault), "--db", str(served.db)]
    done = subprocess.run(
        argv, capture_output=True, text=True, env=environment, timeout=300, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr
    sent = json.dumps([r.json for r in fake.requests if r.method == "POST"], ensure_ascii=False)
    return done.stderr, re.sub(r"Current local date and time[^\"]*", "", sent)


def turn(fake: OpenAIFake) -> None:
    """The model searches once more with the tool, then answers."""
    fake.queue(
        Answer(tool_calls=[ToolCall("search_vault", {"query": "billing rollback", "limit": 3})]),
        Answer("Roll it back with the runbook."),
    )


def test_ask_searches_through_the_server_and_sends_the_same_passages(
    served: Served, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        turn(fake)
        stderr, through_server = ask(served, fake, tmp_path / "a")
    assert ANSWERED in stderr
    with OpenAIFake() as fake:
        turn(fake)
        stderr, in_process = ask(served, fake, tmp_path / "b", VAULTCTX_NO_SERVER="1")
    assert ANSWERED not in stderr
    assert "Billing service" in through_server  # a passage went with the question
    base = re.compile(r"http://127\.0\.0\.1:\d+")
    assert base.sub("", through_server) == base.sub("", in_process)


def test_a_server_that_went_away_leaves_the_search_in_process(
    served: Served, tmp_path: Path
) -> None:
    """A record naming a listener that is not there: one failed connection, then in-process."""
    from vaultctx.loopback import server_link

    db = tmp_path / "copy.db"
    db.write_bytes(served.db.read_bytes())
    record = server_link.state_path(db)
    gone = {"url": "http://127.0.0.1:9", "pid": os.getpid(), "token": "t"}
    record.write_text(json.dumps(gone))
    record.chmod(0o600)
    with OpenAIFake() as fake:
        fake.queue(Answer("Fine."))
        environment = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        environment["VAULTCTX_VERBOSE"] = "1"
        argv = [sys.executable, "-m", "vaultctx", "ask", QUESTION]
        argv += ["--vault", str(served.vault), "--db", str(db)]
        done = subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=300)
        sent = json.dumps([r.json for r in fake.requests if r.method == "POST"])
    assert done.returncode == 0, done.stderr
    assert "searching in-process from now on" in done.stderr
    assert ANSWERED not in done.stderr
    assert "Billing service" in sent
