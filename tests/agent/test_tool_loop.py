"""The tool loop: ten model rounds at most, a stop after three failed tool calls in a row or three
failures of one tool, tools run one at a time in the model's order, a broken tool that does not
end the chat, and what Ctrl-C leaves behind."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agent.scripted_model import FINAL, Call, ScriptedModel
from tests.agent.session_support import no_retrieval, scripted_session
from tests.agent.tool_support import vault_copy
from vaultctx.agent.confirm import ConfirmRequest
from vaultctx.agent.failure_tracker import FAILURE_STOP_MESSAGE, FailureTracker
from vaultctx.agent.tool_loop import ROUND_LIMIT_MESSAGE
from vaultctx.agent.tool_results import DENIED, NOT_RUN
from vaultctx.api import Vault

MISSING = Call("read_note", {"path": "nope.md"})
LIST_DAILY = Call("list_files", {"folder": "daily"})


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    no_retrieval(monkeypatch)
    return vault_copy(tmp_path)


def ask(session: object, question: str = "go") -> object:
    from vaultctx.agent.session import ChatSession

    assert isinstance(session, ChatSession)
    written: list[str] = []
    turn = asyncio.run(session.ask(question, written.append))
    assert turn.answer == "".join(written)
    return turn


def test_ten_rounds_at_most_then_the_next_message_continues(vault: Vault) -> None:
    script = ScriptedModel([[f"step {n}. ", LIST_DAILY] for n in range(12)])
    session = scripted_session(vault, script)
    turn = ask(session)
    assert len(script.requests) == 10
    assert turn.stopped == ROUND_LIMIT_MESSAGE  # type: ignore[attr-defined]
    assert ROUND_LIMIT_MESSAGE == (
        "Reached the tool round limit (10) before finishing. Send another message to continue."
    )
    assert len(turn.tool_calls) == 10  # type: ignore[attr-defined]
    assert turn.answer.startswith("step 0. \n\nstep 1. ")  # type: ignore[attr-defined]
    script.rounds = [*script.rounds[:10], ["Finished."]]
    after = ask(session, "continue")
    assert after.answer == "Finished." and after.stopped is None  # type: ignore[attr-defined]
    sent = script.requests[-1]
    kinds = [part.part_kind for message in sent[-2:] for part in message.parts]
    assert "tool-return" in kinds and "user-prompt" in kinds  # the last results, then the message


def test_three_failed_calls_in_a_row_stop_the_loop(vault: Vault) -> None:
    script = ScriptedModel(
        [
            [MISSING],
            [Call("list_files", {"folder": "nope"})],
            [Call("edit_note", {"path": "nope.md", "content": "x"})],
            [LIST_DAILY],
        ]
    )
    turn = ask(scripted_session(vault, script))
    assert turn.stopped == FAILURE_STOP_MESSAGE  # type: ignore[attr-defined]
    assert len(script.requests) == 3  # the round after the third failure is never asked for
    assert [c["name"] for c in turn.tool_calls] == ["read_note", "list_files", "edit_note"]  # type: ignore[attr-defined]


def test_three_failures_of_one_tool_stop_even_between_successes(vault: Vault) -> None:
    edit = Call("edit_note", {"path": "nope.md", "find": "a", "replace": "b"})
    script = ScriptedModel([[edit, LIST_DAILY, edit, LIST_DAILY, edit, LIST_DAILY]])
    turn = ask(scripted_session(vault, script))
    assert turn.stopped == FAILURE_STOP_MESSAGE  # type: ignore[attr-defined]
    summaries = [c["result_summary"] for c in turn.tool_calls]  # type: ignore[attr-defined]
    assert summaries[5] == NOT_RUN[:79] + "…"  # the round's remaining call did not run
    assert len(script.requests) == 1


def test_the_failure_tracker_counts_as_the_anchor_does() -> None:
    tracker = FailureTracker()
    steps = [
        ("edit_note", "Tool execution error: x"),
        ("read_note", "Path: a"),
        ("edit_note", "Tool execution error: x"),
        ("read_note", "Path: a"),
    ]
    assert not any(tracker.update(tool, result) for tool, result in steps)
    assert tracker.update("edit_note", "Tool execution error: x")
    three = FailureTracker()
    assert not three.update("a", "Tool execution error: 1")
    assert not three.update("b", "Tool execution error: 2")
    assert three.update("c", "Tool execution error: 3")
    denied = FailureTracker()
    assert not any(denied.update("create_note", DENIED) for _ in range(5))


def test_tools_run_one_at_a_time_in_the_order_given(vault: Vault) -> None:
    script = ScriptedModel(
        [
            [
                Call("create_note", {"path": "order.md", "content": "one"}),
                Call("append_to_note", {"path": "order.md", "content": "two"}),
                Call("read_note", {"path": "order.md"}),
            ]
        ]
    )
    turn = ask(scripted_session(vault, script))
    assert script.tool_results(1) == [
        "Note created: order.md",
        "Content appended: order.md",
        "Path: order.md\n\none\ntwo",
    ]
    assert turn.answer == FINAL  # type: ignore[attr-defined]


def test_text_and_a_tool_call_in_one_round_both_count(vault: Vault) -> None:
    script = ScriptedModel([["Let me look.", LIST_DAILY], ["Three notes."]])
    turn = ask(scripted_session(vault, script))
    assert turn.answer == "Let me look.\n\nThree notes."  # type: ignore[attr-defined]
    assert script.tool_results(1)[0].startswith("📄 2024-03-12.md")


def test_a_broken_tool_does_not_end_the_chat(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Vault, "read_note", broken)
    script = ScriptedModel([[Call("read_note", {"path": "daily/2024-03-12.md"})]])
    turn = ask(scripted_session(vault, script))
    assert turn.error is None and turn.answer == FINAL  # type: ignore[attr-defined]
    assert script.tool_results(1)[0].startswith(
        "Tool execution error: read_note: the tool failed unexpectedly"
    )


def test_arguments_that_are_not_json_are_retried_by_the_model(vault: Vault) -> None:
    script = ScriptedModel([[Call("list_files", "{not json")], [LIST_DAILY]])
    turn = ask(scripted_session(vault, script))
    assert turn.answer == FINAL and turn.error is None  # type: ignore[attr-defined]


def test_tool_calls_are_saved_with_the_turn(vault: Vault) -> None:
    from vaultctx.conversations import ConversationStore

    script = ScriptedModel([[Call("create_note", {"path": "saved.md", "content": "x" * 500})]])
    session = scripted_session(vault, script)
    turn = ask(session)
    call = turn.tool_calls[0]  # type: ignore[attr-defined]
    assert call["name"] == "create_note"
    assert call["args"]["content"] == "x" * 200 + "… (500 characters)"
    assert call["result_summary"] == "Note created: saved.md"
    with ConversationStore.open(vault.path) as store:
        saved = store.get(session.conversation_id or "")
    assert [c.as_dict() for c in saved.messages[-1].tool_calls] == [call]
    records = vault.ledger()
    assert records[0].conversation_id == session.conversation_id


def test_cancelling_keeps_the_changes_made_and_the_calls_so_far(vault: Vault) -> None:
    started = asyncio.Event()
    asked: list[str] = []

    async def confirm(request: ConfirmRequest) -> str:
        asked.append(request.tool)
        if len(asked) == 1:
            return "yes"
        started.set()
        await asyncio.sleep(3600)
        return "yes"

    script = ScriptedModel(
        [
            [
                Call("create_note", {"path": "first.md", "content": "1"}),
                Call("create_note", {"path": "second.md", "content": "2"}),
            ]
        ]
    )
    session = scripted_session(vault, script, confirm_changes=True, confirm=confirm)  # type: ignore[arg-type]

    async def run() -> None:
        task = asyncio.create_task(session.ask("go", lambda _: None))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert (vault.path / "first.md").read_text(encoding="utf-8") == "1"
    assert not (vault.path / "second.md").exists()
    assert session.history == []
    turn = session.turn_in_progress
    assert turn is not None and [c["name"] for c in turn.tool_calls] == ["create_note"]
    assert [r.label for r in vault.ledger()] == ["create_note first.md"]


def test_a_success_resets_the_failures_in_a_row() -> None:
    tracker = FailureTracker()
    assert not tracker.update("read_note", "Tool execution error: 1")
    assert not tracker.update("list_files", "Tool execution error: 2")
    assert not tracker.update("search_vault", "Found 3 notes")
    assert tracker.consecutive == 0
    assert not tracker.update("create_note", "Tool execution error: 3")
    assert not tracker.update("edit_note", "Tool execution error: 4")
    assert tracker.update("open_note", "Tool execution error: 5")


def test_a_made_up_tool_is_one_failed_call_and_the_answer_goes_on(vault: Vault) -> None:
    from vaultctx.conversations import ConversationStore

    search = Call("web_search", {"query": "weather"})
    script = ScriptedModel([[search], [search, LIST_DAILY], ["No web here; three notes."]])
    session = scripted_session(vault, script)
    turn = ask(session)
    assert turn.error is None and turn.stopped is None  # type: ignore[attr-defined]
    assert turn.answer == "No web here; three notes."  # type: ignore[attr-defined]
    assert script.tool_results(1) == ["Tool execution error: Unknown tool: web_search"]
    assert script.tool_results(2)[0] == "Tool execution error: Unknown tool: web_search"
    calls = turn.tool_calls  # type: ignore[attr-defined]
    # A round's calls of unknown tools are counted after the ones that ran.
    assert [c["name"] for c in calls] == ["web_search", "list_files", "web_search"]
    assert calls[0]["args"] == {"query": "weather"}
    assert calls[0]["result_summary"] == "Tool execution error: Unknown tool: web_search"
    with ConversationStore.open(vault.path) as store:
        saved = store.get(session.conversation_id or "")
    assert saved.messages[-1].text == "No web here; three notes."


def test_three_calls_of_a_made_up_tool_stop_the_loop(vault: Vault) -> None:
    search = Call("web_search", {"query": "weather"})
    script = ScriptedModel([[search], [search], [search], ["never asked"]])
    turn = ask(scripted_session(vault, script))
    assert turn.stopped == FAILURE_STOP_MESSAGE and turn.error is None  # type: ignore[attr-defined]
    assert len(script.requests) == 3
    assert len(turn.tool_calls) == 3  # type: ignore[attr-defined]


def test_a_second_brain_tool_called_while_it_is_off_says_so(vault: Vault) -> None:
    script = ScriptedModel([[Call("update_index", {})]])
    turn = ask(scripted_session(vault, script))
    assert turn.error is None and turn.answer == FINAL  # type: ignore[attr-defined]
    assert script.tool_results(1) == [
        "Tool execution error: Second Brain is turned off. Enable it (enabled = true under "
        "[second_brain] in the vault's vaultctx.toml) and try again."
    ]
    assert not (vault.path / "Second Brain").exists()
