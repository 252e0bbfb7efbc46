"""Every command that writes into the vault leaves a ledger record, and `vaultctx undo` reverts
it byte for byte (README, "Which commands write"; docs/changes.md).

``WRITING_COMMANDS`` (cli/writing_commands.py) is the list; the README names exactly those
commands (checked below, so the two cannot drift). Each command runs here as a real process on a
fresh copy of one indexed vault (signals, the Second Brain on, notes with links and duplicates),
models answered by the OpenAI wire fake; then `vaultctx undo` runs, and the vault must be what it
was before, every file and folder. The few commands whose set-up needs a long script (a model's
JSON plans, a browser, an MCP client) are checked the same way by the test named for them in
``CHECKED_IN``, which must exist and undo.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, agent_env, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.tool_support import snapshot
from tests.brain.conftest import BREAD, KUBE, LONG, ScriptedText
from tests.cli_in_process import run_vaultctx
from tests.conftest import REPO, make_vault
from tests.ledger.conftest import isolate_data_dir
from tests.local_web import local_web, page
from tests.signals.feed_fixtures import RSS
from tests.signals.support import GOOD_SIGNAL, OTHER_NOTE, PROJECT, WEAK_SIGNAL
from vaultctx.api import Vault
from vaultctx.brain.synthesis import synthesize_topic
from vaultctx.cli.writing_commands import WRITING_COMMANDS
from vaultctx.conversations import ConversationStore, Message
from vaultctx.ledger.context import ChangeContext

SECOND_BRAIN = "[second_brain]\nenabled = true\nlink_threshold = 0.95\nduplicate_threshold = 0.97\n"
NOTES = {
    "vaultctx.toml": SECOND_BRAIN,
    "01-projects/Billing service.md": PROJECT,
    "00-inbox/Stripe webhooks.md": GOOD_SIGNAL,
    "00-inbox/Banana bread.md": WEAK_SIGNAL,
    "00-inbox/Plain note.md": OTHER_NOTE,
    "Compost.md": "# Compost\n\nCompost needs greens and browns. Turn the pile weekly.\n",
    "Garden.md": "# Garden\n\nThe garden beds get compost from the pile every spring.\n",
    "A.md": "# A\n\n[[B]] [[Missing]] " + LONG,
    "B.md": "# B\n\nShort.",
    "O.md": KUBE,
    "K.md": " ".join([KUBE] * 3) + " [[A]]",
    "Bread.md": BREAD,
    "x/Plan.md": " ".join([KUBE] * 3),
    "y/Plan.md": " ".join([KUBE] * 3),
}
SYNTHESIS = "Second Brain/compost.md"
ARTICLE = (
    "<html><head><title>WAL notes</title></head><body><article><h1>WAL notes</h1>"
    + ("<p>Write-ahead logging lets readers go on while one writer writes.</p>" * 20)
    + "</article></body></html>"
)

# Checked by these tests, the same way: the command runs, then `vaultctx undo` restores the
# vault byte for byte.
CHECKED_IN = {
    "para": "tests/organize/test_para_cli.py::test_list_accept_links_and_undo",
    "review contradictions": "tests/brain/test_think_cli.py::"
    "test_review_contradictions_applies_accepted_items_and_undo_reverts_them",
    "review inbox": "tests/review/test_inbox.py::test_inbox_end_to_end",
    "review decisions": "tests/review/test_decisions.py::test_decisions_end_to_end",
    "ui": "tests/ui/test_ui_review_flows.py::test_triage_one_ticked_signal_then_undo_from_changes",
    "brain run": "tests/brain/test_upkeep_cli.py::"
    "test_brain_run_writes_the_five_steps_as_one_record_and_undo_takes_it_back",
    "brain dashboard": "tests/brain/test_upkeep_cli.py::"
    "test_dashboard_keeps_gone_items_inactive_and_writes_nothing_when_current",
    "conversations harvest": "tests/brain/test_harvest_cli.py::"
    "test_harvest_writes_one_note_with_its_front_matter_and_undo_removes_it",
    "hook capture": "tests/hooks/test_capture_hook.py::"
    "test_a_long_output_is_captured_scrubbed_once_only_where_turned_on",
}


@dataclass
class World:
    vault: Path
    db: Path
    root: Path
    fake: OpenAIFake
    env: dict[str, str]

    def cli(
        self, *args: str, stdin: str | None = None, db: bool = True
    ) -> subprocess.CompletedProcess[str]:
        words = [*args, "--vault", str(self.vault), *(["--db", str(self.db)] if db else [])]
        done = run_vaultctx(words, env=self.env, input=stdin)
        assert done.returncode == 0, f"{args}: {done.stderr}"
        assert "Traceback" not in done.stderr
        return done

    def ledger(self) -> list[dict[str, object]]:
        return json.loads(self.cli("ledger", "--json").stdout)  # type: ignore[no-any-return]

    def handle(self) -> Vault:
        return Vault(self.vault, db=self.db)


@pytest.fixture(scope="module")
def indexed_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One indexed vault, copied for each command (the index with it)."""
    root = tmp_path_factory.mktemp("world")
    vault = make_vault(root / "vault", NOTES)
    with Vault(vault, db=root / "index.db") as handle:
        handle.index(fast=True)
    return root


@pytest.fixture
def world(indexed_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    shutil.copytree(indexed_world / "vault", tmp_path / "vault")
    shutil.copy(indexed_world / "index.db", tmp_path / "index.db")
    isolate_data_dir(tmp_path / "data", monkeypatch)  # where set-ups through the API record
    with OpenAIFake() as fake:
        toml = "[agent]\n" + openai_toml(fake) + "translate = false\n"
        env = agent_env(tmp_path, toml, OPENAI_TEST=KEY)
        yield World(tmp_path / "vault", tmp_path / "index.db", tmp_path, fake, env)


def _synthesis_gone_stale(w: World, *, indexed: bool = True) -> None:
    """A synthesis note whose source then changed (``indexed``: the index knows it already);
    nothing is marked yet."""
    with w.handle() as handle:
        change = ChangeContext("set-up", source="cli")
        asyncio.run(synthesize_topic(handle, ScriptedText("Compost."), "compost", change=change))
        (w.vault / "Compost.md").write_text("# Compost\n\nNow with worms.\n", encoding="utf-8")
        if indexed:
            handle.index(fast=True)


def _saved_conversation(w: World) -> str:
    with ConversationStore.open(w.vault) as store:
        chat = store.new("Locks", "openai", "gpt-5.2")
        store.append(chat.id, [Message("user", "Why?"), Message("assistant", "WAL.")])
        return chat.id


def _watch(w: World) -> None:
    argv = [sys.executable, "-m", "vaultctx", "watch", "--json", "--no-quality"]
    argv += ["--vault", str(w.vault), "--db", str(w.db)]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=w.env
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if "Outdated synthesis" in (w.vault / SYNTHESIS).read_text(encoding="utf-8"):
                break
            time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _signals_fetch(w: World) -> None:
    """Feeds are the user's choice: named in their own settings file, not the vault's."""
    settings = w.root / "config" / "vaultctx" / "vaultctx.toml"
    with local_web({"/rss": page(RSS.decode(), "application/rss+xml")}) as web:
        feeds = f'[signals]\nfeeds = ["{web.url("/rss")}"]\n'
        settings.write_text(settings.read_text(encoding="utf-8") + feeds, encoding="utf-8")
        w.cli("signals", "fetch", "--allow-host", web.authority)


def _clip(w: World) -> None:
    with local_web({"/wal": page(ARTICLE)}) as web:
        w.cli("clip", web.url("/wal"), "--allow-host", web.authority, "--no-summary")


# Set-ups that run before the "before" snapshot (their own records are not the one undone).
SETUP: dict[str, Callable[[World], object]] = {
    "brain stale --mark": _synthesis_gone_stale,
    "index": _synthesis_gone_stale,
    "watch": lambda w: _synthesis_gone_stale(w, indexed=False),  # watch sees the change
    "conversations export": _saved_conversation,
    "template apply": lambda w: w.cli(
        "template", "save", "Meeting", "--from", "-", stdin="# {{title}}\n\nAgenda:\n"
    ),
    "review links": lambda w: w.cli("review", "links", "--json"),
    "review duplicates": lambda w: w.cli("review", "duplicates", "--json"),
    "review triage": lambda w: w.cli("review", "triage", "--json"),
}


def _ask(w: World) -> None:
    call = ToolCall("create_note", {"path": "00-inbox/Asked.md", "content": "# Asked\n"})
    w.fake.queue(Answer(tool_calls=[call]), Answer("Done."))
    w.cli("ask", "make a note", "--allow-changes")


def _chat(w: World) -> None:
    """Piped, so nobody can confirm: the user's own settings turn confirmation off."""
    settings = w.root / "config" / "vaultctx" / "vaultctx.toml"
    settings.write_text(settings.read_text() + "confirm_changes = false\n", encoding="utf-8")
    call = ToolCall("append_to_note", {"path": "B.md", "content": "Appended in chat."})
    w.fake.queue(Answer(tool_calls=[call]), Answer("Done."))
    w.cli("chat", stdin="append to B\n")


def _tags(w: World) -> None:
    w.fake.queue(Answer(["compost, garden, soil"]))
    w.cli("tags", "Garden.md", "--apply")


def _architect(w: World) -> None:
    w.fake.queue(
        Answer("It is a small vault."),
        Answer("- `x`: plans"),
        Answer("- Markdown notes"),
    )
    w.cli("brain", "architect")


def _serve(w: World) -> None:
    """An MCP client (the SDK's, over stdio) creates a note through ``serve --allow-writes``."""
    import anyio
    from mcp.client.stdio import StdioServerParameters

    from mcp import Client

    args = ["-m", "vaultctx", "serve", "--vault", str(w.vault), "--db", str(w.db)]
    params = StdioServerParameters(
        command=sys.executable, args=[*args, "--allow-writes"], env=w.env
    )

    async def session() -> None:
        async with Client(params, mode="legacy") as client:
            created = await client.call_tool(
                "obsidian_create_note", {"path": "ideas/From MCP.md", "content": "# MCP\n"}
            )
            assert not created.is_error

    anyio.run(session)


def _synthesize(w: World) -> None:
    w.fake.queue(Answer("Compost needs greens and browns.\nThe beds get it every spring."))
    w.cli("brain", "synthesize", "compost")


def _export(w: World) -> None:
    with ConversationStore.open(w.vault, create=False) as store:
        [chat] = store.list()
    out = str(w.vault / "Locks chat.md")
    w.cli("conversations", "export", chat.id, "--out", out, db=False)


SCENARIOS: dict[str, Callable[[World], object]] = {
    "capture": lambda w: w.cli("capture", "Quokkas smile at dawn."),
    "todo": lambda w: w.cli("todo", "--date", "2026-01-15"),
    "triage": lambda w: w.cli("triage", "--offline"),
    "signals fetch": _signals_fetch,
    "clip": _clip,
    "tags --apply": _tags,
    "template save": lambda w: w.cli(
        "template", "save", "Meeting", "--from", "-", stdin="# {{title}}\n\nAgenda:\n"
    ),
    "template apply": lambda w: w.cli(
        "template", "apply", "Meeting", "Meetings/Monday.md", "--var", "title=Monday"
    ),
    "review links": lambda w: w.cli("review", "links", "--accept", "all"),
    "review duplicates": lambda w: w.cli("review", "duplicates", "--accept", "all"),
    "review triage": lambda w: w.cli("review", "triage", "--accept", "all"),
    "brain synthesize": _synthesize,
    "brain wiki-note": lambda w: w.cli(
        "brain", "wiki-note", "Compost ratios", "--body", "Three browns to one green."
    ),
    "brain update-index": lambda w: w.cli("brain", "update-index"),
    "brain architect": _architect,
    "brain stale --mark": lambda w: w.cli("brain", "stale", "--mark"),
    "brain gaps --write": lambda w: w.cli("brain", "gaps", "--write"),
    "brain links --write": lambda w: w.cli("brain", "links", "--write"),
    "brain duplicates --write": lambda w: w.cli("brain", "duplicates", "--write"),
    "brain review-queue --write": lambda w: w.cli("brain", "review-queue", "--write"),
    "index": lambda w: w.cli("index"),
    "watch": _watch,
    "serve": _serve,
    "ask": _ask,
    "chat": _chat,
    "conversations export": _export,
}


@pytest.mark.parametrize("command", list(SCENARIOS))
def test_the_command_is_recorded_and_undo_restores_the_vault(world: World, command: str) -> None:
    if command in SETUP:
        SETUP[command](world)
    before = snapshot(world.vault)
    records = len(world.ledger())
    SCENARIOS[command](world)
    assert snapshot(world.vault) != before, f"{command} wrote nothing"
    assert len(world.ledger()) == records + 1, f"{command}: not one new ledger record"
    world.cli("undo")
    assert snapshot(world.vault) == before


def test_every_writing_command_is_checked() -> None:
    assert set(SCENARIOS) | set(CHECKED_IN) == set(WRITING_COMMANDS)
    assert not set(SCENARIOS) & set(CHECKED_IN)
    for command, where in CHECKED_IN.items():
        file, name = where.split("::")
        text = (REPO / file).read_text(encoding="utf-8")
        body = text.split(f"def {name}", 1)[1].split("\ndef ", 1)[0] if name else ""
        undoes = "undo" in body.lower() and "== before" in body
        assert undoes, f"{command}: {where} does not undo and compare"


def test_the_readme_lists_exactly_the_commands_that_write() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Which commands write", 1)[1].split("\n#", 1)[0]
    listed = re.findall(r"^- `vaultctx ([^`]+)`", section, flags=re.MULTILINE)
    assert listed == list(WRITING_COMMANDS)


# Every module that writes files, and where: only vault/writes.py (the primitives) and ledger/
# (which calls them) touch the vault. A new module writing files fails the test below until it
# is added here with where it writes; one writing into the vault must go through the ledger.
FILE_WRITERS = {
    "vault/writes.py": "the vault: the primitives the ledger's change operations use",
    "vault/durable.py": "a staged, fsynced file put in place: for vault/writes.py, ledger/store.py "
    "and atomic_write.py, wherever they write",
    "ledger/changes.py": "the vault, each change recorded first",
    "ledger/store.py": "the ledger's folder in the user data dir",
    "ledger/undo.py": "the vault: a record's earlier state put back",
    "atomic_write.py": "the primitive for the files below that are not in the vault",
    "agent/skills.py": "the user's custom skill files and which are on, user config dir",
    "brain/review_state.py": "the review queue's history, user data dir",
    "brain/reported_opens.py": "the notes the Obsidian plugin reports opened, user state dir",
    "review/brain_scheduler.py": "when the Second Brain's upkeep last ran, user state dir",
    "cli/conversation_cmds.py": "export --out outside the vault (inside: through the ledger)",
    "context_blocks.py": "the context block cache, user data dir",
    "conversations/location.py": "the conversation store's folder, user data dir",
    "loopback/server_link.py": "the running server's address and token, user state dir",
    "engine/server.py": "the engine's socket and lock, the user's 0700 runtime dir",
    "engine/plugin_socket.py": "the Obsidian plugin's socket, the user's 0700 runtime dir",
    "engine/logs.py": "the engine's rotated log and pid file (0600), the user's 0700 runtime dir",
    "engine_link/client.py": "the engine's start lock and log, the user's 0700 runtime dir",
    "engine_link/runtime_dir.py": "the user's 0700 runtime dir itself",
    "hooks/session.py": "the hooks' session memory, user data dir",
    "hooks/capture_hook.py": "the projects the capture hook is on for, user state dir",
    "index/db.py": "the index database, outside the vault",
    "index/indexer.py": "the index database's side files",
    "index/ownership.py": "the index database's owner mark",
    "index/run_lock.py": "the indexer's lock file beside the database",
    "index/set_aside.py": "a damaged index set aside beside it",
    "loopback/token.py": "the HTTP server's token, user data dir",
    "private_log.py": "logs, user state dir",
    "review/saved_plans.py": "the review lists last shown, user data dir",
    "signals/feed_state.py": "what each feed gave before, user data dir",
    "tool_settings.py": "AI tools' settings files: Claude Code's hooks, MCP clients' servers",
    "ui/uploads.py": "a private temporary folder for uploads",
    "ui/user_settings.py": "the user's own vaultctx.toml (the Obsidian plugin's settings tab)",
    "mcp/relay.py": "nothing: its own stdout, duplicated and opened for bytes (os.fdopen 'wb')",
    "obsidian/install.py": "the plugin's own files in <vault>/.obsidian/plugins/vaultctx, "
    "links refused (not notes: Obsidian's configuration folder)",
}
_WRITES = re.compile(
    r"""\.write_text\(|\.write_bytes\(|\bmkdir\(|makedirs\(|os\.replace\(|os\.rename\(|"""
    r"""shutil\.(?:move|copy\w*|rmtree)\(|\bunlink\(|os\.remove\(|rmdir\(|os\.link\(|"""
    r"""symlink_to\(|os\.symlink\(|write_atomically\(|O_CREAT|O_WRONLY|"""
    r"""open\([^\n]*["'](?:w|a|x|wb|ab|xb|w\+|a\+|r\+)["']"""
)


def test_only_the_ledger_writes_into_the_vault() -> None:
    source = REPO / "src" / "vaultctx"
    writers = {
        file.relative_to(source).as_posix()
        for file in source.rglob("*.py")
        if _WRITES.search(file.read_text(encoding="utf-8"))
    }
    assert writers == set(FILE_WRITERS)
