"""``vaultctx brain challenge | connect | emerge | reconcile | architect`` and ``vaultctx review
contradictions`` as real processes against the OpenAI wire fake, and ``vaultctx undo`` after."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.cli_support import (
    KEY,
    Indexed,
    agent_env,
    ask,
    indexed_example,
    openai_toml,
    vaultctx,
)
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.brain.think_support import chat_bodies, turn_on

TUNING = "30-resources/databases/SQLite tuning.md"


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


@pytest.fixture
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    example = indexed_example(tmp_path_factory)
    turn_on(example.vault)
    return example


def env(tmp_path: Path, fake: OpenAIFake) -> dict[str, str]:
    toml = "[agent]\n" + openai_toml(fake) + "translate = false\n"
    return agent_env(tmp_path, toml, OPENAI_TEST=KEY)


def test_challenge_and_connect_print_the_models_answer(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("Gap: no numbers."), Answer("Link: both batch work."))
    environment = env(tmp_path, fake)
    challenged = vaultctx(indexed, environment, "brain", "challenge", "WAL fixes everything")
    assert challenged.returncode == 0, challenged.stderr
    assert challenged.stdout == "Gap: no numbers.\n"
    connected = vaultctx(indexed, environment, "brain", "connect", "SQLite", "billing", "--json")
    assert connected.returncode == 0, connected.stderr
    out = json.loads(connected.stdout)
    assert out["tool"] == "connect" and out["text"] == "Link: both batch work." and out["asked"]
    assert any(source["path"] == TUNING for source in out["sources"])
    assert KEY in (fake.last("/chat/completions").header("authorization") or "")


def test_emerge_and_reconcile_from_the_command_line(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("Theme: tuning."), Answer("[{'not json"))
    environment = env(tmp_path, fake)
    emerged = vaultctx(indexed, environment, "brain", "emerge", "--days", "3", "--json")
    assert emerged.returncode == 0, emerged.stderr
    assert json.loads(emerged.stdout)["text"].startswith("Theme: tuning.")
    assert "last 3 day(s)" in json.dumps(chat_bodies(fake)[0])
    garbled = vaultctx(indexed, environment, "brain", "reconcile", "SQLite WAL")
    assert garbled.returncode == 2
    assert "Could not interpret" in garbled.stdout
    assert "No contradictions" not in garbled.stdout


def test_review_contradictions_applies_accepted_items_and_undo_reverts_them(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    other = "30-resources/databases/SQLite FTS5.md"
    reply = [
        {"notePaths": [TUNING, other], "statements": ["x", "y"], "suggestion": "Say which."},
        {"notePaths": [TUNING], "statements": ["z"], "suggestion": "Date the benchmark."},
        {"notePaths": [other], "statements": ["w"], "suggestion": "Not accepted."},
    ]
    fake.queue(Answer(json.dumps(reply)))
    before = {p: (indexed.vault / p).read_bytes() for p in (TUNING, other)}
    environment = env(tmp_path, fake)
    result = vaultctx(
        indexed, environment, "review", "contradictions", "SQLite WAL", "--accept", "1,2", "--json"
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["flow"] == "contradictions" and out["accepted"] == [1, 2]
    assert out["result"]["applied"] == [1, 2]
    tuning = (indexed.vault / TUNING).read_text(encoding="utf-8")
    assert "Say which." in tuning and "Date the benchmark." in tuning
    assert "learned_at: " in tuning and "<!-- @generated:reconcile -->" in tuning
    fts = (indexed.vault / other).read_text(encoding="utf-8")
    assert "Say which." in fts and "Not accepted." not in fts
    ledger = vaultctx(indexed, environment, "ledger", "--json")
    assert "review contradictions: SQLite WAL" in ledger.stdout
    undone = vaultctx(indexed, environment, "undo")
    assert undone.returncode == 0, undone.stderr
    assert {p: (indexed.vault / p).read_bytes() for p in before} == before


def test_architect_writes_once_and_refuses_a_path_outside_the_vault(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    environment = env(tmp_path, fake)
    outside = vaultctx(indexed, environment, "brain", "architect", "../elsewhere")
    assert outside.returncode == 2 and "path refused" in outside.stderr
    fake.queue(Answer("o"), Answer("m"), Answer("d"))
    written = vaultctx(indexed, environment, "brain", "architect", "10-projects")
    assert written.returncode == 0, written.stderr
    assert "Architecture note created: Second Brain/Architecture.md" in written.stdout
    assert "`vaultctx undo` reverts it" in written.stdout
    assert (indexed.vault / "Second Brain" / "Architecture.md").is_file()
    assert len(chat_bodies(fake)) == 3


def test_every_command_refuses_while_second_brain_is_off(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    (indexed.vault / "vaultctx.toml").unlink()
    environment = env(tmp_path, fake)
    for args in (
        ("brain", "challenge", "x"),
        ("brain", "connect", "a", "b"),
        ("brain", "emerge"),
        ("brain", "reconcile", "t"),
        ("brain", "architect"),
        ("review", "contradictions", "t", "--accept", "all"),
    ):
        result = vaultctx(indexed, environment, *args)
        assert result.returncode == 2, args
        assert "Second Brain is turned off" in result.stderr, args
        assert "enabled = true" in result.stderr
    assert fake.requests == []
    assert not (indexed.vault / "Second Brain").exists()


def test_the_chat_model_calls_challenge_and_the_tool_asks_the_same_backend(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(
        Answer(tool_calls=[ToolCall("challenge", {"claim": "WAL mode never blocks writers"})]),
        Answer("Counterexample: one writer at a time."),
        Answer("Your notes disagree: only one writer at a time."),
    )
    result = ask(indexed, env(tmp_path, fake), "is it true WAL never blocks writers?", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [call["name"] for call in out["tool_calls"]] == ["challenge"]
    assert out["answer"] == "Your notes disagree: only one writer at a time."
    bodies = chat_bodies(fake)
    assert len(bodies) == 3
    assert "WAL mode never blocks writers" in json.dumps(bodies[1])  # the tool's own question
    tool_results = [m["content"] for m in bodies[2]["messages"] if m.get("role") == "tool"]
    assert tool_results[-1].startswith("Counterexample: one writer at a time.\n\nNotes consulted:")


def test_accept_applies_the_list_that_was_shown_without_asking_the_model_again(
    indexed: Indexed, fake: OpenAIFake, tmp_path: Path
) -> None:
    reply = [{"notePaths": [TUNING], "statements": ["x"], "suggestion": "Say which mode."}]
    fake.queue(Answer(json.dumps(reply)), Answer(json.dumps([{**reply[0], "suggestion": "NO"}])))
    environment = env(tmp_path, fake)
    listed = vaultctx(indexed, environment, "review", "contradictions", "SQLite  WAL")
    assert listed.returncode == 0, listed.stderr
    assert "[1] 30-resources/databases/SQLite tuning.md: Say which mode." in listed.stdout
    assert "vaultctx review contradictions 'SQLite  WAL' --accept 1,3" in listed.stdout
    assert "Say which mode." not in (indexed.vault / TUNING).read_text(encoding="utf-8")
    applied = vaultctx(
        indexed, environment, "review", "contradictions", "sqlite wal", "--accept", "1"
    )
    assert applied.returncode == 0, applied.stderr
    assert "Say which mode." in (indexed.vault / TUNING).read_text(encoding="utf-8")
    assert len(chat_bodies(fake)) == 1  # the saved list, not a second answer


def test_a_thinking_tool_without_a_model_says_how_to_set_one(
    indexed: Indexed, tmp_path: Path
) -> None:
    refused = vaultctx(indexed, agent_env(tmp_path, "[agent]\n"), "brain", "challenge", "WAL")
    assert refused.returncode == 2, refused.stderr
    assert "asks a model, and none is configured" in refused.stderr
    assert "[agent] model" in refused.stderr and "--model" in refused.stderr
