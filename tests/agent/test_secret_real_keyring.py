"""`vaultctx secret set|check|delete` against a real OS keyring: Debian's GNOME Keyring, the
Secret Service a Linux desktop has, on a private D-Bus session bus (``dbus-run-session``) with a
throwaway keyring under the test's temporary folder. No fake backend: the CLI picks the keyring
the way it does on a desktop (``keyring``'s own choice, no PYTHON_KEYRING_BACKEND), and
``vaultctx ask`` reads the key from it for a request to the OpenAI wire fake.

Skips where gnome-keyring or dbus is not installed; under CI=1 (.ci/run installs both) it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.cli_support import indexed_example
from tests.agent.fakes import Answer, OpenAIFake
from tests.clean_env import clean_cli_env

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-Rk2wQ9vLp4XnT7bY1mC8dF3hJ6sA0eG5uZ"
NAME = "openai-desk"

# Runs inside the private session bus: unlock a new login keyring, then the real CLI, step by
# step; each step's exit status and output go back as JSON (never the key from the CLI itself).
_DRIVER = r"""
import json, subprocess, sys
NAME, KEY, ASK = json.loads(sys.stdin.read())
unlock = subprocess.run(
    ["gnome-keyring-daemon", "--unlock", "--components=secrets"],
    input=b"throwaway-password", capture_output=True, timeout=60,
)
steps = [("set", ["secret", "set", NAME], KEY + "\n"), ("check", ["secret", "check", NAME], ""),
         ("ask", ASK, ""), ("delete", ["secret", "delete", NAME], ""),
         ("after", ["secret", "check", NAME], "")]
out = {"unlock": unlock.returncode}
for label, args, stdin in steps:
    run = subprocess.run([sys.executable, "-m", "vaultctx", *args], input=stdin,
                         capture_output=True, text=True, timeout=120)
    out[label] = [run.returncode, run.stdout, run.stderr]
    if label == "check":  # what the keyring itself holds now, read by keyring's own API
        probe = "import keyring; print(type(keyring.get_keyring()).__module__); "
        probe += "print(keyring.get_password('vaultctx', %r))" % NAME
        held = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        out["held"] = held.stdout.split("\n")[:2]
print(json.dumps(out))
"""


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _tools_or_skip() -> None:
    missing = [t for t in ("dbus-run-session", "gnome-keyring-daemon") if not shutil.which(t)]
    if missing:
        message = f"no real keyring: {', '.join(missing)} missing (apt-get install gnome-keyring)"
        if _ci():
            pytest.fail(message)
        pytest.skip(message)


def test_set_check_use_delete_in_gnome_keyring(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _tools_or_skip()
    indexed = indexed_example(tmp_path_factory)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = clean_cli_env(tmp_path, drop=("OPENAI", "PYTHON_KEYRING", "DBUS_", "GNOME_KEYRING"))
    env.update(HOME=str(tmp_path), XDG_RUNTIME_DIR=str(runtime))
    with OpenAIFake() as fake:
        fake.queue(Answer("From the keyring."))
        toml = f'[agent]\nbackend = "openai"\nmodel = "gpt-5.2"\nbase_url = "{fake.base_url}/v1"\n'
        (tmp_path / "config" / "vaultctx").mkdir(parents=True)
        (tmp_path / "config" / "vaultctx" / "vaultctx.toml").write_text(
            toml + f'api_key_secret = "{NAME}"\ntranslate = false\n', encoding="utf-8"
        )
        ask = ["ask", "what is in the vault?", "--vault", str(indexed.vault), "--db"]
        result = subprocess.run(
            ["dbus-run-session", "--", sys.executable, "-c", _DRIVER],
            input=json.dumps([NAME, KEY, [*ask, str(indexed.db)]]),  # never an argument
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            timeout=400,
        )
        sent = [r.header("authorization") for r in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["unlock"] == 0
    code, stdout, stderr = out["set"]
    assert code == 0, stderr
    assert f"stored {NAME} in the keyring (Keyring)" in stdout
    # The real Secret Service backend holds it (not an environment variable, not a file of ours).
    assert out["held"] == ["keyring.backends.SecretService", KEY]
    assert out["check"][:2] == [0, f"{NAME} is set\n"]
    assert out["ask"][0] == 0 and "From the keyring." in out["ask"][1], out["ask"][2]
    assert sent == [f"Bearer {KEY}"]  # the agent read the key from GNOME Keyring
    assert out["delete"][0] == 0 and f"deleted {NAME}" in out["delete"][1]
    assert out["after"][0] == 2 and f"vaultctx secret set {NAME}" in out["after"][2]
    for step in ("set", "check", "ask", "delete", "after"):
        assert KEY not in out[step][1] + out[step][2]
    # GNOME Keyring keeps the key encrypted on disk, under the test's own data folder.
    stored = list((tmp_path / "data" / "keyrings").glob("*.keyring"))
    assert stored and all(KEY.encode() not in path.read_bytes() for path in stored)
