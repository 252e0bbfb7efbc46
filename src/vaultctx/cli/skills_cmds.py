"""``vaultctx skills list|new|enable|disable``: the assistant's skills (docs/agent.md#skills).

Skills are the user's, not a vault's: the folder is ``[skills] folder`` of the user's own
``vaultctx.toml`` and which custom skills are on is kept beside it, so these commands take no
``--vault`` and never write into one.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated

import typer

from vaultctx.cli.common import JsonOption
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.text.terminal import printable

skills_app = typer.Typer(
    name="skills",
    help="The assistant's skills: six built-ins, always on, and your own, turned on one by one.",
    no_args_is_help=True,
)

NameArgument = Annotated[str, typer.Argument(help="The skill's name, e.g. meeting-notes.")]


@skills_app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """Every skill: the built-ins, then the custom ones of your skills folder, on or off."""
    from vaultctx.agent.skills import list_skills, skills_folder

    folder = skills_folder()
    skills = list_skills(folder)
    if as_json:
        shown = {"folder": str(folder), "skills": [skill.as_dict() for skill in skills]}
        print(json.dumps(shown, ensure_ascii=False))
        return
    for skill in skills:
        state = "built-in, on" if skill.built_in else ("on" if skill.enabled else "off")
        problem = f" ({skill.problem})" if skill.problem else ""
        print(printable(f"{skill.name}  [{state}]{problem}"))
    print(printable(f"custom skills folder: {folder}"), file=sys.stderr)


@skills_app.command("enable")
def enable_command(name: NameArgument) -> None:
    """Turn a custom skill on: the assistant's instructions carry it from the next question."""
    _toggle(name, on=True)


@skills_app.command("disable")
def disable_command(name: NameArgument) -> None:
    """Turn a custom skill off (its file stays)."""
    _toggle(name, on=False)


def _toggle(name: str, *, on: bool) -> None:
    from vaultctx.agent.skills import set_enabled, skills_folder

    changed = set_enabled(name, on, skills_folder())
    state = "on" if on else "off"
    print(f"{name} is {state}" if changed else f"{name} was already {state}", file=sys.stderr)


@skills_app.command("new")
@takes_option_groups
def new_command(
    name: NameArgument,
    about: Annotated[
        str,
        typer.Option("--about", help="What the skill should cover, in a sentence or two."),
    ],
    model_flags: ModelFlags = NO_MODEL_FLAGS,
) -> None:
    """Draft a custom skill with the model (one call), save it as NAME.md in your skills folder
    and turn it on. Edit the file afterwards as you like."""
    from vaultctx.agent.backends import require_agent_extra
    from vaultctx.agent.complete import BackendTextModel
    from vaultctx.agent.settings import load_agent_settings
    from vaultctx.agent.skills import (
        DRAFT_MAX_TOKENS,
        DRAFT_SYSTEM,
        check_skill_name,
        draft_prompt,
        set_enabled,
        skills_folder,
        write_new_skill,
    )

    check_skill_name(name)
    folder = skills_folder()
    if (folder / f"{name}.md").exists():
        write_new_skill(folder, name, "taken")  # raises: the name is taken, before a paid call
    require_agent_extra()
    model = BackendTextModel(load_agent_settings(None, model_flags.overrides()))
    text = asyncio.run(
        model.complete(DRAFT_SYSTEM, draft_prompt(name, about), max_tokens=DRAFT_MAX_TOKENS)
    )
    path = write_new_skill(folder, name, text)
    set_enabled(name, True, folder)
    print(printable(f"{name} saved to {path} and turned on"), file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.add_typer(skills_app)
