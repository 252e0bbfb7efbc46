"""The tools end to end: ``vaultctx ask`` as a real process against the OpenAI wire fake, which
scripts the model's tool calls; then ``vaultctx undo`` as a real process, four times, restores
the vault byte for byte, and refuses (writing nothing) once the user has edited a changed note.
Without a terminal ``ask`` makes changes only with ``--allow-changes``
(tests/security/test_ask_without_a_terminal.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, ask, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.tool_support import snapshot
from tests.conftest import copy_example_vault
from vaultctx.api import Vault

DRAFT = "00-inbox/Draft.md"
MOVED = "10-projects/Launch plan.md"
LINKING = {
    "10-projects/Plan.md": "# Plan\n\nThe draft: [[00-inbox/Draft]].\n",
    "20-areas/Review.md": "# Review\n\nSee [[00-inbox/Draft|the draft]] first.\n",
}
DELETED = "daily/2024-03-14.md"
SCRIPT = [
    Answer(
        tool_calls=[ToolCall("create_note", {"path": DRAFT, "content": "# Draft\n\nShip v1.\n"})]
    ),
    Answer(
        tool_calls=[ToolCall("edit_note", {"path": DRAFT, "find": "v1", "replace": "v2"}, split=3)]
    ),
    Answer(tool_calls=[ToolCall("move_file", {"source_path": DRAFT, "destination_path": MOVED})]),
    Answer(tool_calls=[ToolCall("delete_file", {"path": DELETED})]),
    Answer(["Created, edited, moved ", "and deleted."]),
]


@pytest.fixture
def vault(tmp_path: Path) -> Indexed:
    """The example vault with two notes linking to a draft the model will create, indexed."""
    root = copy_example_vault(tmp_path / "vault")
    for path, text in LINKING.items():
        (root / path).write_text(text, encoding="utf-8")
    db = tmp_path / "index.db"
    with Vault(root, db=db) as handle:
        handle.index(fast=True)
    return Indexed(root, db)


def env_for(fake: OpenAIFake, tmp_path: Path, extra: str = "") -> dict[str, str]:
    toml = "[agent]\n" + openai_toml(fake) + "translate = false\n" + extra
    return agent_env(tmp_path, toml, OPENAI_TEST=KEY)


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


def test_a_scripted_conversation_changes_the_vault_and_undo_restores_it(
    vault: Indexed, tmp_path: Path
) -> None:
    original = snapshot(vault.vault)
    with OpenAIFake() as fake:
        fake.queue(*SCRIPT)
        env = env_for(fake, tmp_path)
        result = ask(
            vault,
            env,
            "draft the launch plan, then file it and drop the 14th",
            "--json",
            "--allow-changes",
        )
        bodies = [r.json for r in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["answer"] == "Created, edited, moved and deleted."
    assert [c["name"] for c in out["tool_calls"]] == [
        "create_note",
        "edit_note",
        "move_file",
        "delete_file",
    ]
    assert len(bodies) == 5
    assert tool_messages(bodies[1])[-1] == f"Note created: {DRAFT}"
    assert tool_messages(bodies[2])[-1] == f"Note partially updated: {DRAFT} (1 replaced)"
    moved = tool_messages(bodies[3])[-1]
    assert moved.startswith(f"File moved: {DRAFT} → {MOVED}\nLinks updated in 2 note(s): ")
    assert tool_messages(bodies[4])[-1].startswith(f"File deleted: {DELETED}")
    assert {t["function"]["name"] for t in bodies[0]["tools"]} >= {"create_note", "move_file"}

    files = vault.vault
    assert (files / MOVED).read_text(encoding="utf-8") == "# Draft\n\nShip v2.\n"
    assert not (files / DRAFT).exists() and not (files / DELETED).exists()
    assert "[[10-projects/Launch plan]]" in (files / "10-projects/Plan.md").read_text("utf-8")
    assert "[[10-projects/Launch plan|the draft]]" in (files / "20-areas/Review.md").read_text(
        "utf-8"
    )

    ledger = json.loads(vaultctx(vault, env, "ledger", "--json").stdout)
    assert [r["label"] for r in ledger] == [
        f"delete_file {DELETED}",
        f"move_file {DRAFT} → {MOVED}",
        f"edit_note {DRAFT}",
        f"create_note {DRAFT}",
    ]
    assert {r["conversation_id"] for r in ledger} == {out["conversation_id"]}

    for _ in range(4):
        undone = vaultctx(vault, env, "undo")
        assert undone.returncode == 0, undone.stderr
    assert snapshot(files) == original
    nothing = vaultctx(vault, env, "undo")
    assert nothing.returncode != 0


def test_undo_refuses_after_the_user_edited_the_note_and_writes_nothing(
    vault: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(SCRIPT[0], Answer("Created it."))
        env = env_for(fake, tmp_path)
        result = ask(vault, env, "draft the launch plan", "--allow-changes")
    assert result.returncode == 0, result.stderr
    assert "· create_note path=00-inbox/Draft.md" in result.stderr
    (vault.vault / DRAFT).write_text("# Draft\n\nMy own words now.\n", encoding="utf-8")
    before = snapshot(vault.vault)
    refused = vaultctx(vault, env, "undo")
    assert refused.returncode != 0
    assert DRAFT in refused.stderr
    assert snapshot(vault.vault) == before


def test_the_round_limit_is_reported_and_the_partial_answer_kept(
    vault: Indexed, tmp_path: Path
) -> None:
    listing = Answer(["Looking. "], tool_calls=[ToolCall("list_files", {"folder": "daily"})])
    with OpenAIFake() as fake:
        fake.queue(*[listing] * 11)
        env = env_for(fake, tmp_path)
        result = ask(vault, env, "list forever", "--json")
        requests = fake.requests_to("/chat/completions")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert len(requests) == 10
    assert out["stopped"].startswith("Reached the tool round limit (10)")
    assert out["answer"].startswith("Looking. \n\nLooking. ")
