"""`vaultctx chat`: slash commands, history across turns, saved conversations, and Ctrl-C."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.cli_in_process import run_vaultctx
from tests.terminal_signals import ctrl_c_as_from_a_terminal

CHAT_SETTINGS = "translate = false\n"
PROMPT = "[gpt-5.2 · medium] >"


def test_a_piped_chat_keeps_history_effort_and_saves_each_turn(
    indexed: Indexed, tmp_path: Path
) -> None:
    script = (
        "/effort high\nwhat is WAL mode?\n/save\nand the checkpoint?\n/new\nsomething else\n/quit\n"
    )
    with OpenAIFake() as fake:
        fake.queue(Answer("WAL lets readers read."), Answer("Run a checkpoint."), Answer("Other."))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + CHAT_SETTINGS, OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "chat", stdin=script)
        chats = [r.json for r in fake.requests_to("/chat/completions")]
        listed = subprocess.run(
            [
                sys.executable,
                "-m",
                "vaultctx",
                "conversations",
                "list",
                "--json",
                "--vault",
                str(indexed.vault),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "WAL lets readers read.\nRun a checkpoint.\nOther.\n"
    assert [c["reasoning_effort"] for c in chats] == ["high", "high", "high"]
    second = json.dumps(chats[1])
    assert "what is WAL mode?" in second and "WAL lets readers read." in second
    third = json.dumps(chats[2])
    assert "what is WAL mode?" not in third  # /new forgot the first conversation
    assert "saved as " in result.stderr
    assert KEY not in result.stdout + result.stderr
    conversations = json.loads(listed.stdout)
    assert sorted(c["title"] for c in conversations) == ["something else", "what is WAL mode?"]
    assert sorted(c["messages"] for c in conversations) == [2, 4]


def test_bad_slash_commands_are_one_line_and_the_chat_goes_on(
    indexed: Indexed, tmp_path: Path
) -> None:
    script = "/effort huge\n/frobnicate\n/attach /nonexistent/file.pdf\n/model\nhello\n"
    with OpenAIFake() as fake:
        fake.queue(Answer("Hi."))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + CHAT_SETTINGS, OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "chat", stdin=script)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hi.\n"
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 4, result.stderr
    assert "unknown command /frobnicate; type /help for the list" in result.stderr
    assert "Traceback" not in result.stderr


def test_ctrl_c_stops_the_answer_and_a_second_leaves(indexed: Indexed, tmp_path: Path) -> None:
    """The first Ctrl-C cancels an answer that is taking long (well within a second); the chat
    keeps going and the next question is answered; Ctrl-C at the prompt leaves."""
    with OpenAIFake() as fake:
        fake.queue(Answer("never shown", delay=120), Answer("Second answer."))
        env = agent_env(
            tmp_path,
            "[agent]\n" + openai_toml(fake) + CHAT_SETTINGS,
            OPENAI_TEST=KEY,
            PROMPT_TOOLKIT_NO_CPR="1",
        )
        argv = [sys.executable, "-m", "vaultctx", "chat", "--vault", str(indexed.vault)]
        argv += ["--db", str(indexed.db)]
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            argv,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=env,
            start_new_session=True,
            preexec_fn=ctrl_c_as_from_a_terminal,
        )
        os.close(follower)
        screen = _Screen(leader)
        try:
            screen.wait_for(PROMPT)
            os.write(leader, b"slow question\r")
            fake.wait_for_requests(1, timeout=120)
            asked = time.monotonic()
            os.killpg(process.pid, signal.SIGINT)
            screen.wait_for("stopped")
            stopped_in = time.monotonic() - asked
            screen.wait_for(PROMPT)
            os.write(leader, b"next question\r")
            screen.wait_for("Second answer.")
            screen.wait_for(PROMPT)
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
            os.close(leader)
    assert stopped_in < 5.0  # generous for a loaded machine; typically well under a second
    assert "never shown" not in screen.text


class _Screen:
    """What a terminal would show, read from the pty as it arrives."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.text = ""
        self._seen = 0

    def wait_for(self, needle: str, timeout: float = 120.0) -> None:
        import select

        deadline = time.monotonic() + timeout
        while True:
            found = self.text.find(needle, self._seen)
            if found >= 0:
                self._seen = found + len(needle)
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text[-2000:]}")
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    self.text += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    raise AssertionError(f"the chat ended; screen:\n{self.text[-2000:]}") from None


def test_resume_continues_a_saved_conversation(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        fake.queue(Answer("Quokkas live on Rottnest."), Answer("By ferry."))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + CHAT_SETTINGS, OPENAI_TEST=KEY)
        first = vaultctx(indexed, env, "chat", stdin="where do quokkas live?\n/save\n/quit\n")
        assert first.returncode == 0, first.stderr
        saved = first.stderr.split("saved as ", 1)[1].split()[0].strip("`.")
        second = vaultctx(indexed, env, "chat", "--resume", saved[:8], stdin="how to get there?\n")
        unknown = vaultctx(indexed, env, "chat", "--resume", "nosuchid", stdin="hello?\n")
        chats = [json.dumps(r.json) for r in fake.requests_to("/chat/completions")]
        show = ["conversations", "show", saved, "--json", "--vault", str(indexed.vault)]
        export = run_vaultctx(show, env=env)
    assert second.returncode == 0, second.stderr
    assert f"continuing conversation {saved}" in second.stderr
    assert second.stdout == "By ferry.\n"
    assert len(chats) == 2  # the unknown id asked nothing
    assert "where do quokkas live?" in chats[1] and "Quokkas live on Rottnest." in chats[1]
    assert unknown.returncode != 0 and "nosuchid" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    messages = json.loads(export.stdout)["messages"]
    assert [m["text"] for m in messages] == [
        "where do quokkas live?",
        "Quokkas live on Rottnest.",
        "how to get there?",
        "By ferry.",
    ]
