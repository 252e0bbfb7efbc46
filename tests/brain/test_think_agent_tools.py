"""The agent's challenge, connect, emerge, reconcile_topic and architect tools: the anchor's
names, parameters and texts, through the whole argument contract (run_tool)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.think_support import chat_bodies, fake_model, turn_on
from tests.conftest import copy_example_vault
from vaultctx.agent.brain_read_tools import BRAIN_READ_TOOLS
from vaultctx.agent.brain_tools import session_tools
from vaultctx.agent.confirm import confirmed_tools, needs_confirmation
from vaultctx.agent.tool_contract import ToolContext, run_tool
from vaultctx.api import Vault
from vaultctx.text_model import TextModel

SPECS = {spec.name: spec for spec in BRAIN_READ_TOOLS}
ERROR = "Tool execution error:"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("tools")
    vault_root = copy_example_vault(root / "vault")
    turn_on(vault_root)
    vault = Vault(vault_root, db=root / "index.db")
    vault.index(fast=True)
    return vault


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def call(vault: Vault, tool: str, args: Any, model: TextModel | None) -> str:
    context = ToolContext(vault, text_model=model)
    return asyncio.run(run_tool(SPECS[tool], args, context))


def test_the_tools_have_the_anchors_names_and_parameters() -> None:
    shapes = {
        name: (sorted(spec.parameters["properties"]), spec.required, spec.writes)
        for name, spec in SPECS.items()
    }
    assert shapes == {
        "challenge": (["claim"], ["claim"], False),
        "connect": (["topicA", "topicB"], ["topicA", "topicB"], False),
        "emerge": (["days"], ["days"], False),
        "reconcile_topic": (["topic"], ["topic"], False),
        "architect": (["path"], [], True),
    }
    assert SPECS["emerge"].parameters["properties"]["days"]["type"] == "number"
    assert "architect" in confirmed_tools() and needs_confirmation("architect")
    for name in ("challenge", "connect", "emerge", "reconcile_topic"):
        assert not needs_confirmation(name)


def test_they_are_offered_only_while_second_brain_is_on(tmp_path: Path) -> None:
    root = copy_example_vault(tmp_path / "v")
    vault = Vault(root, db=tmp_path / "v.db")
    assert not set(SPECS) & {spec.name for spec in session_tools(vault)}
    turn_on(root)
    assert set(SPECS) <= {spec.name for spec in session_tools(vault)}


def test_challenge_returns_the_critique_and_the_notes_it_rests_on(
    example: Vault, fake: OpenAIFake
) -> None:
    fake.queue(Answer("Counterexample: the 2024-03-12 outage."))
    result = call(example, "challenge", {"claim": "our invoice job never fails"}, fake_model(fake))
    assert result.startswith("Counterexample: the 2024-03-12 outage.\n\nNotes consulted: ")
    assert "Postmortem - invoice job outage 2024-03-12.md" in result


@pytest.mark.parametrize(
    ("tool", "args", "text"),
    [
        ("challenge", {"claim": ""}, "challenge: A claim to review is required."),
        ("challenge", {}, "Missing or non-string arguments: claim. No changes were made."),
        ("connect", {"topicA": "x", "topicB": " "}, "Both topics (topicA, topicB) are required."),
        ("connect", {"topicA": "x"}, "Missing or non-string arguments: topicB."),
        ("reconcile_topic", {"topic": 3}, "Missing or non-string arguments: topic."),
        ("architect", {"path": "../outside"}, "paths outside the vault are not allowed: ../out"),
        ("architect", {"path": "/etc"}, "architect: paths outside the vault are not allowed: /etc"),
        ("architect", {"path": "C:/Users"}, "paths outside the vault are not allowed: C:/Users"),
    ],
)
def test_bad_arguments_fail_with_the_anchors_texts(
    example: Vault, fake: OpenAIFake, tool: str, args: dict[str, Any], text: str
) -> None:
    result = call(example, tool, args, fake_model(fake))
    assert result.startswith(ERROR) and text in result
    assert chat_bodies(fake) == []


def test_without_a_model_the_tools_say_so(example: Vault) -> None:
    result = call(example, "challenge", {"claim": "x"}, None)
    assert result == f"{ERROR} challenge: No AI client is available, so challenge cannot run."
    assert "so architect cannot run" in call(example, "architect", {}, None)


def test_every_tool_refuses_while_second_brain_is_off(tmp_path: Path, fake: OpenAIFake) -> None:
    vault = Vault(copy_example_vault(tmp_path / "v"), db=tmp_path / "v.db")
    args = {
        "challenge": {"claim": "x"},
        "connect": {"topicA": "a", "topicB": "b"},
        "emerge": {"days": 7},
        "reconcile_topic": {"topic": "t"},
        "architect": {},
    }
    for tool, arguments in args.items():
        result = call(vault, tool, arguments, fake_model(fake))
        assert result.startswith(f"{ERROR} {tool}: Second Brain is turned off"), result
    assert chat_bodies(fake) == []
    assert not (vault.path / "Second Brain").exists()


def test_emerge_takes_a_non_number_as_seven_days(example: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer("Pattern: databases."))
    result = call(example, "emerge", {"days": "lots"}, fake_model(fake))
    assert result.startswith("Pattern: databases.")
    assert "last 7 day(s)" in json.dumps(chat_bodies(fake)[0])


def test_reconcile_topic_reports_and_flags_a_garbled_answer(
    example: Vault, fake: OpenAIFake
) -> None:
    item = {
        "notePaths": ["30-resources/databases/SQLite tuning.md"],
        "statements": ["a", "b"],
        "suggestion": "Pick one.",
    }
    fake.queue(Answer(json.dumps([item])), Answer("[{'broken"), Answer("[]"))
    model = fake_model(fake)
    found = call(example, "reconcile_topic", {"topic": "SQLite"}, model)
    assert "Suggestion: Pick one." in found and found.endswith("no notes were changed.")
    garbled = call(example, "reconcile_topic", {"topic": "SQLite"}, model)
    assert garbled.startswith(ERROR) and "Could not interpret" in garbled
    assert "No contradictions found" not in garbled
    none = call(example, "reconcile_topic", {"topic": "SQLite"}, model)
    assert none == "No contradictions found. No notes were changed."


def test_architect_writes_the_note_and_the_ledger_names_the_tool(
    tmp_path: Path, fake: OpenAIFake
) -> None:
    root = copy_example_vault(tmp_path / "v")
    turn_on(root)
    vault = Vault(root, db=tmp_path / "v.db")
    fake.queue(Answer("o"), Answer("m"), Answer("d"))
    result = call(vault, "architect", {"path": "10-projects"}, fake_model(fake))
    assert result.startswith("Architecture note created: Second Brain/Architecture.md (")
    (record,) = vault.ledger(limit=1)
    assert record.label == "architect 10-projects"
