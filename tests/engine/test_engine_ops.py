"""The engine's housekeeping: a log that rotates and, like its pid file, only this user can
read; a socket path too long for the system named with its fix; ``--no-engine`` wherever it is
written on the command line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.engine.conftest import Indexed, by_engine, engine_answers, vaultctx, wait_for
from vaultctx.cli.entry import without_no_engine
from vaultctx.engine import logs
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

QUERY = ("search", "vault notes", "--limit", "1")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_log_rotates_and_its_files_and_the_pid_are_private(
    indexed: Indexed, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(logs.LOG_BYTES_ENV, "200")
    old_umask = os.umask(0o022)  # what a user's shell usually has: files readable by all
    try:
        assert vaultctx(["engine", "start"]).returncode == 0
        wait_for(engine_answers, "the engine answers")
        for _ in range(4):  # each run logs a line or two
            assert by_engine(vaultctx(indexed.args("index", "-q")))
    finally:
        os.umask(old_umask)
    log = folder / runtime.LOG_NAME
    rotated = sorted(folder.glob(runtime.LOG_NAME + "*"))
    assert rotated == [log, log.with_name("engine.log.1"), log.with_name("engine.log.2")]
    for file in rotated:
        assert mode(file) == 0o600, file
        assert file.stat().st_size < 200 + 400, file  # one record past the bound at most
    assert mode(folder / runtime.PID_NAME) == 0o600
    assert "index, exit 0" in "".join(file.read_text() for file in rotated)


def test_a_socket_path_too_long_is_named_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    deep.mkdir(parents=True, mode=0o700)
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(deep))
    with pytest.raises(runtime.SocketPathTooLongError) as raised:
        client.socket_path()
    said = raised.value.one_line()
    assert str(deep / runtime.SOCKET_NAME) in said
    assert f"set {runtime.RUNTIME_ENV} to a shorter folder" in said


def test_a_command_with_a_socket_path_too_long_runs_in_process_and_says_why(
    indexed: Indexed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    deep.mkdir(parents=True, mode=0o700)
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(deep))
    monkeypatch.setenv(client.ENGINE_ENV, "on")
    run = vaultctx(indexed.args(*QUERY))
    assert run.returncode == 0 and run.stdout and not by_engine(run)
    assert f"set {runtime.RUNTIME_ENV} to a shorter folder" in run.stderr
    assert "Traceback" not in run.stderr and "OSError" not in run.stderr
    status = vaultctx(["engine", "status"])
    assert status.returncode != 0 and "Traceback" not in status.stderr
    assert f"set {runtime.RUNTIME_ENV} to a shorter folder" in status.stderr
    assert not list(deep.iterdir())


def test_no_engine_in_the_middle_of_the_arguments(indexed: Indexed, folder: Path) -> None:
    assert vaultctx(["engine", "start"]).returncode == 0
    wait_for(engine_answers, "the engine answers")
    assert by_engine(vaultctx(indexed.args(*QUERY)))
    for args in (
        ["search", "--no-engine", "vault notes", "--limit", "1"],
        [*QUERY, "--no-engine"],
    ):
        run = vaultctx(indexed.args(*args))
        assert run.returncode == 0 and run.stdout, run.stderr
        assert not by_engine(run), args


def test_no_engine_is_removed_before_the_parser_sees_it() -> None:
    assert without_no_engine(["search", "--no-engine", "q"]) == ["search", "q"]
    assert without_no_engine(["--no-engine", "index", "--no-engine"]) == ["index"]
    # after `--` it is a value: a search for that very text
    assert without_no_engine(["search", "--", "--no-engine"]) == ["search", "--", "--no-engine"]
    assert without_no_engine(["status"]) == ["status"]
