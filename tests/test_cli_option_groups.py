"""The model options (``--backend``, ``--model``, ``--base-url``, ``--api-key-secret``) are
declared once, in ``cli/model_options.py``, and every command that asks a model shows all four,
in the same place and words, and receives them as one ``ModelFlags`` (cli/option_groups.py);
``search`` and ``context`` show the one group of filter options."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
import typer.main
from typer.testing import CliRunner

from vaultctx.cli.main import build_app
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import group_options, takes_option_groups

CLI = Path(__file__).resolve().parents[1] / "src" / "vaultctx" / "cli"
FOUR = ["--backend", "--model", "--base-url", "--api-key-secret"]
# The commands that ask a model; a new one joins this list by taking ``model_flags``.
ASKING = {
    "ask",
    "chat",
    "clip",
    "tags",
    "para",
    "triage",
    "brain synthesize",
    "brain challenge",
    "brain connect",
    "brain emerge",
    "brain reconcile",
    "brain architect",
    "review contradictions",
    "review inbox",
    "review decisions",
    "review triage",
    "skills new",
    "conversations harvest",
}


@dataclass(frozen=True)
class Loudness:
    """A second group, with a default that is not None."""

    loud: Annotated[bool, typer.Option("--loud", help="Say it loudly.")] = False
    times: Annotated[int, typer.Option("--times", help="How often.")] = 1


def _commands(command: object, path: str = "") -> dict[str, object]:
    found = {path: command} if path else {}
    for name, sub in getattr(command, "commands", {}).items():
        found.update(_commands(sub, f"{path} {name}".strip()))
    return found


def test_every_command_that_asks_a_model_shows_the_four_options_together() -> None:
    commands = _commands(typer.main.get_command(build_app()))
    asking = {}
    for path, command in commands.items():
        names = [p.opts[0] for p in getattr(command, "params", []) if p.opts]
        if "--model" in names:
            asking[path] = names
        elif "--backend" in names:  # lists a backend's models: no --model, and its own words
            assert path == "models", (path, names)
    assert set(asking) == ASKING
    for path, names in asking.items():
        start = names.index("--backend")
        assert names[start : start + 4] == FOUR, (path, names)


def test_the_options_are_declared_only_in_model_options() -> None:
    """A command that spells ``--model`` itself has bypassed the one declaration."""
    spelled = sorted(
        module.name
        for module in CLI.glob("*.py")
        if module.name != "model_options.py" and '"--model"' in module.read_text()
    )
    assert spelled == []


def test_the_command_receives_the_options_as_one_value() -> None:
    received: list[ModelFlags] = []
    loudness: list[Loudness] = []

    @takes_option_groups
    def dummy(
        topic: str,
        model_flags: ModelFlags = NO_MODEL_FLAGS,
        how: Loudness = Loudness(),
        as_json: bool = False,
    ) -> None:
        """A dummy command."""
        received.append(model_flags)
        loudness.append(how)

    app = typer.Typer()
    app.command()(dummy)
    app.command("other")(dummy)
    args = ["dummy", "t", "--model", "m", "--api-key-secret", "s"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert received == [ModelFlags(model="m", api_key_secret="s")]
    assert loudness == [Loudness(loud=False, times=1)]
    assert CliRunner().invoke(app, ["dummy", "t", "--loud", "--times", "3"]).exit_code == 0
    assert loudness[-1] == Loudness(loud=True, times=3)
    assert received[0].overrides() == {
        "backend": None,
        "model": "m",
        "base_url": None,
        "api_key_secret": "s",
    }
    shown = CliRunner().invoke(app, ["dummy", "--help"], env={"COLUMNS": "160"}).output
    assert all(option in shown for option in FOUR) and "model-flags" not in shown
    names = [option.name for option in group_options(ModelFlags)]
    assert names == ["backend", "model", "base_url", "api_key_secret"]


def test_search_and_context_show_the_one_filter_group() -> None:
    commands = _commands(typer.main.get_command(build_app()))
    five = ["--folder", "--tag", "--where", "--since", "--until"]
    for path in ("search", "context"):
        names = [p.opts[0] for p in getattr(commands[path], "params", []) if p.opts]
        start = names.index("--folder")
        assert names[start : start + 5] == five, (path, names)
