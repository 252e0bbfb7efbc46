"""``hook compress``: test-runner output reduced to counts and failures, everything else untouched.

The pytest and cargo logs in ``data/`` were captured from real runs; the Jest and ``go test``
logs follow those tools' reporter layouts (see ``data/README.md``). One test runs pytest live.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hooks import events
from tests.hooks.conftest import run_hook_process, subprocess_env
from vaultctx.hooks.claude import compress_answer
from vaultctx.hooks.compress import MARKER, MIN_CHARS, compress_test_output, summarize_test_output

DATA = Path(__file__).parent / "data"


def log(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "runner", "counts", "failure", "detail"),
    [
        (
            "pytest_verbose_1_failed.txt",
            "pytest",
            {"failed": 1, "passed": 201, "skipped": 1},
            "FAILED tests/test_api.py::test_rate_limit_exceeded",
            "assert 200 == 429",
        ),
        (
            "jest_verbose_1_failed.txt",
            "jest",
            {"failed": 1, "skipped": 1, "passed": 201},
            "rate limiter › refuses a burst of 150 requests",
            "Received: 200",
        ),
        (
            "go_test_verbose_1_failed.txt",
            "go test",
            {"passed": 151, "skipped": 1, "failed": 1, "packages ok": 1, "packages failed": 1},
            "TestRateLimitExceeded",
            "status = 200, want 429",
        ),
        (
            "cargo_test_1_failed.txt",
            "cargo test",
            {"passed": 40, "failed": 1, "ignored": 1},
            "tests::rate_limit_exceeded",
            "left: 429",
        ),
    ],
)
def test_each_runner_is_summarised(
    name: str, runner: str, counts: dict[str, int], failure: str, detail: str
) -> None:
    text = log(name)
    summary = summarize_test_output(text)
    assert summary is not None
    assert summary.runner == runner and summary.counts == counts
    assert any(failure in listed for listed in summary.failures)
    compressed, _ = compress_test_output(text) or ("", None)
    assert compressed.startswith(MARKER)
    assert detail in compressed and failure in compressed
    assert len(compressed) < len(text) / 2


def test_cargo_backtraces_are_dropped() -> None:
    compressed, _ = compress_test_output(log("cargo_test_1_failed.txt")) or ("", None)
    assert "stack backtrace" not in compressed and "rust_begin_unwind" not in compressed
    assert "status code after burst" in compressed


def test_passing_tests_are_not_listed() -> None:
    compressed, _ = compress_test_output(log("pytest_verbose_1_failed.txt")) or ("", None)
    assert "test_login_success[7]" not in compressed and "PASSED" not in compressed


@pytest.mark.parametrize(
    "text",
    [
        "short\n" * 10,  # under the threshold
        "drwxr-xr-x  2 me  staff  64 Jan  1 file.txt\n" * 200,  # long, but no test run
        log("pytest_verbose_1_failed.txt").replace(" in 2.24s", ""),  # no summary line
    ],
)
def test_other_output_is_left_alone(text: str) -> None:
    assert compress_test_output(text) is None


def test_compressed_output_is_never_compressed_again() -> None:
    compressed, _ = compress_test_output(log("pytest_verbose_1_failed.txt")) or ("", None)
    assert compress_test_output(compressed + "\n" + "x" * MIN_CHARS) is None


def test_post_tool_use_replaces_the_bash_output_in_its_own_shape() -> None:
    event = events.post_tool_use_bash("pytest -v", log("pytest_verbose_1_failed.txt"), "warn\n")
    answer = compress_answer(event)
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PostToolUse"
    updated: dict[str, Any] = output["updatedToolOutput"]
    assert set(updated) == {"stdout", "stderr", "interrupted", "isImage"}
    assert updated["stdout"].startswith(MARKER) and updated["stderr"] == ""
    assert (updated["interrupted"], updated["isImage"]) == (False, False)
    assert output["additionalContext"] == (
        "vaultctx test summary: pytest: 1 failed, 201 passed, 1 skipped"
    )


def test_jest_output_on_stderr_is_compressed_too() -> None:
    event = events.post_tool_use_bash("npx jest --verbose", "", log("jest_verbose_1_failed.txt"))
    answer = compress_answer(event)
    assert answer is not None
    assert "jest: 1 failed" in answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"]


def test_failed_command_gets_a_summary_as_context() -> None:
    event = events.post_tool_use_failure_bash("pytest", log("pytest_verbose_1_failed.txt"))
    answer = compress_answer(event)
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUseFailure",
            "additionalContext": "vaultctx test summary: pytest: 1 failed, 201 passed, 1 skipped"
            "\nFailed:\n  FAILED tests/test_api.py::test_rate_limit_exceeded - AssertionError:"
            " burst of...",
        }
    }


@pytest.mark.parametrize(
    "event",
    [
        events.post_tool_use_bash(
            "python -m vaultctx.hooks compress", log("cargo_test_1_failed.txt")
        ),
        events.post_tool_use_bash("vaultctx hook compress < x", log("cargo_test_1_failed.txt")),
        {**events.post_tool_use_bash("pytest", ""), "tool_response": {"stdout": 3}},
        {
            **events.post_tool_use_bash("pytest", log("cargo_test_1_failed.txt")),
            "tool_name": "Read",
        },
        {
            **events.post_tool_use_bash("cargo test", log("cargo_test_1_failed.txt")),
            "tool_response": {"stdout": log("cargo_test_1_failed.txt"), "interrupted": True},
        },
        events.pre_tool_use("Bash", events.bash_input("pytest")),
    ],
)
def test_events_left_alone(event: dict[str, Any]) -> None:
    assert compress_answer(event) is None


def test_a_live_pytest_run_is_compressed(tmp_path: Path) -> None:
    tests = tmp_path / "test_numbers.py"
    tests.write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('n', range(150))\n"
        "def test_small(n):\n    assert n < 149, f'{n} is too big'\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(tests)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    event = events.post_tool_use_bash("pytest -v", result.stdout, result.stderr)
    run = run_hook_process(["compress"], events.as_stdin(event))
    assert run.returncode == 0 and run.stderr == ""
    stdout = run.answer()["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "pytest: 1 failed, 149 passed" in stdout
    assert "test_small[149]" in stdout and "149 is too big" in stdout
    assert "test_small[3]" not in stdout


def test_recursion_guard_stops_a_nested_hook() -> None:
    event = events.post_tool_use_bash("cargo test", log("cargo_test_1_failed.txt"))
    run = run_hook_process(
        ["compress"], events.as_stdin(event), env=subprocess_env(VAULTCTX_HOOK_ACTIVE="1")
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
