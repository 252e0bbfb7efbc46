"""One clean environment for a ``python -m vaultctx`` child process, shared by every test that
starts one.

The suite turns the engine off for itself (tests/conftest.py); a test that builds its child's
environment from scratch, or filters the developer's ``VAULTCTX_*`` settings out of it, would
drop that too and let the child start (or talk to) the user's real engine. Building the
environment here keeps the engine off, this checkout importable and the developer's settings
out, in one place.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENGINE_OFF = {"VAULTCTX_ENGINE": "off"}


def clean_cli_env(
    dirs: Path | None = None,
    *,
    drop: tuple[str, ...] = (),
    inherit: bool = True,
    **extra: str,
) -> dict[str, str]:
    """The child's environment: this process's (``inherit``) without any ``VAULTCTX_*`` setting
    nor the variables starting with a prefix in ``drop``; private user config, data and state
    folders under ``dirs`` when given; this checkout (and ``tests``) importable; the engine off;
    then ``extra`` on top (a test that wants the engine sets ``VAULTCTX_ENGINE`` there)."""
    prefixes = ("VAULTCTX_", *drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)} if inherit else {}
    if dirs is not None:
        env.update(
            XDG_CONFIG_HOME=str(dirs / "config"),
            XDG_DATA_HOME=str(dirs / "data"),
            XDG_STATE_HOME=str(dirs / "state"),
        )
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO)])
    env.update(ENGINE_OFF)
    env.update(extra)
    return env
