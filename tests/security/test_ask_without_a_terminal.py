"""`vaultctx ask` run without a terminal (a script, a pipe, a cron job) never changes the vault
unless it is told to with `--allow-changes`, and names every change it denied (docs/agent.md,
"Confirmation"). Real processes, stdin not a terminal, against the OpenAI wire fake whose
model asks to create a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, ask, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.tool_support import snapshot
from tests.conftest import copy_example_vault
from vaultctx.api import Vault

DRAFT = "00-inbox/Launch draft.md"
CREATE = Answer(
    tool_calls=[ToolCall("create_note", {"path": DRAFT, "content": "# Launch\n\nShip v1.\n"})]
)
MOVE = Answer(
    tool_calls=[
        ToolCall(
            "move_file",
            {"source_path": "daily/2024-03-14.md", "destination_path": "archive/2024-03-14.md"},
        )
    ]
)


@pytest.fixture
def vault(tmp_path: Path) -> Indexed:
    root = copy_example_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(root, db=db) as handle:
        handle.index(fast=True)
    return Indexed(root, db)


def _env(fake: OpenAIFake, tmp_path: Path, extra: str = "") -> dict[str, str]:
    toml = "[agent]\n" + openai_toml(fake) + "translate = false\n" + extra
    return agent_env(tmp_path, toml, OPENAI_TEST=KEY)


def _ledger(vault: Indexed, env: dict[str, str]) -> list[dict[str, object]]:
    listed = vaultctx(vault, env, "ledger", "--json")
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("setting", ["", "confirm_changes = false\n"])
def test_without_a_terminal_every_change_is_denied_and_named(
    vault: Indexed, tmp_path: Path, setting: str
) -> None:
    """Whatever confirm_changes says: with nobody to ask, a script's question changes nothing."""
    before = snapshot(vault.vault)
    with OpenAIFake() as fake:
        fake.queue(CREATE, MOVE, Answer("I could not make those changes."))
        env = _env(fake, tmp_path, setting)
        result = ask(vault, env, "draft the launch plan and archive the 14th")
        bodies = [r.json for r in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    assert "I could not make those changes." in result.stdout
    tool_replies = [m["content"] for m in bodies[2]["messages"] if m.get("role") == "tool"]
    assert tool_replies == ["Tool execution denied by user."] * 2
    assert "2 change(s) were denied" in result.stderr
    assert f"denied: create_note {DRAFT}" in result.stderr
    assert "denied: move_file daily/2024-03-14.md → archive/2024-03-14.md" in result.stderr
    assert "--allow-changes" in result.stderr
    assert snapshot(vault.vault) == before
    assert _ledger(vault, env) == []


def test_json_output_lists_the_denied_changes(vault: Indexed, tmp_path: Path) -> None:
    before = snapshot(vault.vault)
    with OpenAIFake() as fake:
        fake.queue(CREATE, Answer("Not allowed."))
        result = ask(vault, _env(fake, tmp_path), "draft the launch plan", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["denied_changes"] == [{"tool": "create_note", "target": DRAFT}]
    assert snapshot(vault.vault) == before


def test_allow_changes_makes_the_change_and_records_it(vault: Indexed, tmp_path: Path) -> None:
    before = snapshot(vault.vault)
    with OpenAIFake() as fake:
        fake.queue(CREATE, Answer("Drafted it."))
        env = _env(fake, tmp_path)
        result = ask(vault, env, "draft the launch plan", "--allow-changes")
    assert result.returncode == 0, result.stderr
    assert "denied" not in result.stderr
    assert (vault.vault / DRAFT).read_text(encoding="utf-8") == "# Launch\n\nShip v1.\n"
    [record] = _ledger(vault, env)
    assert record["label"] == f"create_note {DRAFT}" and record["source"] == "agent"
    undone = vaultctx(vault, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert snapshot(vault.vault) == before
