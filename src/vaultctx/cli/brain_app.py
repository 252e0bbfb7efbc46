"""The ``vaultctx brain`` command group (docs/second-brain.md)."""

import typer

brain_app = typer.Typer(
    help="The Second Brain: wiki notes written and kept current from your notes (docs/second-brain.md).",  # noqa: E501
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(brain_app, name="brain")
