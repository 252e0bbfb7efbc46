"""mcp.json read and checked (every mistake named by its field), where it may come from (never a
vault's own vaultctx.toml), the child's environment and the tool names the model sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultctx.agent.mcp_config import (
    McpServerConfig,
    config_path,
    load_mcp_config,
    parse_mcp_config,
)
from vaultctx.agent.mcp_stdio import INHERITED_ENV, child_environment
from vaultctx.agent.mcp_tools import MAX_TOOL_NAME, exposed_names
from vaultctx.agent.settings import load_agent_settings
from vaultctx.config import ConfigError


def test_a_full_entry_and_the_defaults() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "fetch": {
                    "command": "uvx",
                    "args": ["mcp-server-fetch", "--ignore-robots-txt"],
                    "env": {"LOG_LEVEL": "warn"},
                    "disabled": True,
                },
                "my_tool-2": {"command": "/usr/local/bin/tool"},
            }
        }
    )
    assert parse_mcp_config(text, "mcp.json") == [
        McpServerConfig(
            "fetch", "uvx", ("mcp-server-fetch", "--ignore-robots-txt"), {"LOG_LEVEL": "warn"}, True
        ),
        McpServerConfig("my_tool-2", "/usr/local/bin/tool"),
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ('{"mcpServers": {"foo": {"command": 42}}}', "mcpServers.foo.command must be a string"),
        ('{"mcpServers": {"foo": {"command": ""}}}', "mcpServers.foo.command must be a string"),
        ('{"mcpServers": {"foo": {"args": []}}}', "mcpServers.foo.command must be a string"),
        (
            '{"mcpServers": {"foo": {"command": "x", "cmd": "y"}}}',
            "mcpServers.foo: unknown key 'cmd'",
        ),
        (
            '{"mcpServers": {"foo": {"command": "x", "args": "--port 8"}}}',
            "mcpServers.foo.args must be a list of strings",
        ),
        (
            '{"mcpServers": {"foo": {"command": "x", "args": ["--port", 8]}}}',
            "mcpServers.foo.args[1] must be a string",
        ),
        (
            '{"mcpServers": {"foo": {"command": "x", "env": {"PORT": 8}}}}',
            "mcpServers.foo.env.PORT must be a string",
        ),
        (
            '{"mcpServers": {"foo": {"command": "x", "env": ["A=1"]}}}',
            "mcpServers.foo.env must be an object of strings",
        ),
        (
            '{"mcpServers": {"foo": {"command": "x", "disabled": "yes"}}}',
            "mcpServers.foo.disabled must be true or false",
        ),
        ('{"mcpServers": {"my server": {"command": "x"}}}', "server name 'my server' may hold"),
        ('{"mcpServers": {"": {"command": "x"}}}', "server name '' may hold"),
        ('{"mcpServers": {"foo": "uvx foo"}}', "mcpServers.foo must be an object"),
        ('{"mcpServers": ["foo"]}', "mcpServers must be an object of servers by name"),
        ('{"servers": {}}', "unknown key 'servers'"),
        ("{}", "has no mcpServers"),
        ("[]", "must be a JSON object"),
        ('{"mcpServers": {"foo": {"command": "x",}}}', "not valid JSON"),
        (
            '{"mcpServers": {"foo": {"command": "x"}, "foo": {"command": "y"}}}',
            "the key 'foo' appears twice",
        ),
    ],
)
def test_each_mistake_is_named_by_its_field(text: str, wanted: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_mcp_config(text, "/home/me/mcp.json")
    assert wanted in caught.value.message
    assert caught.value.message.startswith("/home/me/mcp.json: ")
    assert caught.value.suggestion


def test_a_missing_default_file_means_no_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path(None) == tmp_path / "vaultctx" / "mcp.json"
    assert load_mcp_config(None) == []


def test_a_named_file_must_exist_and_relative_names_are_read_from_the_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(ConfigError, match=r"mcp_config names .*other\.json, which is not a file"):
        load_mcp_config("other.json")
    (tmp_path / "vaultctx").mkdir()
    (tmp_path / "vaultctx" / "other.json").write_text(
        '{"mcpServers": {"a": {"command": "x"}}}', encoding="utf-8"
    )
    assert [server.name for server in load_mcp_config("other.json")] == ["a"]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_mcp_config_comes_from_the_user_file_the_environment_or_a_flag(tmp_path: Path) -> None:
    user = _write(tmp_path / "config" / "vaultctx.toml", '[agent]\nmcp_config = "~/mine.json"\n')
    assert load_agent_settings(None, env={}, user_config=user).mcp_config == "~/mine.json"
    env = {"VAULTCTX_AGENT_MCP_CONFIG": "/etc/env.json", "VAULTCTX_AGENT_MCP_TIMEOUT": "30"}
    from_env = load_agent_settings(None, env=env, user_config=user)
    assert (from_env.mcp_config, from_env.mcp_timeout) == ("/etc/env.json", 30.0)
    flagged = load_agent_settings(None, {"mcp_config": "/flag.json"}, env=env, user_config=user)
    assert flagged.mcp_config == "/flag.json"


def test_a_vaults_own_settings_may_not_name_programs_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user = tmp_path / "config" / "vaultctx.toml"
    vault = tmp_path / "vault"
    _write(vault / "vaultctx.toml", '[agent]\nmcp_config = "/tmp/evil.json"\n')
    assert load_agent_settings(vault, env={}, user_config=user).mcp_config is None
    notice = capsys.readouterr().err
    assert f"{vault / 'vaultctx.toml'}: [agent] mcp_config is not used" in notice
    assert str(user) in notice
    # What the user chose (here: a flag) is used, and the vault's choice never is.
    chosen = load_agent_settings(vault, {"mcp_config": "/mine.json"}, env={}, user_config=user)
    assert chosen.mcp_config == "/mine.json"


def test_a_vault_may_set_the_timeout_within_its_range(tmp_path: Path) -> None:
    user = tmp_path / "config" / "vaultctx.toml"
    vault = tmp_path / "vault"
    _write(vault / "vaultctx.toml", "[agent]\nmcp_timeout = 45\n")
    assert load_agent_settings(vault, env={}, user_config=user).mcp_timeout == 45.0
    assert load_agent_settings(None, env={}, user_config=user).mcp_timeout == 10.0
    for bad in ("0.5", "61"):
        _write(vault / "vaultctx.toml", f"[agent]\nmcp_timeout = {bad}\n")
        with pytest.raises(ConfigError, match="'mcp_timeout' must be between 1 and 60"):
            load_agent_settings(vault, env={}, user_config=user)


def test_the_child_gets_the_fifteen_variables_and_its_own() -> None:
    parent = {name: f"v-{name}" for name in INHERITED_ENV}
    parent |= {
        "OPENAI_API_KEY": "sk-1",
        "AWS_SECRET_ACCESS_KEY": "a",
        "VAULTCTX_TOKEN": "t",
        "SHELL": "/bin/zsh",
        "USER": "me",
        "NODE_OPTIONS": "--require evil.js",
    }
    env = child_environment({"API_KEY": "given", "PATH": "/only/here"}, parent)
    assert set(env) == set(INHERITED_ENV) | {"API_KEY"}
    assert env["API_KEY"] == "given" and env["PATH"] == "/only/here"
    assert len(INHERITED_ENV) == 15


def test_tool_names_are_prefixed_model_safe_capped_and_distinct() -> None:
    long_tool = "t" * 80
    names = exposed_names(
        [
            ("vaultctx", "obsidian_search"),
            ("a_b", "c"),
            ("a", "b_c"),  # the same name as the one before: both get a suffix of their own
            ("web", "fetch.url/v2"),
            ("x", long_tool),
            ("x", long_tool + "2"),  # the same first 64 characters
        ]
    )
    assert names[0] == "mcp_vaultctx_obsidian_search"
    assert names[1].startswith("mcp_a_b_c_") and names[2].startswith("mcp_a_b_c_")
    assert names[3] == "mcp_web_fetch_url_v2"
    assert names[4].startswith(("mcp_x_" + long_tool)[: MAX_TOOL_NAME - 9])
    assert len(set(names)) == len(names)
    assert all(len(name) <= MAX_TOOL_NAME for name in names)


def test_claude_codes_stdio_type_is_accepted_and_others_are_named(tmp_path: Path) -> None:
    from vaultctx.agent.mcp_config import load_mcp_config

    good = tmp_path / "good.json"
    good.write_text('{"mcpServers": {"x": {"type": "stdio", "command": "uvx"}}}')
    assert [server.name for server in load_mcp_config(str(good))] == ["x"]
    remote = tmp_path / "remote.json"
    remote.write_text('{"mcpServers": {"x": {"type": "http", "command": "uvx"}}}')
    with pytest.raises(ConfigError, match=r'mcpServers\.x\.type "http" is not supported'):
        load_mcp_config(str(remote))


def test_a_flood_of_output_is_capped_for_the_model() -> None:
    from mcp import types
    from vaultctx.agent.mcp_tools import MAX_RESULT_CHARS, result_text

    flood = types.CallToolResult(content=[types.TextContent(type="text", text="a" * 1_000_000)])
    text = result_text(flood)
    assert len(text) < MAX_RESULT_CHARS + 200
    assert text.endswith("of 1,000,000 characters of this tool result were kept]")
