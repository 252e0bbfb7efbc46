"""The plugin's own checks, run from pytest so the README's test command runs them: node's test
runner over its logic, the TypeScript compiler, eslint with Obsidian's review rules, and a fresh
build compared with the plugin the Python package ships. Without node (or `npm ci` not run in
obsidian/) they skip and say why; under CI they fail instead (.ci/run installs both)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ui.browser import in_ci
from vaultctx.obsidian.install import PLUGIN_FILES, SHIPPED

PLUGIN_SOURCE = Path(__file__).parents[2] / "obsidian"


def npm_ready() -> str:
    """The node executable, once the plugin's dependencies are installed; skip (fail in CI)."""
    node = shutil.which("node")
    missing = None
    if node is None:
        missing = "node is not installed (apt-get install -y nodejs npm)"
    elif not (PLUGIN_SOURCE / "node_modules" / ".bin" / "esbuild").exists():
        missing = "the plugin's dependencies are not installed (run `npm ci` in obsidian/)"
    if missing is None:
        assert node is not None
        return node
    if in_ci():
        pytest.fail(f"{missing}; CI must run the plugin's tests (.ci/run installs them)")
    pytest.skip(missing)


def run(*command: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command,
        cwd=PLUGIN_SOURCE,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def fresh_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    node = npm_ready()
    out = tmp_path_factory.mktemp("plugin-build")
    run(node, "esbuild.config.mjs", env={"VAULTCTX_PLUGIN_OUT": str(out)})
    return out


def test_the_plugins_unit_tests_pass(fresh_build: Path) -> None:
    output = run(shutil.which("node") or "node", "--test", "test/")
    assert "# fail 0" in output


def test_the_shipped_plugin_is_built_from_this_source(fresh_build: Path) -> None:
    for name in PLUGIN_FILES:
        assert (fresh_build / name).read_bytes() == (SHIPPED / name).read_bytes(), (
            f"{name} differs from a fresh build: run `npm run build` in obsidian/ and commit"
        )


def test_typescript_and_obsidians_review_rules_are_clean(fresh_build: Path) -> None:
    run("node_modules/.bin/tsc", "--noEmit")
    run("node_modules/.bin/eslint", "src", "--max-warnings", "1")
