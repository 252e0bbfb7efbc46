"""A model's answer (or a saved one) never drives the user's terminal: escape sequences a
prompt-injected note asked for are dropped before printing (src/vaultctx/text/terminal.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from tests.agent.cli_support import KEY, Indexed, agent_env, ask, indexed_example, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from vaultctx.cli.answer_output import AnswerPrinter
from vaultctx.cli.common import request_consoles
from vaultctx.text.terminal import printable

HOSTILE = [
    "Answer: ",
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x1b[2J",  # clear the screen
    "safe\rEVIL",  # overwrite the line
    "\x9b31m",  # C1 CSI
    "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",  # hidden link target
    "\n",
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    return indexed_example(tmp_path_factory)


@pytest.mark.parametrize("piece", HOSTILE)
def test_no_control_character_survives(piece: str) -> None:
    cleaned = printable(piece)
    assert not any(ord(c) < 32 and c not in "\t\n" for c in cleaned)
    assert not any(0x7F <= ord(c) <= 0x9F for c in cleaned)


def test_text_and_line_ends_are_kept() -> None:
    assert printable("a\tb\r\nc\nd 한글") == "a\tb\nc\nd 한글"


def test_ask_and_conversations_print_no_escape_sequences(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer(HOSTILE))
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        answered = ask(indexed, env, "tell me")
        conversation = json.loads(ask(indexed, env, "again", "--json").stdout)["conversation_id"]
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "vaultctx",
            "conversations",
            "show",
            conversation[:4],
            "--vault",
            str(indexed.vault),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert answered.returncode == 0, answered.stderr
    for output in (answered.stdout, shown.stdout):
        assert "\x1b" not in output and "\x9b" not in output and "\r" not in output
    assert answered.stdout.startswith("Answer: ") and "safeEVIL" in answered.stdout
    assert answered.stderr == ""


def test_a_rendered_answer_shows_each_link_target_and_hides_none() -> None:
    """On a terminal the answer is rendered markdown; a markdown link must not become a terminal
    hyperlink whose target the text hides (a prompt-injected note can ask for one)."""
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100, color_system="standard")
    token = request_consoles.set({"stdout": terminal, "stderr": terminal})
    try:
        with AnswerPrinter(render=True) as printer:
            printer("See [the docs](https://evil.example/steal) ")
            printer("for the **setup**.")
    finally:
        request_consoles.reset(token)
    shown = screen.getvalue()
    assert "\x1b[" in shown, "precondition: rendered as on a terminal"
    assert "\x1b]8;" not in shown
    assert "https://evil.example/steal" in shown
