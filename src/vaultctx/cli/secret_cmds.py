"""``vaultctx secret`` (keys in the OS keyring) and ``vaultctx models`` (what a backend offers).

A key is never an argument: arguments end up in shell history and in every process listing. ``set``
prompts without echo, or reads a pipe (``pass show openai | vaultctx secret set openai``).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from vaultctx.agent.llm_backends.registry import builtin_names, or_list
from vaultctx.cli.common import JsonOption, VaultOption

secret_app = typer.Typer(
    help="API keys for the agent, kept in the OS keyring (docs/agent.md).", no_args_is_help=True
)

NameArgument = Annotated[str, typer.Argument(help="The secret's name, e.g. openai-work.")]


@secret_app.command("set")
def secret_set(name: NameArgument) -> None:
    """Store a key under NAME: typed at a hidden prompt, or read from a pipe."""
    from vaultctx.agent.secrets import check_secret_name, set_secret

    check_secret_name(name)
    if sys.stdin.isatty():
        import getpass

        value = getpass.getpass(f"key for {name} (not shown): ")
    else:
        value = sys.stdin.readline()
    stored_in = set_secret(name, value.strip())
    print(f'stored {name} in the keyring ({stored_in}); use it with api_key_secret = "{name}"')


@secret_app.command("delete")
def secret_delete(name: NameArgument) -> None:
    """Remove the key stored under NAME from the keyring."""
    from vaultctx.agent.secrets import delete_secret

    if delete_secret(name):
        print(f"deleted {name}")
    else:
        print(f"no secret named {name} in the keyring", file=sys.stderr)


@secret_app.command("check")
def secret_check(name: NameArgument) -> None:
    """Say whether NAME can be found (keyring or environment), never showing it."""
    from vaultctx.agent.secrets import env_names, get_secret

    if get_secret(name) is None:
        from vaultctx.errors import VaultctxError

        raise VaultctxError(
            f"no secret named {name!r} in the keyring or the environment",
            f"run `vaultctx secret set {name}` (or set {' or '.join(env_names(name))})",
        )
    print(f"{name} is set")


def models(
    vault: VaultOption = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help=f"{or_list(builtin_names())}.")
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Server address.")] = None,
    api_key_secret: Annotated[
        str | None, typer.Option("--api-key-secret", help="Name of the stored key.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the chat and embedding models the backend reports."""
    import asyncio
    from pathlib import Path

    from vaultctx.agent.backends import require_agent_extra
    from vaultctx.agent.model_lists import list_models
    from vaultctx.agent.settings import load_agent_settings

    require_agent_extra()
    vault_path = Path(vault).expanduser() if vault else None
    settings = load_agent_settings(
        vault_path if vault_path and vault_path.is_dir() else None,
        {"backend": backend, "base_url": base_url, "api_key_secret": api_key_secret},
    )
    found = asyncio.run(list_models(settings))
    if as_json:
        print(json.dumps([model.as_dict() for model in found], ensure_ascii=False))
        return
    for model in found:
        print(f"{model.kind:<10} {model.name}")
    if not found:
        print(f"{settings.backend} reported no models", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.add_typer(secret_app, name="secret")
    app.command()(models)
