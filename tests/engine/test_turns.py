"""``ask`` and ``chat`` through a real engine, the backend an OpenAI wire fake: the same output as
in-process, two turns at once, Ctrl-C and a killed client cancelling the backend's request, a
change confirmed at the client's terminal, and the fallbacks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from tests.agent.cli_support import KEY, agent_env, openai_toml
from tests.agent.fakes import Answer, Hold, OpenAIFake, ToolCall
from tests.engine.conftest import Indexed, engine_answers, rest, wait_for
from tests.terminal_signals import ctrl_c_as_from_a_terminal
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

TURN_NOTE = "vaultctx: answered by the engine"
SETTINGS = "translate = false\n"


def turn_env(tmp_path: Path, fake: OpenAIFake, folder: Path, extra: str = "") -> dict[str, str]:
    """The agent's private config pointing at ``fake``, and this test's engine folder."""
    env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake) + SETTINGS + extra, OPENAI_TEST=KEY)
    env.update(
        VAULTCTX_ENGINE="on",
        VAULTCTX_RUNTIME_DIR=str(folder),
        VAULTCTX_ENGINE_IDLE_SECONDS="600",
        VAULTCTX_VERBOSE="1",
    )
    return env


def start_engine(env: dict[str, str]) -> None:
    """An engine started with ``env`` (as the first client of that environment starts it).
    ``engine start`` waits 60 s for it; on a loaded machine the test waits longer itself."""
    subprocess.run(
        [sys.executable, "-m", "vaultctx", "engine", "start"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    wait_for(engine_answers, "the engine answers", deadline=180.0)


def argv(indexed: Indexed, *args: str) -> list[str]:
    return [sys.executable, "-m", "vaultctx", *indexed.args(*args)]


def run(
    indexed: Indexed, env: dict[str, str], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv(indexed, *args), input=stdin, capture_output=True, text=True, env=env, timeout=300
    )


def off(env: dict[str, str]) -> dict[str, str]:
    return {**env, "VAULTCTX_ENGINE": "off"}


def test_ask_through_the_engine_prints_what_in_process_prints(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        text = ["WAL mode ", "lets readers read ", "[[nowhere]] while one writes."]
        fake.queue(*[Answer(text) for _ in range(4)])
        engine = run(indexed, env, "ask", "what is WAL mode?")
        local = run(indexed, off(env), "ask", "what is WAL mode?")
        engine_json = run(indexed, env, "ask", "-", "--json", stdin="what is WAL mode?")
        local_json = run(indexed, off(env), "ask", "-", "--json", stdin="what is WAL mode?")
        bodies = [r.json for r in fake.requests_to("/chat/completions")]
    assert TURN_NOTE in engine.stderr and TURN_NOTE in engine_json.stderr, engine.stderr
    assert TURN_NOTE not in local.stderr
    assert (engine.returncode, engine.stdout) == (local.returncode, local.stdout)
    assert engine.stdout == "".join(text) + "\n"
    assert rest(engine) == rest(local)
    assert "unresolved citation: [[nowhere]]" in engine.stderr
    answers = [json.loads(r.stdout) for r in (engine_json, local_json)]
    for answer in answers:
        answer.pop("conversation_id")
    assert answers[0] == answers[1]
    assert answers[0]["question"] == "what is WAL mode?"
    assert bodies[0] == bodies[1]  # the same request reached the backend
    assert KEY not in engine.stdout + engine.stderr


def test_two_asks_at_once_are_both_answered_by_the_engine(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        fake.queue(Answer("first answer", delay=3), Answer("first answer", delay=3))
        clients = [
            subprocess.Popen(
                argv(indexed, "ask", f"question {n}"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for n in range(2)
        ]
        outputs = [c.communicate(timeout=300) for c in clients]
        asked = fake.requests_to("/chat/completions")
    assert [c.returncode for c in clients] == [0, 0], outputs
    assert [out for out, _ in outputs] == ["first answer\n", "first answer\n"]
    assert all(TURN_NOTE in err for _, err in outputs)
    # Each question reached the backend once (not by sorting the requests: the date block's
    # minute can differ between them and decide the order).
    requests = [json.dumps(r.json) for r in asked]
    assert len(requests) == 2
    assert sorted(n for n in range(2) for r in requests if f"question {n}" in r) == [0, 1]


class Output:
    """A client's stdout and stderr, read as they arrive."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.text = {"out": b"", "err": b""}
        for name, stream in (("out", process.stdout), ("err", process.stderr)):
            assert stream is not None
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream: IO[bytes]) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            self.text[name] += chunk


def mid_answer(indexed: Indexed, env: dict[str, str], fake: OpenAIFake) -> subprocess.Popen[bytes]:
    """An ``ask`` whose answer has begun to stream and then waits (the backend holds it)."""
    fake.queue(Answer(["The beginning, ", "never the end."], fault=Hold(after=2)))
    process = subprocess.Popen(
        argv(indexed, "ask", "a long question"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=ctrl_c_as_from_a_terminal,
    )
    output = Output(process)
    wait_for(lambda: b"The beginning" in output.text["out"], "the answer begins")
    process.output = output  # type: ignore[attr-defined]
    return process


def test_ctrl_c_in_the_client_cancels_the_turn_in_the_engine(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        pid = engine_pid_now()
        process = mid_answer(indexed, env, fake)
        # The turn holds the vault's lock for its searches only, not while the model answers.
        search = run(indexed, env, "search", "write-ahead log", "--limit", "1")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
        wait_for(lambda: fake.closed_by_client == 1, "the backend sees the request closed")
        fake.queue(Answer("the next answer"))
        after = run(indexed, env, "ask", "and now?")
    output: Output = process.output  # type: ignore[attr-defined]
    assert output.text["out"] == b"The beginning, \n"
    assert b"never the end" not in output.text["out"]
    assert after.returncode == 0 and after.stdout == "the next answer\n", after.stderr
    assert TURN_NOTE in after.stderr
    assert search.returncode == 0 and TURN_NOTE in search.stderr, search.stderr
    assert engine_pid_now() == pid  # the same engine, healthy


def test_a_killed_client_cancels_its_turn(indexed: Indexed, folder: Path, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        process = mid_answer(indexed, env, fake)
        process.kill()
        process.wait(timeout=60)
        wait_for(lambda: fake.closed_by_client == 1, "the backend sees the request closed")
        fake.queue(Answer("still here"))
        after = run(indexed, env, "ask", "still there?")
    assert after.stdout == "still here\n" and TURN_NOTE in after.stderr, after.stderr


def test_an_engine_killed_mid_turn_is_said_once_and_not_resent(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        process = mid_answer(indexed, env, fake)
        doomed = engine_pid_now()
        os.kill(doomed, signal.SIGKILL)
        assert process.wait(timeout=60) == 2
        asked = len(fake.requests_to("/chat/completions"))
        # A new engine is started for the next command (and stopped by the fixture).
        wait_for(lambda: engine_answers() and engine_pid_now() != doomed, "a new engine")
    err = process.output.text["err"].decode()  # type: ignore[attr-defined]
    assert err.count("the engine stopped in the middle of this turn") == 1, err
    assert "vaultctx ledger" in err
    assert asked == 1  # not sent again


def test_without_an_engine_ask_answers_in_process_and_starts_one(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        fake.queue(Answer("here"), Answer("there"))
        first = run(indexed, env, "ask", "-", stdin="where?")
        wait_for(engine_answers, "the engine started after the answer")
        second = run(indexed, env, "--no-engine", "ask", "where?")
    assert first.returncode == 0 and first.stdout == "here\n", first.stderr
    assert TURN_NOTE not in first.stderr and "no engine yet" in first.stderr
    assert second.stdout == "there\n" and TURN_NOTE not in second.stderr


def test_another_environment_runs_its_turn_itself(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        env = turn_env(tmp_path, fake, folder)
        start_engine(env)
        fake.queue(Answer("mine"))
        other = run(indexed, {**env, "SOME_SETTING": "different"}, "ask", "whose?")
    assert other.stdout == "mine\n", other.stderr
    assert TURN_NOTE not in other.stderr
    assert "the engine runs with another environment" in other.stderr


def engine_pid_now() -> int:
    hello, _answer = client.request({"op": "status"})
    return int(hello["pid"])


def test_a_chat_through_the_engine_confirms_a_change_at_the_client_terminal(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    """On a pty: the change's question is shown by the client, the typed answer goes to the
    engine, the note is made and recorded; the next question continues the conversation."""
    import pty

    from tests.agent.test_chat_confirm_pty import Terminal

    call = ToolCall("create_note", {"path": "engine-made.md", "content": "# Made\n"})
    with OpenAIFake() as fake:
        env = {**turn_env(tmp_path, fake, folder, "confirm_changes = true\n"), "TERM": "xterm"}
        env["PROMPT_TOOLKIT_NO_CPR"] = "1"
        start_engine(env)
        fake.queue(Answer(tool_calls=[call]), Answer("Finished."), Answer("Second."))
        command = argv(indexed, "chat")
        pid, fd = pty.fork()
        if pid == 0:  # the child: the chat's client on the pty
            os.execvpe(command[0], command, env)
        terminal = Terminal(fd)
        try:
            terminal.type("make a note\r")
            assert terminal.wait_for(b"Run it? [y]es / [n]o / [a]lways"), terminal.seen[-2000:]
            assert b"+++ b/engine-made.md" in terminal.seen
            terminal.type("y\r")
            assert terminal.wait_for(b"Finished."), terminal.seen[-2000:]
            terminal.type("and then?\r")
            assert terminal.wait_for(b"Second."), terminal.seen[-2000:]
            terminal.type("/quit\r")  # read once the prompt is back, however late
            status = exit_status(pid, terminal)
        finally:
            os.close(fd)
            if not exited(pid):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        bodies = [json.dumps(r.json) for r in fake.requests_to("/chat/completions")]
    assert status == 0, terminal.seen[-2000:]
    assert TURN_NOTE.encode() in terminal.seen
    assert (indexed.vault / "engine-made.md").read_text() == "# Made\n"
    assert "make a note" in bodies[2]  # the conversation went on in the engine
    ledger = subprocess.run(
        argv(indexed, "ledger", "--json"), capture_output=True, text=True, env=off(env), timeout=120
    )
    assert "engine-made.md" in ledger.stdout, ledger.stderr
    assert runtime.SOCKET_NAME in os.listdir(folder)


def exit_status(pid: int, terminal: object, deadline: float = 60.0) -> int | None:
    """The child's exit code once it has exited (its terminal read meanwhile), None if not."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        terminal.wait_for(b"\x00", seconds=0.2)  # type: ignore[attr-defined]
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            _exited.add(pid)
            return os.waitstatus_to_exitcode(status)
    return None


_exited: set[int] = set()


def exited(pid: int) -> bool:
    return pid in _exited


def test_ctrl_c_in_a_chat_stops_the_answer_in_the_engine_and_the_chat_goes_on(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    """As in-process (tests/agent/test_chat_cli.py): the first Ctrl-C stops the answer (the
    backend's request is closed), the next question is answered, Ctrl-C at the prompt leaves."""
    import pty

    from tests.agent.test_chat_cli import PROMPT, _Screen

    with OpenAIFake() as fake:
        env = {**turn_env(tmp_path, fake, folder), "PROMPT_TOOLKIT_NO_CPR": "1"}
        start_engine(env)
        fake.queue(Answer(["Slow ", "never shown"], fault=Hold(after=2)), Answer("Second answer."))
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            argv(indexed, "chat"),
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
            screen.wait_for("Slow")
            os.killpg(process.pid, signal.SIGINT)
            screen.wait_for("stopped")
            wait_for(lambda: fake.closed_by_client == 1, "the backend sees the request closed")
            screen.wait_for(PROMPT)
            os.write(leader, b"next question\r")
            screen.wait_for("Second answer.")
            screen.wait_for(PROMPT)
            os.killpg(process.pid, signal.SIGINT)
            screen.wait_for(TURN_NOTE)  # said as the chat ends: it ran in the engine
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
            os.close(leader)
    assert "never shown" not in screen.text
