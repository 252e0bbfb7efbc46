"""challenge, connect and emerge over a real index, the real OpenAI client and the wire fake:
what the model is shown, what comes back, and the plain answers when there is nothing to ask."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.think_support import (
    chat_bodies,
    fake_model,
    indexed_vault,
    max_tokens_of,
    prompt_of,
    run,
    system_of,
    turn_on,
)
from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.brain.passages import DATA_RULE
from vaultctx.brain.settings import SecondBrainOffError
from vaultctx.brain.thinking import (
    EMPTY_CLAIM,
    EMPTY_TOPICS,
    EmptyInputError,
    challenge,
    connect,
    emerge,
    emerge_days,
)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """The example vault, Second Brain on, indexed once (these tools never write)."""
    root = tmp_path_factory.mktemp("think")
    vault_root = copy_example_vault(root / "vault")
    turn_on(vault_root)
    vault = Vault(vault_root, db=root / "index.db")
    vault.index(fast=True)
    return vault


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def test_challenge_shows_the_model_the_matching_notes_as_data_and_returns_its_critique(
    example: Vault, fake: OpenAIFake
) -> None:
    fake.queue(Answer("The postmortem contradicts this: the job failed on a lock."))
    result = run(challenge(example, fake_model(fake), "SQLite WAL mode never causes locking"))
    assert result.asked
    assert result.text == "The postmortem contradicts this: the job failed on a lock."
    (body,) = chat_bodies(fake)
    assert max_tokens_of(body) == 1500
    prompt = prompt_of(body)
    assert "SQLite WAL mode never causes locking" in prompt
    assert "30-resources/databases/SQLite tuning.md" in prompt
    assert prompt.count("<passage ") == prompt.count("</passage>") == len(result.sources)
    assert DATA_RULE in system_of(body)
    assert "30-resources/databases/SQLite tuning.md" in [s.path for s in result.sources]


def test_challenge_needs_a_claim_and_asks_nothing_without_one(
    example: Vault, fake: OpenAIFake
) -> None:
    for claim in ("", "   "):
        with pytest.raises(EmptyInputError) as caught:
            run(challenge(example, fake_model(fake), claim))
        assert caught.value.message == EMPTY_CLAIM == "A claim to review is required."
    assert chat_bodies(fake) == []


def test_without_matching_notes_the_model_is_not_asked(tmp_path: Path, fake: OpenAIFake) -> None:
    vault = indexed_vault(tmp_path / "empty", {}, tmp_path / "empty.db")
    model = fake_model(fake)
    result = run(challenge(vault, model, "anything at all"))
    assert not result.asked
    assert result.text.startswith('No notes found about "anything at all"')
    result = run(connect(vault, model, "gardening", "databases"))
    assert not result.asked and "nothing to connect" in result.text
    assert chat_bodies(fake) == []


def test_connect_searches_both_topics_and_asks_once(example: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer("Both are about making writes durable."))
    result = run(connect(example, fake_model(fake), "SQLite tuning", "on-call handbook"))
    assert result.text == "Both are about making writes durable."
    (body,) = chat_bodies(fake)
    assert max_tokens_of(body) == 1500
    prompt = prompt_of(body)
    assert "Topic A:" in prompt and "Topic B:" in prompt
    assert "SQLite tuning" in prompt and "on-call handbook" in prompt
    assert "20-areas/engineering/On-call handbook.md" in prompt
    numbers = [int(part.split('"')[0]) for part in prompt.split('<passage n="')[1:]]
    assert numbers == list(range(1, len(numbers) + 1))  # one numbering across both topics


@pytest.mark.parametrize(("a", "b"), [("", "x"), ("x", ""), (" ", " ")])
def test_connect_needs_both_topics(example: Vault, fake: OpenAIFake, a: str, b: str) -> None:
    with pytest.raises(EmptyInputError, match=r"Both topics \(topicA, topicB\) are required\."):
        run(connect(example, fake_model(fake), a, b))
    assert EMPTY_TOPICS == "Both topics (topicA, topicB) are required."
    assert chat_bodies(fake) == []


@pytest.mark.parametrize(
    ("given", "days"),
    [
        (7, 7),
        (2.6, 3),
        (0, 1),
        (-4, 1),
        (0.2, 1),
        ("14", 7),
        (None, 7),
        (True, 7),
        (math.nan, 7),
        (math.inf, 7),
        (10**12, 36_500),
    ],
)
def test_emerge_days_a_non_number_is_seven_then_rounded_and_at_least_one(
    given: object, days: int
) -> None:
    assert emerge_days(given) == days


def _aged(root: Path, path: str, days_ago: float) -> None:
    stamp = time.time() - days_ago * 86_400
    os.utime(root / path, (stamp, stamp))


def test_emerge_reads_the_60_newest_notes_and_says_it_left_the_rest_out(
    tmp_path: Path, fake: OpenAIFake
) -> None:
    notes = {f"n{i:02}.md": f"# Note {i:02}\n\nThought number {i:02}.\n" for i in range(65)}
    root = tmp_path / "v"
    root.mkdir()
    for path, text in notes.items():
        (root / path).write_text(text, encoding="utf-8")
    for i in range(65):
        _aged(root, f"n{i:02}.md", i * 0.05)  # n00 newest … n64 oldest, all within 4 days
    (root / "old.md").write_text("# Old\n\nlong ago\n", encoding="utf-8")
    _aged(root, "old.md", 40)
    vault = indexed_vault(root, {}, tmp_path / "v.db")
    fake.queue(Answer("A theme: numbered thoughts."))
    result = run(emerge(vault, fake_model(fake), 7))
    assert result.text == (
        "A theme: numbered thoughts.\n\n"
        "(Analyzed only the 60 most recent of 65 notes modified in the last 7 day(s).)"
    )
    (body,) = chat_bodies(fake)
    assert max_tokens_of(body) == 2000
    prompt = prompt_of(body)
    assert [s.path for s in result.sources] == [f"n{i:02}.md" for i in range(60)]
    assert "n59.md" in prompt and "n60.md" not in prompt and "old.md" not in prompt
    assert "Thought number 00." in prompt  # the note's text, not only its name


def test_emerge_without_recent_notes_says_so_and_asks_nothing(
    tmp_path: Path, fake: OpenAIFake
) -> None:
    root = tmp_path / "v"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nold\n", encoding="utf-8")
    _aged(root, "a.md", 30)
    vault = indexed_vault(root, {}, tmp_path / "v.db")
    result = run(emerge(vault, fake_model(fake), 3))
    assert result.text == "No notes modified in the last 3 day(s)."
    assert not result.asked
    result = run(emerge(vault, fake_model(fake), "a week"))
    assert result.text == "No notes modified in the last 7 day(s)."
    assert chat_bodies(fake) == []


def test_every_thinking_tool_refuses_while_second_brain_is_off(
    tmp_path: Path, fake: OpenAIFake
) -> None:
    from vaultctx.brain.reconcile import reconcile_topic

    root = copy_example_vault(tmp_path / "off")
    vault = Vault(root, db=tmp_path / "off.db")
    model = fake_model(fake)
    for call in (
        challenge(vault, model, "a claim"),
        connect(vault, model, "a", "b"),
        emerge(vault, model, 7),
        reconcile_topic(vault, model, "a topic"),
    ):
        with pytest.raises(SecondBrainOffError, match="Second Brain is turned off"):
            run(call)
    (root / "vaultctx.toml").write_text("[second_brain]\nenabled = false\n", encoding="utf-8")
    with pytest.raises(SecondBrainOffError):
        run(challenge(vault, model, "a claim"))
    assert chat_bodies(fake) == []


def test_an_empty_answer_is_said_to_be_empty(example: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer("   "))
    result = run(challenge(example, fake_model(fake), "SQLite tuning"))
    assert result.text == "(The model returned no text; try again, or another model.)"
