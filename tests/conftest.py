"""Shared fixtures: real vaults in temp dirs, real SQLite files, the shared data folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.testing

from tests.clean_env import ENGINE_OFF
from tests.postgres_server import postgres_server, postgres_url  # noqa: F401 (fixtures)
from vaultctx.embed import registry
from vaultctx.embed.base import Embedder

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()
EXAMPLE_VAULT = REPO / "examples" / "vault"
# No test starts the user's engine behind its back (nor talks to one the developer runs): the CLI
# processes the suite spawns inherit this; tests/engine/ opts in with a private runtime folder.
os.environ.update(ENGINE_OFF)


def _made_once(build: registry.EngineFactory) -> registry.EngineFactory:
    """``build`` for the bundled model made once in this process, then handed out again."""
    made: list[Embedder] = []

    def factory(model_dir: Path | None) -> Embedder:
        if model_dir is not None:
            return build(model_dir)
        if not made:
            made.append(build(None))
        return made[0]

    return factory


# Every ``Vault`` makes its own engines, and loading a bundled model costs 0.6-1.5 s on a loaded
# machine: hundreds of tests' vaults (and in-process CLI calls) would load the same three models
# again and again. The test process shares one of each instead, as a server's handles share
# theirs (``Vault.reader``). A test about loading itself builds its engine directly.
for _name in ("static", "onnx", "e5-multilingual"):
    registry.ENGINES[_name] = _made_once(registry.ENGINES[_name])


def _whole_cli_built_once(get_command: Callable[[typer.Typer], Any]) -> Callable[..., Any]:
    """typer's ``CliRunner`` turns the app into a click command on every ``invoke`` (~0.8 s on
    a loaded machine for the whole CLI): ``cli.main.app``, which no test changes, is turned once
    per process (tests/cli_in_process.py does the same for its runs); any other app as before."""
    built: list[Any] = []

    def once(app: typer.Typer) -> Any:
        from vaultctx.cli import main

        if app is not main.__dict__.get("app"):
            return get_command(app)
        if not built:
            built.append(get_command(app))
        return built[0]

    return once


typer.testing._get_command = _whole_cli_built_once(typer.main.get_command)  # type: ignore[attr-defined]


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data; tests needing it skip with a clear reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    return path


def make_vault(root: Path, notes: Mapping[str, str]) -> Path:
    """A vault at ``root`` holding ``notes`` (vault-relative path → text); folders are made."""
    root.mkdir(parents=True, exist_ok=True)
    for relative, text in notes.items():
        file = root / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return root


def copy_example_vault(target: Path) -> Path:
    """A private copy of the bundled example vault at ``target``, safe to edit."""
    shutil.copytree(EXAMPLE_VAULT, target, symlinks=True)
    return target


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of the bundled example vault, safe to edit."""
    return copy_example_vault(tmp_path / "vault")
