"""``vaultctx engine status|start|stop``: see, start and stop the user's engine.

Nobody has to start it: the first ``search``, ``context``, ``links`` or ``status`` that finds
none starts it. These commands are for looking at it, warming it ahead of time and stopping it.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime
from vaultctx.errors import VaultctxError

engine_app = typer.Typer(
    name="engine",
    help="The background engine that keeps vaults warm for the CLI (started on demand).",
    no_args_is_help=True,
)
START_WAIT = 60.0


def _usable() -> None:
    if not client.enabled():
        raise VaultctxError(
            "the engine is off here",
            f"unset {client.ENGINE_ENV} (it is off with `--no-engine`, and on Windows, whose "
            "sockets cannot tell who connects)",
        )


def _status() -> dict[str, object] | None:
    try:
        _hello, answer = client.request({"op": "status"})
    except client.EngineNotRunningError:
        return None
    return answer


@engine_app.command()
def status() -> None:
    """Say whether the engine runs, and which vaults it holds (exit 1 when it does not run)."""
    _usable()
    answer = _status()
    if answer is None:
        print(f"no engine is running (socket {client.socket_path()})")
        raise typer.Exit(1)
    started = datetime.fromtimestamp(float(str(answer.get("started", 0)))).strftime("%H:%M:%S")
    print(
        f"engine {answer.get('version')} running, process {answer.get('pid')}, since {started}, "
        f"stops after {answer.get('idle_seconds')} s idle"
    )
    print(f"socket {answer.get('socket')}")
    print(f"log {Path(str(answer.get('socket'))).with_name(runtime.LOG_NAME)}")
    if answer.get("plugin_socket"):  # an Obsidian plugin connected (engine.plugin_socket)
        print(f"Obsidian plugin socket {answer.get('plugin_socket')}")
    vaults = answer.get("vaults")
    for held in vaults if isinstance(vaults, list) else []:
        watched = ", watched for changes" if held.get("watching") else ""
        print(f"warm: {held.get('vault')} (index {held.get('db')}){watched}")


@engine_app.command()
def start(
    wait: Annotated[float, typer.Option(help="Seconds to wait for it to answer.")] = START_WAIT,
) -> None:
    """Start the engine now (it starts by itself on the first command that needs it)."""
    _usable()
    answer = _status()
    if answer is None:
        client.start()
        deadline = time.monotonic() + wait
        while answer is None and time.monotonic() < deadline:
            time.sleep(0.05)
            answer = _status()
        if answer is None:
            raise VaultctxError(
                f"the engine did not answer within {wait:g} s",
                f"read its log, {client.socket_path().with_name('engine.log')}",
            )
    print(f"engine running, process {answer.get('pid')}")


@engine_app.command()
def stop() -> None:
    """Stop the engine (the next command that needs one starts it again)."""
    _usable()
    pid = client.stop()
    if pid is None:
        print("no engine was running")
        return
    print(f"engine stopped (process {pid})")


def register(app: typer.Typer) -> None:
    app.add_typer(engine_app)
