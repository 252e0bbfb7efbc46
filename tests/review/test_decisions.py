"""`vaultctx review decisions TOPIC`: search, one model call, validation, the merge into
{wiki}/Decisions.md, refusals; in process and end to end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from tests.ledger.conftest import tree
from tests.review.support import cli_toml, model_for
from vaultctx.api import Vault
from vaultctx.brain.settings import SecondBrainOffError
from vaultctx.errors import VaultctxError
from vaultctx.review.decisions import DecisionsFlow

ON = '[second_brain]\nenabled = true\nwiki_folder = "Wiki"\n'
NOTES = {
    "notes/db.md": "# Database\nWe decided to use SQLite for the index: one file, no server.\n",
    "notes/process.md": "# Process\nDatabase backups: we decided to run them weekly.\n",
    "notes/other.md": "# Gardening\nTomatoes.\n",
}
ANSWER = [
    {
        "decision": "Use SQLite for the index",
        "rationale": "one file, no server",
        "sources": ["notes/db.md"],
        "decidedOn": "2026-11-02",
        "owner": "",
        "due": "",
        "status": "done",
        "supersededBy": "",
    },
    {"decision": "Back up the database weekly", "sources": ["notes/process.md"], "due": "weekly"},
    {"decision": "Grow tomatoes", "sources": ["notes/elsewhere.md"]},  # not found by the search
    {"decision": "Read /etc/passwd", "sources": ["../../etc/passwd"]},
]


def make(tmp_path: Path, toml: str = ON) -> Vault:
    root = make_vault(tmp_path / "vault", {**NOTES, "vaultctx.toml": toml})
    handle = Vault(root, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


def test_propose_validates_and_apply_writes_the_ledger(fake: OpenAIFake, tmp_path: Path) -> None:
    vault = make(tmp_path)
    fake.queue(Answer(json.dumps(ANSWER)))
    flow = DecisionsFlow(model_for(fake, tmp_path), "database")
    proposals = asyncio.run(flow.propose(vault))
    assert [p.title for p in proposals] == [
        "Use SQLite for the index [done]",
        "Back up the database weekly [open]",
    ]
    assert "decided on: 2026-11-02" in proposals[0].detail
    assert any("2 entries of the model's answer dropped" in n for n in flow.notices)
    request = fake.last("/chat/completions").json
    assert request["max_completion_tokens"] == 2000
    assert "[notes/db.md]" in request["messages"][1]["content"]
    result = flow.apply(vault, proposals)
    assert result.applied == [1, 2] and result.paths == ["Wiki/Decisions.md"]
    text = (vault.path / "Wiki" / "Decisions.md").read_text(encoding="utf-8")
    assert text.startswith("# Decision ledger\n\n<!-- @generated:decisions -->\n## Open\n")
    assert "| Back up the database weekly |  |  |  |  | [[notes/process]] |" in text
    assert "## Done" in text and "| Use SQLite for the index | one file, no server |" in text


def test_a_second_run_merges_and_keeps_what_the_user_wrote(
    fake: OpenAIFake, tmp_path: Path
) -> None:
    vault = make(tmp_path)
    ledger = vault.path / "Wiki" / "Decisions.md"
    ledger.parent.mkdir()
    ledger.write_text(
        "# Decision ledger\n\nMy own intro.\n\n<!-- @generated:decisions -->\n## Done\n\n"
        "| decision | rationale | owner | due | superseded-by | sources |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| Back up the database weekly | my reason | Ann |  |  | [[notes/process]] |\n"
        "| half a row |\n<!-- @end:decisions -->\n\nMy notes after.\n",
        encoding="utf-8",
    )
    again = [{**ANSWER[1], "rationale": "model", "owner": "Bot", "status": "open"}]
    fake.queue(Answer(json.dumps(again)))
    flow = DecisionsFlow(model_for(fake, tmp_path), "database")
    flow.apply(vault, asyncio.run(flow.propose(vault)))
    text = ledger.read_text(encoding="utf-8")
    assert text.startswith("# Decision ledger\n\nMy own intro.\n\n")
    assert text.endswith("<!-- @end:decisions -->\n\nMy notes after.\n")
    assert "| Back up the database weekly | my reason | Ann |" in text  # user's values, done
    assert "## Open" not in text
    assert "## Unparsed rows\n\n| half a row |" in text


def test_a_source_gone_before_apply_is_skipped(fake: OpenAIFake, tmp_path: Path) -> None:
    vault = make(tmp_path)
    fake.queue(Answer(json.dumps(ANSWER)))
    flow = DecisionsFlow(model_for(fake, tmp_path), "database")
    proposals = asyncio.run(flow.propose(vault))
    (vault.path / "notes" / "process.md").unlink()
    result = flow.apply(vault, proposals)
    assert result.applied == [1]
    assert result.skipped == ["2: none of its sources exists any more"]


def test_refused_while_second_brain_is_off(fake: OpenAIFake, tmp_path: Path) -> None:
    vault = make(tmp_path, toml="")
    with pytest.raises(SecondBrainOffError):
        asyncio.run(DecisionsFlow(model_for(fake, tmp_path), "database").propose(vault))
    assert fake.requests_to("/chat/completions") == []


def test_a_wiki_folder_that_is_a_file_is_a_clear_error(fake: OpenAIFake, tmp_path: Path) -> None:
    vault = make(tmp_path)
    (vault.path / "Wiki").write_text("a file\n", encoding="utf-8")
    fake.queue(Answer(json.dumps(ANSWER)))
    flow = DecisionsFlow(model_for(fake, tmp_path), "database")
    proposals = asyncio.run(flow.propose(vault))
    with pytest.raises(VaultctxError, match="'Wiki' is a file; nothing was written"):
        flow.apply(vault, proposals)
    assert (vault.path / "Wiki").read_text(encoding="utf-8") == "a file\n"


def test_an_unclosed_marker_writes_nothing(fake: OpenAIFake, tmp_path: Path) -> None:
    vault = make(tmp_path)
    ledger = vault.path / "Wiki" / "Decisions.md"
    ledger.parent.mkdir()
    ledger.write_text("# Decision ledger\n<!-- @generated:decisions -->\nmine\n", encoding="utf-8")
    fake.queue(Answer(json.dumps(ANSWER)))
    flow = DecisionsFlow(model_for(fake, tmp_path), "database")
    proposals = asyncio.run(flow.propose(vault))
    with pytest.raises(VaultctxError, match="without its"):
        flow.apply(vault, proposals)
    assert ledger.read_text(encoding="utf-8").endswith("mine\n")


def test_decisions_end_to_end(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault", {**NOTES, "vaultctx.toml": ON})
    db = tmp_path / "index.db"
    with Vault(root, db=db) as handle:
        handle.index(fast=True)
    indexed = Indexed(root, db)
    before = tree(root)
    with OpenAIFake() as fake:
        fake.queue(Answer(json.dumps(ANSWER)))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY)
        listed = vaultctx(indexed, env, "review", "decisions", "database", "--json")
        assert listed.returncode == 0, listed.stderr
        assert [p["decision"] for p in json.loads(listed.stdout)["proposals"]] == [
            "Use SQLite for the index",
            "Back up the database weekly",
        ]
        applied = vaultctx(indexed, env, "review", "decisions", "database", "--accept", "2")
    assert applied.returncode == 0, applied.stderr
    text = (root / "Wiki" / "Decisions.md").read_text(encoding="utf-8")
    assert "Back up the database weekly" in text and "SQLite" not in text
    assert vaultctx(indexed, env, "undo").returncode == 0
    assert tree(root) == before


def test_decisions_cli_refuses_while_off(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault", NOTES)
    indexed = Indexed(root, tmp_path / "index.db")
    env = agent_env(tmp_path, "")
    result = vaultctx(indexed, env, "review", "decisions", "database")
    assert result.returncode == 2
    assert "Second Brain is turned off" in result.stderr and "Traceback" not in result.stderr
