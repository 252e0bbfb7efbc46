"""Approval flows take a model's answer (and a saved list on disk) as hostile: a folder outside
the vault, into .obsidian or the trash, or through a symbolic link is never proposed, and an
item naming one anyway (a tampered saved list) is refused at apply with nothing written."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from tests.review.support import fake_server, isolate, model_for
from vaultctx.api import Vault
from vaultctx.organize.para import ParaFlow
from vaultctx.proposals import Proposal
from vaultctx.review.decisions import DecisionsFlow
from vaultctx.review.inbox import InboxFlow

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")

NOTES = {
    "Inbox/a.md": "# A\n",
    "Projects/p.md": "# P\n",
    ".obsidian/plugins/x/data.md": "plugin\n",
    ".trash/old.md": "old\n",
    "vaultctx.toml": "[second_brain]\nenabled = true\n",
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate(tmp_path, monkeypatch)  # the ledger and saved lists stay in tmp


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    yield from fake_server()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.fixture
def vault(tmp_path: Path, outside: Path) -> Vault:
    root = make_vault(tmp_path / "vault", NOTES)
    (root / "Linked").symlink_to(outside, target_is_directory=True)
    handle = Vault(root, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


@pytest.mark.parametrize(
    "folder",
    [
        "../outside",
        str(Path("/tmp")),
        ".obsidian",
        ".obsidian/plugins",
        ".trash",
        "Linked",
        "Inbox",
        "Projects/../../outside",
        "C:\\Windows",
    ],
)
def test_inbox_never_proposes_a_folder_outside_the_vault_or_its_own_files(
    vault: Vault, fake: OpenAIFake, tmp_path: Path, outside: Path, folder: str
) -> None:
    fake.queue(Answer(json.dumps([{"path": "Inbox/a.md", "folder": folder, "tags": []}])))
    flow = InboxFlow(model_for(fake, tmp_path))
    assert asyncio.run(flow.propose(vault)) == []
    assert any("is not an existing folder" in notice for notice in flow.notices)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    "destination", ["Linked/a.md", ".obsidian/a.md", "../outside/a.md", ".trash/a.md"]
)
def test_inbox_apply_refuses_a_tampered_destination(
    vault: Vault, fake: OpenAIFake, tmp_path: Path, outside: Path, destination: str
) -> None:
    flow = InboxFlow(model_for(fake, tmp_path))
    proposal = Proposal(1, "t", "", {"path": "Inbox/a.md", "destination": destination, "tags": []})
    result = flow.apply(vault, [proposal])
    assert result.applied == [] and len(result.skipped) == 1
    assert (vault.path / "Inbox" / "a.md").read_text(encoding="utf-8") == "# A\n"
    assert list(outside.iterdir()) == []
    assert vault.ledger() == []


@pytest.mark.parametrize(
    "destination", ["Linked/a.md", "01. Projects/../../outside/a.md", ".obsidian/a.md"]
)
def test_para_apply_refuses_anything_but_a_para_folder(
    vault: Vault, fake: OpenAIFake, tmp_path: Path, outside: Path, destination: str
) -> None:
    flow = ParaFlow(model_for(fake, tmp_path))
    move = {"kind": "move", "source": "Inbox/a.md", "destination": destination}
    folders = {"kind": "folders", "folders": ["../outside/x", "Linked"]}
    result = flow.apply(vault, [Proposal(1, "t", "", move), Proposal(2, "f", "", folders)])
    assert result.applied == [] and len(result.skipped) == 2
    assert (vault.path / "Inbox" / "a.md").is_file()
    assert list(outside.iterdir()) == []


def test_para_does_not_move_into_a_para_folder_that_is_a_link(
    vault: Vault, fake: OpenAIFake, tmp_path: Path, outside: Path
) -> None:
    (vault.path / "01. Projects").symlink_to(outside, target_is_directory=True)
    flow = ParaFlow(model_for(fake, tmp_path))
    move = {"kind": "move", "source": "Inbox/a.md", "destination": "01. Projects/a.md"}
    result = flow.apply(vault, [Proposal(1, "t", "", move)])
    assert result.applied == [] and "link" in result.skipped[0]
    assert list(outside.iterdir()) == []


def test_decisions_never_take_a_source_outside_the_vault(
    vault: Vault, fake: OpenAIFake, tmp_path: Path, outside: Path
) -> None:
    (outside / "secret.md").write_text("# secret\n", encoding="utf-8")
    flow = DecisionsFlow(model_for(fake, tmp_path), "anything")
    tampered = {
        "decision": "Leak",
        "sources": ["../outside/secret.md", "Linked/secret.md", "/etc/passwd"],
    }
    result = flow.apply(vault, [Proposal(1, "t", "", tampered)])
    assert result.applied == [] and result.skipped == ["1: none of its sources exists any more"]
    assert not (vault.path / "Second Brain").exists()


def test_a_note_that_is_a_link_is_never_a_candidate(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    (vault.path / "Inbox" / "alias.md").symlink_to(vault.path / "Projects" / "p.md")
    fake.queue(Answer("projects"), Answer("projects"), Answer("[]"))
    para = ParaFlow(model_for(fake, tmp_path))
    sources = [p.data.get("source") for p in asyncio.run(para.propose(vault))]
    assert "Inbox/alias.md" not in sources and "Inbox/a.md" in sources
    asyncio.run(InboxFlow(model_for(fake, tmp_path)).propose(vault))
    prompt = fake.last("/chat/completions").json["messages"][1]["content"]
    assert "path: Inbox/a.md" in prompt and "alias.md" not in prompt
