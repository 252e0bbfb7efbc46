"""The Second Brain where other commands run it: the stale check after each ``vaultctx watch``
batch, and ``synthesize_topic`` called by a model in ``vaultctx ask`` (both real processes)."""

from __future__ import annotations

import asyncio
import json
import logging
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, ask, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.brain.conftest import CHANGE, ScriptedText
from vaultctx.api import Vault
from vaultctx.brain.markers import read_block
from vaultctx.brain.synthesis import synthesize_topic

NOTE = "Second Brain/compost.md"


def json_lines_until(stream: IO[str], kind: str, deadline: float) -> dict[str, object]:
    """The first JSON line of ``kind`` the process prints before ``deadline``."""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = stream.readline()
        if not line:
            break
        event = json.loads(line)
        if event.get("kind") == kind:
            return dict(event)
    raise AssertionError(f"no {kind!r} line before the deadline")


def test_watch_marks_a_synthesis_stale_after_a_batch(vault: Vault, tmp_path: Path) -> None:
    asyncio.run(synthesize_topic(vault, ScriptedText("Compost."), "compost", change=CHANGE))
    (vault.path / "Compost.md").write_text("# Compost\n\nNow with worms.\n", encoding="utf-8")
    env = agent_env(tmp_path, "")
    argv = [sys.executable, "-m", "vaultctx", "watch", "--json", "--no-quality"]
    argv += ["--vault", str(vault.path), "--db", str(vault.db_path)]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None
        event = json_lines_until(process.stdout, "second_brain", time.monotonic() + 180)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    stale = event["stale"]
    assert isinstance(stale, list) and [s["path"] for s in stale] == [NOTE]
    assert event["rewritten"] == [NOTE]
    assert "> [!warning] Outdated synthesis" in (vault.path / NOTE).read_text(encoding="utf-8")
    assert "Traceback" not in stderr


def test_a_model_synthesizes_a_topic_in_ask(vault: Vault, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        fake.queue(
            Answer(tool_calls=[ToolCall("synthesize_topic", {"topic": "compost"})]),
            Answer("Compost feeds the beds."),  # the tool's own question to the model
            Answer("I wrote the synthesis."),
        )
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        indexed = Indexed(vault.path, vault.db_path)
        result = ask(indexed, env, "synthesize compost", "--json", "--allow-changes")
        sent = [r.json for r in fake.requests if r.method == "POST"]
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "I wrote the synthesis."
    text = (vault.path / NOTE).read_text(encoding="utf-8")
    assert read_block(text, "synthesis") == "Compost feeds the beds."
    tool_results = [m["content"] for m in sent[-1]["messages"] if m.get("role") == "tool"]
    assert tool_results and tool_results[0].startswith(f"Synthesis note created: {NOTE}")
    assert "tools" not in sent[1]  # the tool's question: one prompt, no tools
    assert vault.ledger()[0].label == "synthesize_topic compost"


def test_the_servers_watcher_marks_after_a_batch_that_changed_files(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    from vaultctx.index.watch import WatchEvent
    from vaultctx.mcp.watch_events import after_watch_event

    asyncio.run(synthesize_topic(vault, ScriptedText("Compost."), "compost", change=CHANGE))
    on_event = after_watch_event(vault.config)
    (vault.path / "Compost.md").write_text("# Compost\n\nNow with worms.\n", encoding="utf-8")
    quiet = vault.index(fast=True)
    on_event(WatchEvent("quality", 0, quiet, "0 s"))  # pass 2: sources did not change
    assert "[!info]" in (vault.path / NOTE).read_text(encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="vaultctx.mcp.watch_events"):
        on_event(WatchEvent("indexed", 1, quiet, "0.1 s"))
    assert "> [!warning] Outdated synthesis" in (vault.path / NOTE).read_text(encoding="utf-8")
    assert f"Second Brain: {NOTE} is outdated (changed: Compost.md)" in caplog.text
