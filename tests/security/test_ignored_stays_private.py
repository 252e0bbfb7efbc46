"""A model cannot un-ignore private notes, nor read them (issue 22, part 2).

The attack: a prompt-injected note made the model trash ``.indexignore``, then read the diary it
hid, in the same turn; or move ``journal/`` so ``journal/private/`` lands where no rule matches.
Every writing tool (agent and MCP) refuses control files (dotfiles, dot-folders,
``vaultctx.toml``), ignored paths, and a folder move or delete that would carry an ignored path
along or land something where the rules ignore it, saying why; every read drops what the rules
of the moment ignore, even when the index still holds it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types import TextContent

from mcp import Client
from tests.agent.cli_support import KEY
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.tool_support import call
from tests.ledger.conftest import isolate_data_dir, tree
from tests.mcp.conftest import tool_error
from tests.security.ignored_vault import CANARIES, DIARY, LATER, ignored_vault, leaked
from vaultctx.agent.backends import Backend
from vaultctx.agent.confirm import ConfirmRequest, Decision
from vaultctx.agent.llm_backends.openai import openai_client
from vaultctx.agent.session import ChatSession
from vaultctx.agent.settings import AgentSettings
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server
from vaultctx.notes import NoteNotFoundError
from vaultctx.search.graph import UnknownNoteError
from vaultctx.vault.paths import UnsafePathError

CONTROL = "is a control file"
IGNORED = "is excluded by the vault's ignore rules"
HOLDS_IGNORED = "holds files or folders the vault's ignore rules exclude"
BECOMES_IGNORED = "would put files where the vault's ignore rules exclude them"
HOLDS_CONTROL = "holds a control file"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    handle = ignored_vault(tmp_path / "vault", tmp_path / "index.db")
    (handle.path / "public").mkdir()
    (handle.path / "public" / "Open.md").write_text("# Open\n", encoding="utf-8")
    (handle.path / "settings").mkdir()
    (handle.path / "settings" / ".hidden.md").write_text("# Hidden\n", encoding="utf-8")
    with (handle.path / ".indexignore").open("a", encoding="utf-8") as rules:
        rules.write("archive/**/*.md\n")
    return handle


# (tool, arguments, why it is refused): each refused by the agent's tool and by MCP's.
REFUSALS: list[tuple[str, dict[str, str], str]] = [
    ("delete_file", {"path": ".indexignore"}, CONTROL),
    ("delete_file", {"path": "vaultctx.toml"}, CONTROL),
    ("delete_file", {"path": "VaultCtx.TOML"}, CONTROL),
    ("move_file", {"source_path": ".indexignore", "destination_path": "notes/rules.md"}, CONTROL),
    ("move_file", {"source_path": "vaultctx.toml", "destination_path": "v.md"}, CONTROL),
    ("move_file", {"source_path": "notes/Plan.md", "destination_path": ".indexignore"}, CONTROL),
    ("move_file", {"source_path": "notes/Plan.md", "destination_path": ".notes/P.md"}, CONTROL),
    ("create_note", {"path": ".hidden/x.md", "content": "x"}, CONTROL),
    ("create_note", {"path": "notes/.draft.md", "content": "x"}, CONTROL),
    ("delete_file", {"path": "journal"}, HOLDS_IGNORED),
    ("move_file", {"source_path": "journal", "destination_path": "old-journal"}, HOLDS_IGNORED),
    ("move_file", {"source_path": "notes", "destination_path": "misc"}, HOLDS_IGNORED),
    ("delete_file", {"path": "notes"}, HOLDS_IGNORED),
    ("delete_file", {"path": "settings"}, HOLDS_CONTROL),
    ("move_file", {"source_path": "settings", "destination_path": "prefs"}, HOLDS_CONTROL),
    ("move_file", {"source_path": "public", "destination_path": "archive/public"}, BECOMES_IGNORED),
    ("delete_file", {"path": "diary"}, IGNORED),
    ("delete_file", {"path": "diary/Entry.md"}, IGNORED),
    ("delete_file", {"path": "journal/private"}, IGNORED),
    ("move_file", {"source_path": "diary", "destination_path": "open-diary"}, IGNORED),
    ("move_file", {"source_path": "diary/Entry.md", "destination_path": "Entry.md"}, IGNORED),
    ("move_file", {"source_path": "notes/Plan.md", "destination_path": "diary/P.md"}, IGNORED),
    ("move_file", {"source_path": "notes/Plan.md", "destination_path": "P.secret.md"}, IGNORED),
    ("move_file", {"source_path": "notes/Later.md", "destination_path": "Now.md"}, IGNORED),
    ("edit_note", {"path": "diary/Entry.md", "content": "gone"}, IGNORED),
    ("append_to_note", {"path": "notes/Later.md", "content": "more"}, IGNORED),
    ("create_note", {"path": "journal/private/New.md", "content": "x"}, IGNORED),
]
MCP_TOOLS = {
    "delete_file": "obsidian_delete",
    "move_file": "obsidian_move",
    "create_note": "obsidian_create_note",
    "edit_note": "obsidian_edit_note",
    "append_to_note": "obsidian_append_to_note",
}


def _label(refusal: tuple[str, dict[str, str], str]) -> str:
    tool, args, _ = refusal
    return f"{tool}-{'-'.join(args.values())[:40]}"


@pytest.mark.parametrize("refusal", REFUSALS, ids=[_label(r) for r in REFUSALS])
def test_the_agents_tools_refuse_and_say_why(
    vault: Vault, refusal: tuple[str, dict[str, str], str]
) -> None:
    tool, args, why = refusal
    before = tree(vault.path)
    result = call(vault, tool, args)
    assert result.startswith(f"Tool execution error: {tool}: path refused: "), result
    assert why in result and "nothing was changed" in result
    assert tree(vault.path) == before and vault.ledger() == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_tools_refuse_and_say_why(vault: Vault) -> None:
    before = tree(vault.path)
    async with Client(build_server(vault, allow_writes=True), mode="legacy") as client:
        for tool, args, why in REFUSALS:
            mcp_args = dict(args)
            if tool == "edit_note":
                mcp_args = {"path": args["path"], "content": args["content"]}
            result = await client.call_tool(MCP_TOOLS[tool], mcp_args)
            error = tool_error(result)
            assert error["error"].startswith("path refused: "), (tool, args, error)
            assert why in error["error"], (tool, args, error)
    assert tree(vault.path) == before and vault.ledger() == []


@pytest.mark.anyio
async def test_mcp_reads_never_show_an_ignored_note(vault: Vault) -> None:
    async with Client(build_server(vault), mode="legacy") as client:
        for path in ("diary/Entry.md", "notes/Later.md", "journal/private/Dream.md"):
            result = await client.call_tool("obsidian_read_note", {"file_path": path})
            assert "excluded from the index" in tool_error(result)["error"]
        texts = []
        reads: list[tuple[str, dict[str, Any]]] = [
            ("obsidian_search", {"query": "lighthouse", "limit": 20, "mode": "bm25"}),
            ("obsidian_search", {"query": "lighthouse ideas for later", "limit": 20}),
            ("obsidian_list_notes", {"limit": 50}),
            ("obsidian_get_context", {"topic": "lighthouse"}),
        ]
        for tool, args in reads:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result
            [block] = result.content
            assert isinstance(block, TextContent)
            texts.append(block.text)
    shown = "\n".join(texts)
    assert leaked(shown) == [] and "notes/Later.md" not in shown
    assert "notes/Plan.md" in shown  # the search did find the lighthouse notes


def test_a_note_indexed_before_it_was_ignored_is_not_returned(vault: Vault) -> None:
    """``notes/Later.md`` is in the index (indexed before its rule was added): search, context,
    listing, links and backlinks leave it out, and it cannot be read."""
    found = vault.search("lighthouse ideas for later", limit=20)
    assert found.results and all(r.file_path != "notes/Later.md" for r in found.results)
    assert LATER not in json.dumps(found.as_dict())
    assert LATER not in vault.context("lighthouse ideas for later").markdown
    listed = vault.list_notes(limit=50)
    assert "notes/Later.md" not in [note.path for note in listed.notes]
    assert listed.total == len(listed.notes)
    links = vault.links("notes/Plan.md")
    assert links.backlinks and all(
        "notes/Later.md" not in (link.source, link.resolved)
        for link in [*links.outlinks, *links.backlinks]
    )
    with pytest.raises(UnknownNoteError) as refused:
        vault.links("notes/Later.md")
    assert "ignore rules" in refused.value.suggestion
    with pytest.raises(UnsafePathError, match="excluded from the index"):
        vault.read_note("notes/Later.md")
    assert all(link.source != "notes/Later.md" for link in vault.broken_links())


def test_the_claude_code_hook_leaves_a_note_indexed_before_it_was_ignored_out(
    vault: Vault,
) -> None:
    """The hook searches the index itself (keywords only, no model to load on its clock)."""
    from vaultctx.hooks.claude import search_in_process

    prompt = "What are my lighthouse ideas for later? Check the lighthouse guide plan."
    excerpts = search_in_process(vault.config, prompt)
    assert excerpts and all(not e.citation.startswith("notes/Later.md") for e in excerpts)
    assert leaked(json.dumps([[e.citation, e.text] for e in excerpts])) == []


def test_the_reported_attack_leaks_nothing(vault: Vault) -> None:
    """The issue's sequence, through the agent's tools: trash the rules, read the diary, move its
    parent and read it at the new place, search for it. Nothing moves, nothing leaks."""
    results = [
        call(vault, "delete_file", {"path": ".indexignore"}),
        call(vault, "read_note", {"path": "diary/Entry.md"}),
        call(vault, "move_file", {"source_path": "journal", "destination_path": "j"}),
        call(vault, "read_note", {"path": "j/private/Dream.md"}),
        call(vault, "read_note", {"path": "journal/private/Dream.md"}),
        call(vault, "search_vault", {"query": "lighthouse diary dream later", "limit": 20}),
        call(vault, "list_files", {"folder": "diary"}),
        call(vault, "get_active_note", {}, active_note="diary/Entry.md"),
    ]
    assert leaked("\n".join(results)) == []
    assert (vault.path / ".indexignore").is_file() and (vault.path / "diary/Entry.md").is_file()
    assert DIARY in (vault.path / "diary/Entry.md").read_text(encoding="utf-8")


def test_canaries_are_really_in_the_vault(vault: Vault) -> None:
    """The invariant above would hold trivially if the canaries were not there to find."""
    text = "".join(
        path.read_text(encoding="utf-8") for path in vault.path.rglob("*.md") if path.is_file()
    )
    assert all(canary in text for canary in CANARIES)


# The attack as a model's turns, two calls a round, each refusal followed by a call that
# works (so the loop stops neither at three failures nor at ten rounds), answered by the OpenAI
# wire fake: every request the agent sends (question, retrieved passages, tool results) is
# recorded as the provider saw it.
ATTACK = [
    ToolCall("delete_file", {"path": ".indexignore"}),
    ToolCall("list_files", {}),
    ToolCall("read_note", {"path": "diary/Entry.md"}),
    ToolCall("read_note", {"path": "notes/Plan.md"}),
    ToolCall("move_file", {"source_path": "journal", "destination_path": "j"}),
    ToolCall("search_vault", {"query": "lighthouse dream diary", "limit": 20}),
    ToolCall("read_note", {"path": "j/private/Dream.md"}),
    ToolCall("read_note", {"path": "notes/Plan.md"}),
    ToolCall("edit_note", {"path": "vaultctx.toml", "content": "[agent]\n"}),
    ToolCall("list_files", {"folder": "notes"}),
    ToolCall("read_note", {"path": "notes/Later.md"}),
    ToolCall("search_vault", {"query": "lighthouse ideas for later canary", "limit": 20}),
    ToolCall("get_active_note", {}),
    ToolCall("list_files", {"folder": "journal"}),
]


class Always:
    """The user at the terminal, saying "always" to the first change asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, request: ConfirmRequest) -> Decision:
        self.asked.append(request.tool)
        return "always"


@pytest.mark.parametrize("confirm_changes", [False, True], ids=["confirm-off", "confirm-on"])
def test_no_request_to_the_provider_carries_an_ignored_note(
    vault: Vault, confirm_changes: bool
) -> None:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    before = tree(vault.path)
    always = Always()
    with OpenAIFake() as fake:
        rounds = [Answer(tool_calls=ATTACK[at : at + 2]) for at in range(0, len(ATTACK), 2)]
        fake.queue(*rounds, Answer("Nothing to report."))
        url = f"{fake.base_url}/v1"
        client = openai_client(url, KEY, 60.0)
        model = OpenAIChatModel("gpt-5.2", provider=OpenAIProvider(openai_client=client))
        settings = AgentSettings(
            backend="openai", model="gpt-5.2", translate=False, confirm_changes=confirm_changes
        )
        session = ChatSession(
            vault, settings, Backend("openai", "gpt-5.2", url, model), confirm=always
        )
        session.active_note = "diary/Entry.md"
        turn = asyncio.run(session.ask("lighthouse ideas for later", lambda _: None))
        bodies = [request.body for request in fake.requests_to("/chat/completions")]
    sent = "\n".join(body.decode("utf-8", "replace") for body in bodies)
    assert len(bodies) == len(ATTACK) // 2 + 1 and turn.answer == "Nothing to report."
    assert leaked(sent) == []
    assert "notes/Plan.md" in sent  # retrieval did send passages: the lighthouse notes
    assert sent.count("path refused") >= 3 and "excluded from the index" in sent
    assert tree(vault.path) == before and vault.ledger() == []
    assert always.asked == (["delete_file"] if confirm_changes else [])


def test_architect_and_the_wiki_catalog_leave_ignored_files_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Second Brain reads files itself: architect's code scan (names and entry-point heads
    go to the model) and the wiki catalogue (names written into index.md) skip ignored ones."""
    from tests.brain.think_support import chat_bodies, fake_model, run, turn_on
    from vaultctx.brain.architect import architect
    from vaultctx.brain.catalog import update_index
    from vaultctx.ledger.context import ChangeContext

    isolate_data_dir(tmp_path / "data", monkeypatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "v"
    for path, text in {
        "src/main.py": "print('hi')\n",
        "src/private/main.py": f"# {DIARY}\n",
        "wiki/Topic.md": "# Topic\n",
        "wiki/private/Hidden-DIARY.md": f"# {DIARY}\n",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (root / ".indexignore").write_text("src/private/\nwiki/private/\n", encoding="utf-8")
    turn_on(root, "wiki")
    vault = Vault(root, db=tmp_path / "v.db")
    change = ChangeContext("brain", source="cli")
    with OpenAIFake() as fake:
        fake.queue(Answer("o"), Answer("m"), Answer("d"))
        run(architect(vault, fake_model(fake), "src", change=change))
        sent = json.dumps(chat_bodies(fake))
    assert "src/main.py" in sent and DIARY not in sent and "private" not in sent
    update_index(vault, change=change)
    catalog = (root / "wiki" / "index.md").read_text(encoding="utf-8")
    assert "Topic" in catalog and "Hidden-DIARY" not in catalog


def test_second_brain_reports_leave_a_note_indexed_before_it_was_ignored_out(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.brain.think_support import turn_on
    from vaultctx.brain.reports import duplicates, gaps, link_suggestions

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    turn_on(vault.path)
    shown = json.dumps(
        [gaps(vault), link_suggestions(vault), duplicates(vault)], default=lambda o: vars(o)
    )
    assert "notes/Plan.md" in shown  # the reports do look at the notes
    assert "notes/Later.md" not in shown and leaked(shown) == []


def test_a_missing_note_is_never_answered_with_an_ignored_one(vault: Vault) -> None:
    """``read_note`` suggests indexed notes of the same name; not one ignored since."""
    with pytest.raises(NoteNotFoundError) as missing:
        vault.read_note("misc/Later.md")
    assert "notes/Later.md" not in f"{missing.value.message} {missing.value.suggestion}"
