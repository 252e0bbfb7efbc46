"""``vaultctx chat`` on a real terminal (a pty) with ``confirm_changes`` (on by default): the
question shows the tool, its arguments and the diff, and the answer typed at it decides."""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, agent_env, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.conftest import copy_example_vault
from vaultctx.api import Vault

pty = pytest.importorskip("pty")


class Terminal:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.seen = b""

    def wait_for(self, token: bytes, seconds: float = 120) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    self.seen += os.read(self.fd, 4096)
                except OSError:
                    return False
                if token in self.seen:
                    return True
        return False

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())


@pytest.mark.parametrize(
    ("reply", "created", "setting"),
    [
        ("y", True, "confirm_changes = true\n"),
        ("n", False, "confirm_changes = true\n"),
        ("n", False, ""),
    ],
)
def test_the_terminal_question_decides(
    tmp_path: Path, reply: str, created: bool, setting: str
) -> None:
    """``setting`` "": confirm_changes is not set, and the chat asks all the same (the default)."""
    root = copy_example_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(root, db=db) as vault:
        vault.index(fast=True)
    call = ToolCall("create_note", {"path": "a.md", "content": "# A\n"})
    with OpenAIFake() as fake:
        fake.queue(Answer(tool_calls=[call]), Answer("Finished."))
        toml = "[agent]\n" + openai_toml(fake) + "translate = false\n" + setting
        env = agent_env(tmp_path, toml, OPENAI_TEST=KEY, TERM="xterm")
        argv = [sys.executable, "-m", "vaultctx", "chat", "--vault", str(root), "--db", str(db)]
        pid, fd = pty.fork()
        if pid == 0:  # the child: the chat on the pty
            os.execvpe(argv[0], argv, env)
        terminal = Terminal(fd)
        try:
            terminal.type("make a note\r")
            assert terminal.wait_for(b"Run it? [y]es / [n]o / [a]lways"), terminal.seen[-2000:]
            assert b"The assistant wants to run create_note with:" in terminal.seen
            assert b"+++ b/a.md" in terminal.seen
            terminal.type(reply + "\r")
            assert terminal.wait_for(b"Finished."), terminal.seen[-2000:]
            terminal.type("\x04")
            terminal.wait_for(b"\x00", seconds=5)
        finally:
            os.close(fd)
            os.waitpid(pid, 0)
    assert (root / "a.md").exists() is created
    assert b"pydantic-ai v" not in terminal.seen  # no first-run banner in the chat


@pytest.mark.parametrize(("reply", "created"), [("y", True), ("n", False)])
def test_ask_at_a_terminal_asks_as_chat_does(tmp_path: Path, reply: str, created: bool) -> None:
    """`ask` with a terminal puts the question (confirm_changes, on by default), and the answer
    decides; only without a terminal are changes denied outright."""
    root = copy_example_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(root, db=db) as vault:
        vault.index(fast=True)
    call = ToolCall("create_note", {"path": "a.md", "content": "# A\n"})
    with OpenAIFake() as fake:
        fake.queue(Answer(tool_calls=[call]), Answer("Finished."))
        toml = "[agent]\n" + openai_toml(fake) + "translate = false\n"
        env = agent_env(tmp_path, toml, OPENAI_TEST=KEY, TERM="xterm")
        argv = [sys.executable, "-m", "vaultctx", "ask", "make a note"]
        argv += ["--vault", str(root), "--db", str(db)]
        pid, fd = pty.fork()
        if pid == 0:  # the child: ask on the pty
            os.execvpe(argv[0], argv, env)
        terminal = Terminal(fd)
        try:
            assert terminal.wait_for(b"Run it? [y]es / [n]o / [a]lways"), terminal.seen[-2000:]
            assert b"+++ b/a.md" in terminal.seen
            terminal.type(reply + "\r")
            assert terminal.wait_for(b"Finished."), terminal.seen[-2000:]
            terminal.wait_for(b"\x00", seconds=5)
        finally:
            os.close(fd)
            os.waitpid(pid, 0)
    assert (root / "a.md").exists() is created
    assert b"were denied" not in terminal.seen  # the user decided: nothing to report
