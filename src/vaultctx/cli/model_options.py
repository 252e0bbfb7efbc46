"""The four options that choose the model (``--backend``, ``--model``, ``--base-url``,
``--api-key-secret``), declared once for every command that asks one: a command takes one
``model_flags: ModelFlags`` parameter and is decorated with ``takes_option_groups``
(cli/option_groups.py), which shows typer the four options in its place."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated

import typer

from vaultctx.agent.llm_backends.registry import builtin_names, or_list


@dataclass(frozen=True)
class ModelFlags:
    """The model options as given (None: not given, the settings decide)."""

    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help=f"{or_list(builtin_names())} (default: \\[agent] backend).",
            show_default=False,
        ),
    ] = None
    model: Annotated[
        str | None,
        typer.Option("--model", help="Model name (default: \\[agent] model).", show_default=False),
    ] = None
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url", help="Server address (OpenAI: including /v1).", show_default=False
        ),
    ] = None
    api_key_secret: Annotated[
        str | None,
        typer.Option(
            "--api-key-secret",
            help="Name of the stored key (`vaultctx secret set`).",
            show_default=False,
        ),
    ] = None

    def overrides(self) -> dict[str, str | None]:
        """The flags as ``load_agent_settings`` overrides (None values are ignored there)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


# A command's default for ``model_flags`` (typer never uses it: the four options have theirs).
NO_MODEL_FLAGS = ModelFlags()

# Both triage commands: score signals without a model even when one is set up.
OfflineOption = Annotated[
    bool,
    typer.Option("--offline", help="Score with the offline heuristic even if a model is set up."),
]
