"""Random sequences of the agent's tool calls never show an ignored note's text.

A hypothesis state machine drives the real tools (through the whole argument contract, with
confirmation off: nothing stands between a call and the vault) over a real, indexed vault whose
ignored notes hold canaries. Each call's arguments are drawn from a pool built for the attack:
the control files, the ignored notes and folders, their parents, spellings that normalise to
them, places a move could carry them to, and ordinary notes. After every step: no canary in any
result, and every control file and ignored note is exactly where and what it was.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tests.ledger.conftest import isolate_data_dir
from tests.security.ignored_vault import (
    IGNORE_RULES,
    IGNORED_FILES,
    VAULT_SETTINGS,
    ignored_vault,
    leaked,
)
from vaultctx.agent.tool_contract import ToolContext, run_tool
from vaultctx.agent.tool_list import TOOLS_BY_NAME
from vaultctx.errors import VaultctxError

PATHS = st.sampled_from(
    [
        ".indexignore",
        "vaultctx.toml",
        "VAULTCTX.toml",
        ".obsidian",
        ".trash",
        "journal",
        "journal/",
        "journal/today.md",
        "journal/private",
        "journal/private/Dream.md",
        "journal/private/Dream",
        "Dream",
        "journal\\private\\Dream.md",
        "./journal//private/Dream.md",
        "journal/private/../private/Dream.md",
        "diary",
        "diary/Entry.md",
        "Entry",
        "%64iary/Entry.md",
        "notes",
        "notes/Plan.md",
        "notes/plan.secret.md",
        "notes/Later.md",
        "Later",
        "notes/Later",
        "notes/Later.md#Later",
        "Templates",
        "Templates/Daily.md",
        "archive",
        "archive/journal",
        "archive/private",
        "open",
        "open/Entry.md",
        "open/Dream.md",
        "moved.md",
        "new/Note.md",
        ".hidden/Note.md",
        "private",
        "private/Dream.md",
    ]
)
FOLDERS = st.sampled_from(
    ["", "journal", "journal/private", "diary", "notes", "archive", "open", ".obsidian", ".trash"]
)
TEXTS = st.sampled_from(
    [
        "# New\n\nA lighthouse note.\n",
        "See [[diary/Entry]] and ![[Dream]].\n",
        "journal/private/\n",
        "!diary/\n",
        "",
    ]
)
QUERIES = st.sampled_from(
    ["lighthouse", "dream", "diary keeper", "ideas for later", "secret code", "canary", "plan"]
)
NAMES = st.sampled_from(["Daily", "Entry", "Dream", "Later", "New"])

# Filled by the test that runs the machine, for its report.
RUN: dict[str, int] = {"examples": 0, "steps": 0, "refused": 0}


class IgnoredStaysPrivate(RuleBasedStateMachine):
    base: ClassVar[Path]

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(dir=self.base))
        self.vault = ignored_vault(self.folder / "vault", self.folder / "index.db")
        root = self.vault.path
        self.protected = {
            ".indexignore": (root / ".indexignore").read_bytes(),
            "vaultctx.toml": (root / "vaultctx.toml").read_bytes(),
            **{path: (root / path).read_bytes() for path in IGNORED_FILES},
        }
        assert (root / "vaultctx.toml").read_text(encoding="utf-8") == VAULT_SETTINGS
        assert (root / ".indexignore").read_text(encoding="utf-8").startswith(IGNORE_RULES)
        RUN["examples"] += 1

    def teardown(self) -> None:
        self.vault.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _call(self, tool: str, args: dict[str, Any], **context: Any) -> None:
        RUN["steps"] += 1
        spec = TOOLS_BY_NAME[tool]
        context.setdefault("open_uri", lambda uri: True)
        result = asyncio.run(run_tool(spec, args, ToolContext(self.vault, **context)))
        if result.startswith("Tool execution error") and "refused" in result:
            RUN["refused"] += 1
        assert leaked(result) == [], (tool, args, result)

    def _read(self, what: str, action: Any) -> None:
        RUN["steps"] += 1
        try:
            shown = json.dumps(action(), default=str)
        except VaultctxError as exc:
            shown = f"{exc.message} {exc.suggestion}"
        assert leaked(shown) == [], (what, shown)

    @rule(path=PATHS)
    def read_note(self, path: str) -> None:
        self._call("read_note", {"path": path})

    @rule(path=PATHS)
    def get_active_note(self, path: str) -> None:
        self._call("get_active_note", {}, active_note=path)

    @rule(path=PATHS)
    def open_note(self, path: str) -> None:
        self._call("open_note", {"path": path})

    @rule(query=QUERIES, folder=FOLDERS)
    def search(self, query: str, folder: str) -> None:
        args: dict[str, Any] = {"query": query, "limit": 20}
        if folder:
            args["folder"] = folder
        self._call("search_vault", args)

    @rule(folder=FOLDERS)
    def list_files(self, folder: str) -> None:
        self._call("list_files", {"folder": folder})

    @rule(path=PATHS, content=TEXTS)
    def create_note(self, path: str, content: str) -> None:
        self._call("create_note", {"path": path, "content": content})

    @rule(path=PATHS, content=TEXTS)
    def replace_note(self, path: str, content: str) -> None:
        self._call("edit_note", {"path": path, "content": content})

    @rule(path=PATHS, find=st.sampled_from(["lighthouse", "Dear", "#"]), replace=TEXTS)
    def edit_note(self, path: str, find: str, replace: str) -> None:
        self._call("edit_note", {"path": path, "find": find, "replace": replace})

    @rule(path=PATHS, content=TEXTS)
    def append(self, path: str, content: str) -> None:
        self._call("append_to_note", {"path": path, "content": content})

    @rule(source=PATHS, destination=PATHS)
    def move(self, source: str, destination: str) -> None:
        self._call("move_file", {"source_path": source, "destination_path": destination})

    @rule(path=PATHS)
    def delete(self, path: str) -> None:
        self._call("delete_file", {"path": path})

    @rule()
    def list_templates(self) -> None:
        self._call("list_templates", {})

    @rule(name=NAMES, content=TEXTS)
    def save_template(self, name: str, content: str) -> None:
        self._call("save_template", {"name": name, "content": content})

    @rule(name=NAMES, output=PATHS)
    def apply_template(self, name: str, output: str) -> None:
        self._call("apply_template", {"template_name": name, "output_path": output})

    @rule(path=PATHS)
    def links(self, path: str) -> None:
        self._read("links", lambda: self.vault.links(path).as_dict())

    @rule(folder=FOLDERS)
    def list_notes(self, folder: str) -> None:
        from vaultctx.search.filters import Filters

        filters = Filters(folder=folder) if folder else Filters()
        self._read("list_notes", lambda: self.vault.list_notes(filters, limit=100).as_dict())

    @rule(query=QUERIES)
    def context(self, query: str) -> None:
        self._read("context", lambda: self.vault.context(query).markdown)

    @invariant()
    def control_files_and_ignored_notes_are_untouched(self) -> None:
        root = self.vault.path
        for path, data in self.protected.items():
            assert (root / path).read_bytes() == data, path


# 30 random sequences in a developer's run, the full 80 in the slow step (`pytest -m slow`,
# which CI runs): the same machine and rules, fewer draws.
@pytest.mark.parametrize("examples", [30, pytest.param(80, marks=pytest.mark.slow)])
def test_no_sequence_of_tool_calls_shows_an_ignored_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, examples: int
) -> None:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    IgnoredStaysPrivate.base = tmp_path
    IgnoredStaysPrivate.TestCase.settings = settings(
        max_examples=examples,
        stateful_step_count=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    started = time.perf_counter()
    IgnoredStaysPrivate.TestCase().runTest()
    took = time.perf_counter() - started
    print(
        f"ignored-stays-private machine: {RUN['examples']} examples, {RUN['steps']} steps "
        f"({RUN['refused']} refused), {took:.1f} s"
    )
    assert RUN["steps"] > RUN["examples"]
