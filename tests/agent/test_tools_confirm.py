"""Confirmation (``confirm_changes``): which tools ask, yes / no / always, a denial that is not
a failure, no one to ask means no, the diff shown, and the terminal's question."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from tests.agent.scripted_model import FINAL, Call, ScriptedModel
from tests.agent.session_support import no_retrieval, scripted_session
from tests.agent.tool_contract_args import GOOD_ARGUMENTS
from tests.agent.tool_support import call, snapshot, vault_copy
from vaultctx.agent.brain_tools import BRAIN_TOOLS
from vaultctx.agent.confirm import (
    ConfirmRequest,
    Decision,
    change_preview,
    confirmed_tools,
    needs_confirmation,
)
from vaultctx.agent.settings import load_agent_settings
from vaultctx.agent.tool_list import BASIC_TOOLS
from vaultctx.agent.tool_results import DENIED
from vaultctx.api import Vault
from vaultctx.cli.tool_prompts import TerminalConfirm


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    no_retrieval(monkeypatch)
    return vault_copy(tmp_path)


class Answers:
    """A ``Confirm`` callback answering from a list, keeping what it was asked."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[ConfirmRequest] = []

    async def __call__(self, request: ConfirmRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)


def ask(session: Any, question: str = "go") -> Any:
    return asyncio.run(session.ask(question, lambda _: None))


# The tools asked about, as agent/confirm.py listed them before agent/tool_list.py declared them.
WRITERS = {
    "architect",
    "create_note",
    "edit_note",
    "append_to_note",
    "save_template",
    "apply_template",
    "move_file",
    "delete_file",
    "create_wiki_note",
    "update_index",
    "synthesize_topic",
}


def test_the_confirmed_tools_are_exactly_the_tools_that_write(tmp_path: Path) -> None:
    basic_writes = {spec.name for spec in BASIC_TOOLS if spec.writes}
    brain_writes = {spec.name for spec in BRAIN_TOOLS if spec.writes}
    assert basic_writes | brain_writes == confirmed_tools() == WRITERS
    changed: set[str] = set()
    for spec in BASIC_TOOLS:
        vault = vault_copy(tmp_path / spec.name, indexed=spec.name == "search_vault")
        (vault.path / "Templates").mkdir()
        (vault.path / "Templates" / "T.md").write_text("{{x}}", encoding="utf-8")
        before = snapshot(vault.path)
        result = call(vault, spec.name, GOOD_ARGUMENTS[spec.name], open_uri=lambda _: True)
        assert not result.startswith("Tool execution error:"), (spec.name, result)
        if snapshot(vault.path) != before:
            changed.add(spec.name)
    assert changed == basic_writes


def test_mcp_tools_ask_and_reading_tools_do_not() -> None:
    assert needs_confirmation("mcp_github_create_issue")
    for name in ("search_vault", "read_note", "list_files", "get_active_note", "open_note"):
        assert not needs_confirmation(name)
    assert not needs_confirmation("list_templates")


def test_yes_runs_the_tool_after_showing_its_arguments_and_diff(vault: Vault) -> None:
    answers = Answers("yes")
    script = ScriptedModel([[Call("create_note", {"path": "a.md", "content": "# A\n"})]])
    session = scripted_session(vault, script, confirm_changes=True, confirm=answers)
    ask(session)
    assert (vault.path / "a.md").read_text(encoding="utf-8") == "# A\n"
    request = answers.asked[0]
    assert request.tool == "create_note"
    assert request.args == {"path": "a.md", "content": "# A\n"}
    assert request.diff == "--- /dev/null\n+++ b/a.md\n@@ -0,0 +1 @@\n+# A\n"


def test_no_denies_and_a_denial_is_not_a_failure(vault: Vault) -> None:
    answers = Answers("no", "no", "no", "no")
    create = Call("create_note", {"path": "a.md", "content": "x"})
    script = ScriptedModel([[create], [create], [create], [create]])
    session = scripted_session(vault, script, confirm_changes=True, confirm=answers)
    turn = ask(session)
    assert not (vault.path / "a.md").exists() and vault.ledger() == []
    assert script.tool_results(1) == [DENIED] == ["Tool execution denied by user."]
    assert turn.stopped is None and turn.answer == FINAL  # four denials did not stop the loop
    assert len(answers.asked) == 4


def test_always_stops_asking_for_the_rest_of_the_session(vault: Vault) -> None:
    answers = Answers("always")
    script = ScriptedModel(
        [
            [
                Call("create_note", {"path": "a.md", "content": "x"}),
                Call("append_to_note", {"path": "a.md", "content": "y"}),
            ],
            ["ok"],
            [Call("delete_file", {"path": "a.md"})],
        ]
    )
    session = scripted_session(vault, script, confirm_changes=True, confirm=answers)
    ask(session)
    ask(session, "now delete it")
    assert len(answers.asked) == 1
    assert not (vault.path / "a.md").exists()


def test_nobody_to_ask_means_every_change_is_denied(vault: Vault) -> None:
    script = ScriptedModel(
        [[Call("create_note", {"path": "a.md", "content": "x"}), Call("list_files", {})]]
    )
    session = scripted_session(vault, script, confirm_changes=True, confirm=None)
    ask(session)
    assert not (vault.path / "a.md").exists()
    results = script.tool_results(1)
    assert results[0] == DENIED and results[1].startswith("📁 ")


def test_without_confirm_changes_nothing_is_asked(vault: Vault) -> None:
    answers = Answers()
    script = ScriptedModel([[Call("create_note", {"path": "a.md", "content": "x"})]])
    ask(scripted_session(vault, script, confirm_changes=False, confirm=answers))
    assert (vault.path / "a.md").exists() and answers.asked == []


def test_mcp_tools_are_confirmed_through_the_same_guard(vault: Vault) -> None:
    from pydantic_ai.toolsets import FunctionToolset

    from vaultctx.agent.session import ChatSession
    from vaultctx.agent.toolset import GuardedToolset

    ran: list[str] = []

    def mcp_echo(text: str) -> str:
        ran.append(text)
        return text

    original = ChatSession.toolsets

    def with_mcp(self: ChatSession, guard: Any) -> list[Any]:
        return [*original(self, guard), GuardedToolset(FunctionToolset([mcp_echo]), guard=guard)]

    answers = Answers("no")
    script = ScriptedModel([[Call("mcp_echo", {"text": "hi"})]])
    session = scripted_session(vault, script, confirm_changes=True, confirm=answers)
    session.toolsets = with_mcp.__get__(session)  # type: ignore[method-assign]
    ask(session)
    assert ran == [] and answers.asked[0].tool == "mcp_echo" and answers.asked[0].diff is None
    assert script.tool_results(1) == [DENIED]


# -- the diff shown


def test_previews_are_computed_from_the_note_as_it_is(vault: Vault) -> None:
    path = "daily/2024-03-12.md"
    text = (vault.path / path).read_text(encoding="utf-8")
    word = text.split()[3]
    edit = change_preview(vault, "edit_note", {"path": path, "find": word, "replace": "ZZZ"})
    assert edit is not None and edit.startswith(f"--- a/{path}\n+++ b/{path}\n@@")
    assert "+" in edit and "ZZZ" in edit
    whole = change_preview(vault, "edit_note", {"path": path, "content": "new\n"})
    assert whole is not None and whole.endswith("+new\n")
    missing = change_preview(vault, "edit_note", {"path": path, "find": "QQQ-none", "replace": "x"})
    assert missing == "(the text to replace is not in the note: the tool will fail)"
    appended = change_preview(vault, "append_to_note", {"path": path, "content": "tail"})
    assert appended is not None and appended.endswith("+tail\n")
    assert (
        change_preview(vault, "move_file", {"source_path": path, "destination_path": "x.md"})
        is None
    )
    assert change_preview(vault, "delete_file", {"path": path}) is None


def test_the_terminal_question(tmp_path: Path) -> None:
    replies = iter(["maybe", "A"])
    prompts: list[str] = []

    async def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    out = io.StringIO()
    confirm = TerminalConfirm(read, out)
    request = ConfirmRequest(
        "edit_note", {"path": "a.md", "content": "x\x1b[2J" + "y" * 300}, "--- a/a.md\n"
    )
    assert asyncio.run(confirm(request)) == "always"
    shown = out.getvalue()
    assert shown.startswith("The assistant wants to run edit_note with:\n{\n")
    assert "\x1b" not in shown and "(305 characters)" in shown and "--- a/a.md" in shown
    assert "answer y, n or a" in shown and len(prompts) == 2


def test_end_of_input_at_the_question_is_no() -> None:
    async def closed(prompt: str) -> str:
        raise EOFError

    request = ConfirmRequest("delete_file", {"path": "a.md"})
    assert asyncio.run(TerminalConfirm(closed, io.StringIO())(request)) == "no"


# -- settings


def test_a_vaults_own_settings_cannot_switch_confirmation_off(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[agent]\nmodel = "m"\nconfirm_changes = true\n', encoding="utf-8")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vaultctx.toml").write_text("[agent]\nconfirm_changes = false\n", encoding="utf-8")
    assert load_agent_settings(vault, env={}, user_config=user).confirm_changes is True
    user.write_text('[agent]\nmodel = "m"\n', encoding="utf-8")
    (vault / "vaultctx.toml").write_text("[agent]\nconfirm_changes = true\n", encoding="utf-8")
    assert load_agent_settings(vault, env={}, user_config=user).confirm_changes is True
    env = {"VAULTCTX_AGENT_CONFIRM_CHANGES": "false"}
    assert load_agent_settings(None, env=env, user_config=user).confirm_changes is False


def test_the_template_folder_setting(tmp_path: Path) -> None:
    from vaultctx.config import ConfigError

    user = tmp_path / "user.toml"
    user.write_text('[agent]\ntemplate_folder = "Meta\\\\Templates/"\n', encoding="utf-8")
    assert load_agent_settings(None, env={}, user_config=user).template_folder == "Meta/Templates"
    assert load_agent_settings(None, env={}, user_config=tmp_path / "none").template_folder == (
        "Templates"
    )
    user.write_text('[agent]\ntemplate_folder = "../elsewhere"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="template_folder"):
        load_agent_settings(None, env={}, user_config=user)
