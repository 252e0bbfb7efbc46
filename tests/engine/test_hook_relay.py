"""``vaultctx hook context|compress`` as Claude Code runs them, with the user's engine: the
first hook of a cold machine answers in-process and starts the engine, the next ones are
answered by it (the event travels with the command line), and a hook started from inside a
hook still does nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.engine.conftest import (
    Indexed,
    by_engine,
    engine_answers,
    engine_env,
    rest,
    wait_for,
)
from tests.hooks import events

PROMPT = "How do we roll back the billing service deploy?"


def hook(
    indexed: Indexed, kind: str, event: dict[str, Any], **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *indexed.args("hook", kind)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={**engine_env(), **env},
        timeout=240,
    )


def added_context(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 0, run.stderr
    return str(json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"])


def test_the_first_hook_answers_here_and_starts_the_engine_which_answers_the_next(
    indexed: Indexed, folder: Path
) -> None:
    first = hook(indexed, "context", events.user_prompt_submit(PROMPT))
    assert not by_engine(first) and "no engine yet" in first.stderr
    assert "billing-service" in added_context(first)
    wait_for(engine_answers, "the engine started by the first hook answers")
    second = hook(indexed, "context", events.user_prompt_submit(PROMPT))
    assert by_engine(second), second.stderr
    assert "billing-service" in added_context(second)
    assert rest(second) == ""


def test_compress_through_the_engine_is_the_in_process_answer(
    indexed: Indexed, folder: Path
) -> None:
    data = Path(__file__).parents[1] / "hooks" / "data" / "pytest_verbose_1_failed.txt"
    event = events.post_tool_use_bash("pytest -v", data.read_text(encoding="utf-8"))
    here = hook(indexed, "compress", event, VAULTCTX_ENGINE="off")
    hook(indexed, "compress", event)  # starts the engine
    wait_for(engine_answers, "the engine answers")
    engine = hook(indexed, "compress", event)
    assert by_engine(engine), engine.stderr
    assert engine.stdout == here.stdout and "FAILED" in engine.stdout


def test_a_hook_inside_a_hook_does_nothing_and_starts_nothing(
    indexed: Indexed, folder: Path
) -> None:
    run = hook(indexed, "context", events.user_prompt_submit(PROMPT), VAULTCTX_HOOK_ACTIVE="1")
    assert run.returncode == 0 and run.stdout == ""
    assert "engine" not in run.stderr, "neither sent to an engine nor starting one"
    assert not engine_answers()
