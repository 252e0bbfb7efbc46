"""``vaultctx mcp list``: the external MCP servers the agent would use, each started, asked for its
tools and stopped again (docs/mcp-client.md).

Not ``vaultctx serve``, which is vaultctx's own MCP server for other clients.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from vaultctx.cli.common import JsonOption
from vaultctx.text.terminal import printable

mcp_app = typer.Typer(
    help="External MCP servers whose tools the agent may call (docs/mcp-client.md).",
    no_args_is_help=True,
)


@mcp_app.command("list")
def mcp_list(
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            help="The servers' JSON file (default: mcp_config, else mcp.json in the user config "
            "dir).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Start each server, count its tools, stop it; exit status 1 if one failed."""
    import asyncio

    from vaultctx.agent.mcp_client import McpClients
    from vaultctx.agent.mcp_config import config_path
    from vaultctx.agent.settings import load_agent_settings

    settings = load_agent_settings(None, {"mcp_config": config})
    path = config_path(settings.mcp_config)
    clients = McpClients.from_settings(settings)

    async def survey() -> list[dict[str, Any]]:
        async with clients:
            names: dict[str, list[str]] = {}
            for tool in clients.tools():
                names.setdefault(tool.server, []).append(tool.name)
            return [
                {**status.as_dict(), "tool_names": names.get(status.name, [])}
                for status in clients.status()
            ]

    servers = asyncio.run(survey())
    if as_json:
        print(json.dumps({"config": str(path), "servers": servers}, ensure_ascii=False))
    elif not servers:
        print(f"no MCP servers ({path} {'lists none' if path.is_file() else 'does not exist'})")
    else:
        print(f"servers in {path}:")
        width = max(len(server["name"]) for server in servers)
        for server in servers:
            tools = "" if server["state"] == "disabled" else f"{server['tools']:>3} tools"
            line = f"  {server['name']:<{width}}  {server['state']:<8}  {tools}".rstrip()
            # The server's own words, escapes and all: never raw to the terminal.
            print(printable(f"{line}  {server['last_error']}" if server["last_error"] else line))
    if any(server["state"] == "failed" for server in servers):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp")
