"""The ``vaultctx`` console script: the running server's answer when one serves the command,
else the CLI in-process.

Kept apart from ``cli.main`` so that a forwarded command never imports typer (``cli.forward``
imports the standard library only), and apart from ``cli.forward`` so that neither imports the
other's side.

A one-shot command run in-process (``ONE_SHOT``) ends without the interpreter's teardown: once
its answer is printed and flushed, freeing every module, the ONNX session and the BLAS threads
only delays the exit (30-100 ms of a cold search, docs/benchmarks.md "Cold search and no-op,
session 8"). Those commands close what they open before they return (the index, its lock), so
nothing is left for the teardown to do.
"""

from __future__ import annotations

import os
import sys

from vaultctx.cli.forward import forward, start_engine_if_wanted
from vaultctx.cli.forward_turn import forward_turn

# Commands that finish their work before returning and leave no thread or child process behind.
ONE_SHOT = frozenset({"search", "context", "index", "status"})
# A query embeds one short text: OpenBLAS starting a thread per core at numpy's import costs
# more than any product it could speed up (numpy is imported 60-100 ms faster with one).
# Searching multiplies no large matrices (vector_memory.py keeps its blocks small for the same
# reason), so no result changes; a value the user set is kept.
SINGLE_THREADED_BLAS = frozenset({"search", "context"})
NO_ENGINE = "--no-engine"


def run() -> None:
    arguments = without_no_engine(sys.argv[1:])
    if arguments != sys.argv[1:]:  # a global switch: this run neither uses nor starts one
        os.environ["VAULTCTX_ENGINE"] = "off"
        sys.argv = [sys.argv[0], *arguments]
    code = forward(arguments)
    if code is None and arguments[:1] == ["serve"]:
        from vaultctx.cli.serve_relay import relay

        code = relay(arguments)
    if code is None:
        code = forward_turn(arguments)
    if code is not None:
        start_engine_if_wanted()  # an engine lost mid-turn (exit 2) is replaced after it
        sys.exit(code)
    command = arguments[0] if arguments else ""
    if command in SINGLE_THREADED_BLAS:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from vaultctx.cli.main import run as run_in_process

    try:
        run_in_process(forwarding=False)
    except SystemExit as done:
        start_engine_if_wanted()
        if command in ONE_SHOT:
            exit_now(done)
        raise


def without_no_engine(arguments: list[str]) -> list[str]:
    """``arguments`` without ``--no-engine``, wherever it stands before ``--`` (after it, it is
    a value, as a search for that very text), so that no command's parser has to know it."""
    end = arguments.index("--") if "--" in arguments else len(arguments)
    kept = [arg for arg in arguments[:end] if arg != NO_ENGINE]
    return kept + arguments[end:]


def exit_now(done: SystemExit) -> None:
    """Flush the output and end the process with ``done``'s code, skipping the teardown; returns
    (the caller then exits normally) when that would not be the same exit."""
    code = done.code
    if code is not None and not isinstance(code, int):
        return  # a message to print: the normal exit prints it
    if _other_threads_or_children():
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # a closed pipe: the normal exit reports it as Python does
    os._exit(code or 0)


def _other_threads_or_children() -> bool:
    """A thread or worker process still running would be waited for by the normal exit."""
    import threading

    if any(
        t.is_alive() and not t.daemon
        for t in threading.enumerate()
        if t is not threading.main_thread()
    ):
        return True
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is not None and bool(multiprocessing.active_children())
