"""reconcile_topic: the model's JSON read defensively (fences, prose, wrong shapes, paths it was
never shown), and a garbled or truncated answer reported as such, never as "no contradictions"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.think_support import (
    chat_bodies,
    fake_model,
    indexed_vault,
    max_tokens_of,
    prompt_of,
    run,
    turn_on,
)
from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.brain.passages import Passage
from vaultctx.brain.reconcile import (
    NO_CONTRADICTIONS,
    find_array,
    interpret,
    reconcile_topic,
)
from vaultctx.brain.thinking import EmptyInputError

TUNING = "30-resources/databases/SQLite tuning.md"
FTS = "30-resources/databases/SQLite FTS5.md"
ITEM = {
    "notePaths": [TUNING, FTS],
    "statements": ["WAL is always on", "WAL is off by default"],
    "suggestion": "State that WAL must be enabled per database.",
}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("reconcile")
    vault_root = copy_example_vault(root / "vault")
    turn_on(vault_root)
    vault = Vault(vault_root, db=root / "index.db")
    vault.index(fast=True)
    return vault


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def test_a_fenced_array_with_prose_after_it_is_read_and_unknown_paths_dropped(
    example: Vault, fake: OpenAIFake
) -> None:
    foreign = {**ITEM, "notePaths": ["secrets/passwords.md"], "suggestion": "Delete it."}
    partly = {**ITEM, "notePaths": [TUNING.removesuffix(".md"), "../outside.md"]}
    reply = f"```json\n{json.dumps([ITEM, foreign, partly])}\n```\nI hope this helps!"
    fake.queue(Answer(reply))
    report = run(reconcile_topic(example, fake_model(fake), "SQLite WAL"))
    (body,) = chat_bodies(fake)
    assert max_tokens_of(body) == 1500
    assert TUNING in prompt_of(body)
    assert report.status == "found"
    assert [item.note_paths for item in report.items] == [[TUNING, FTS], [TUNING]]
    assert report.dropped == 1
    assert report.items[0].statements == ITEM["statements"]
    text = report.text
    assert text.startswith('Contradictions about "SQLite WAL" (2):')
    assert "secrets/passwords.md" not in text and "Delete it." not in text
    assert "Suggestion: State that WAL must be enabled per database." in text
    assert "Nothing was changed." in text


@pytest.mark.parametrize(
    "reply",
    [
        "I could not find the notes' contradictions, sorry.",
        "",
        '[{"notePaths": ["' + TUNING + '"], "statements": [], "suggestion": "Use W',
        '```json\n[{"notePaths": ["' + TUNING + '"],\n  "statements": ["a", "b"',
        "{'notePaths': ['x']}",
    ],
    ids=["prose", "empty", "truncated-after-empty-list", "truncated-fenced", "python-repr"],
)
def test_a_garbled_or_truncated_answer_is_never_no_contradictions(
    example: Vault, fake: OpenAIFake, reply: str
) -> None:
    fake.queue(Answer(reply or " "))
    report = run(reconcile_topic(example, fake_model(fake), "SQLite WAL"))
    assert report.status == "unreadable"
    assert "could not interpret" in report.text.lower()
    assert "not the same as no contradictions; nothing changed" in report.text
    assert NO_CONTRADICTIONS not in report.text


def test_an_empty_array_is_no_contradictions(example: Vault, fake: OpenAIFake) -> None:
    fake.queue(Answer("None of these notes disagree: []"))
    report = run(reconcile_topic(example, fake_model(fake), "SQLite WAL"))
    assert report.status == "none"
    assert report.text == "No contradictions found. No notes were changed."


def test_items_citing_no_searched_note_are_not_reported_as_none(
    example: Vault, fake: OpenAIFake
) -> None:
    fake.queue(Answer(json.dumps([{**ITEM, "notePaths": ["made/up.md"]}])))
    report = run(reconcile_topic(example, fake_model(fake), "SQLite WAL"))
    assert report.status == "unusable"
    assert "not the same as no contradictions" in report.text
    assert NO_CONTRADICTIONS not in report.text


def test_no_notes_means_no_question(tmp_path: Path, fake: OpenAIFake) -> None:
    vault = indexed_vault(tmp_path / "v", {}, tmp_path / "v.db")
    report = run(reconcile_topic(vault, fake_model(fake), "anything"))
    assert report.status == "no-notes"
    assert report.text == 'No notes found about "anything", so there is nothing to reconcile.'
    with pytest.raises(EmptyInputError, match="A topic to reconcile is required"):
        run(reconcile_topic(vault, fake_model(fake), " "))
    assert chat_bodies(fake) == []


def test_find_array_takes_the_array_of_objects_not_a_bracket_in_the_prose() -> None:
    assert find_array('See [1] and [2]: [{"a": 1}] done') == [{"a": 1}]
    assert find_array('[see below]\n[{"a": 1}]') == [{"a": 1}]
    assert find_array("[]") == []
    assert find_array('[] — but actually [{"a": 1}]') == [{"a": 1}]
    assert find_array("[1, 2]") is None
    assert find_array("[" * 10_000) is None  # bounded work on a hostile reply


PASSAGES = [Passage("A", "a.md", "x"), Passage("B", "b.md", "y")]
items = st.lists(
    st.fixed_dictionaries(
        {
            "notePaths": st.lists(st.sampled_from(["a.md", "b.md", "c.md"]), max_size=3),
            "statements": st.lists(st.text(max_size=20), max_size=3),
            "suggestion": st.text(min_size=1, max_size=30),
        }
    ),
    min_size=1,
    max_size=4,
)


@given(items=items, data=st.data())
def test_every_truncation_of_an_answer_is_unreadable(
    items: list[object], data: st.DataObject
) -> None:
    reply = json.dumps(items, ensure_ascii=False)
    cut = data.draw(st.integers(min_value=0, max_value=len(reply) - 1))
    report = interpret("t", reply[:cut], PASSAGES)
    assert report.status == "unreadable"
    assert report.items == []
