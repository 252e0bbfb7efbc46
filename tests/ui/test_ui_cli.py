"""``vaultctx ui`` on the command line: a busy port is one line of advice, not a traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.ui.ui_process import ui_env


def test_a_busy_port_is_refused_with_advice(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n", encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        where = ["--vault", str(vault), "--db", str(tmp_path / "index.db"), "--port", str(port)]
        done = subprocess.run(
            [sys.executable, "-m", "vaultctx", "ui", *where],
            env=ui_env(tmp_path / "data"),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert f"port {port} is in use" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr
    assert "token=" not in done.stdout  # no address printed for a server that never ran


def test_the_help_names_every_option() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", "ui", "--help"],
        env=ui_env(Path("/nonexistent")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    for option in ("--vault", "--db", "--port", "--host", "--open"):
        assert option in done.stdout
