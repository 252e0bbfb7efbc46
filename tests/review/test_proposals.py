"""The approval framework: ``parse_accept``, and ``run_review`` listing, saving, accepting and
reporting, with a flow that writes real notes through one ``change_batch``."""

from __future__ import annotations

import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.cli.review_cmds import run_review
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.proposals import Proposal, ReviewResult, parse_accept
from vaultctx.review.saved_plans import MAX_AGE_SECONDS, load_plan, plan_file, save_plan


@pytest.mark.parametrize(
    ("text", "count", "chosen"),
    [
        ("1,3", 4, [1, 3]),
        ("2-4", 4, [2, 3, 4]),
        ("all", 3, [1, 2, 3]),
        (" ALL ", 2, [1, 2]),
        (" 3 , 1 ", 3, [3, 1]),
        ("1,1-2,2", 3, [1, 2]),
        ("4-4", 4, [4]),
    ],
)
def test_parse_accept(text: str, count: int, chosen: list[int]) -> None:
    assert parse_accept(text, count) == chosen


@pytest.mark.parametrize(
    ("text", "count", "wrong"),
    [
        ("0", 3, "not on the list of 3"),
        ("5", 4, "not on the list of 4"),
        ("3-1", 4, "not on the list"),
        ("2-9", 4, "not on the list"),
        ("a", 3, "is not a number"),
        ("1,,2", 3, "is not a number"),
        ("", 3, "is not a number"),
        ("-1", 3, "is not a number"),
        ("1", 0, "nothing to accept"),
    ],
)
def test_parse_accept_refuses(text: str, count: int, wrong: str) -> None:
    with pytest.raises(VaultctxError, match=wrong) as caught:
        parse_accept(text, count)
    if count:
        assert "--accept 1,3" in caught.value.suggestion


@dataclass
class NotesFlow:
    """Proposes one note per word of ``words``; applying creates the accepted ones."""

    words: list[str]
    name: str = "notes"
    proposed: int = 0
    notices: list[str] = field(default_factory=list)

    async def propose(self, vault: Vault) -> list[Proposal]:
        self.proposed += 1
        self.notices = ["one word was left out"]
        return [
            Proposal(n, f"create {w}.md", "a new note", {"path": f"{w}.md"})
            for n, w in enumerate(self.words, start=1)
        ]

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        result = ReviewResult(None)
        with vault.change_batch(ChangeContext("review notes", source="cli"), "review") as batch:
            for proposal in accepted:
                path = str(proposal.data["path"])
                if (vault.path / path).exists():
                    result.skipped.append(f"{proposal.number}: {path} exists")
                    continue
                batch.create(path, f"# {path}\n")
                result.applied.append(proposal.number)
        assert batch.change is not None
        result.record_id = batch.change.record_id
        result.paths = batch.change.paths
        return result


@pytest.fixture(autouse=True)
def command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_review`` keys a saved list by the command line: the same one for each test."""
    monkeypatch.setattr("sys.argv", ["vaultctx", "review", "notes"])


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return Vault(make_vault(tmp_path / "vault", {"Home.md": "# Home\n"}), db=tmp_path / "i.db")


def notes(vault: Vault) -> list[str]:
    return sorted(p.name for p in vault.path.iterdir())


def test_listing_without_a_terminal_writes_nothing_and_says_how_to_accept(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    run_review(NotesFlow(["alpha", "beta"]), vault, accept=None, as_json=False)
    out = capsys.readouterr().out
    assert "[1] create alpha.md\n    a new note\n[2] create beta.md" in out
    assert "note: one word was left out" in out
    assert "nothing was written" in out and "vaultctx review notes --accept 1,3" in out
    assert notes(vault) == ["Home.md"]
    assert vault.ledger() == []
    assert plan_file(vault.path, "notes", "review\0notes").is_file()


def test_accept_applies_only_those_as_one_record(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    run_review(NotesFlow(["alpha", "beta", "gamma"]), vault, accept="1,3", as_json=False)
    out = capsys.readouterr().out
    assert notes(vault) == ["Home.md", "alpha.md", "gamma.md"]
    assert "applied 2: 1, 3" in out and "`vaultctx undo` reverts the whole apply" in out
    assert len(vault.ledger()) == 1
    vault.undo()
    assert notes(vault) == ["Home.md"]


def test_accept_applies_the_list_that_was_shown_not_a_new_one(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    run_review(NotesFlow(["alpha", "beta"]), vault, accept=None, as_json=False)
    changed_mind = NotesFlow(["zeta", "eta"])  # a model answering differently the second time
    run_review(changed_mind, vault, accept="2", as_json=False)
    out = capsys.readouterr().out
    assert changed_mind.proposed == 0
    assert notes(vault) == ["Home.md", "beta.md"]
    assert "applying the list `vaultctx review notes` showed at" in out
    # Accepting it again finds the note there: skipped with its reason, nothing recorded.
    run_review(changed_mind, vault, accept="2", as_json=False)
    assert "skipped 2: beta.md exists" in capsys.readouterr().out
    assert len(vault.ledger()) == 1


def test_a_list_is_per_scope_and_expires(vault: Vault) -> None:
    flow = NotesFlow(["alpha"])
    save_plan(vault.path, "notes", "Inbox", [Proposal(1, "t", "", {"path": "x.md"})])
    assert load_plan(vault.path, "notes", "Other") is None
    saved = load_plan(vault.path, "notes", "Inbox")
    assert saved is not None and saved.proposals[0].data == {"path": "x.md"}
    later = time.time() + MAX_AGE_SECONDS + 60
    assert load_plan(vault.path, "notes", "Inbox", now=later) is None
    plan_file(vault.path, "notes", "Inbox").write_text("{not json", encoding="utf-8")
    assert load_plan(vault.path, "notes", "Inbox") is None
    assert flow.proposed == 0


def test_a_saved_list_is_private_to_the_user(vault: Vault) -> None:
    save_plan(vault.path, "notes", "", [Proposal(1, "t")])
    path = plan_file(vault.path, "notes", "")
    assert not str(path).startswith(str(vault.path))
    if os.name == "posix":
        assert path.stat().st_mode & 0o077 == 0


def test_json_list_and_json_apply(vault: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    run_review(NotesFlow(["alpha", "beta"]), vault, accept=None, as_json=True)
    listed = json.loads(capsys.readouterr().out)
    assert listed == {
        "flow": "notes",
        "proposals": [
            {"path": "alpha.md", "id": 1, "title": "create alpha.md", "detail": "a new note"},
            {"path": "beta.md", "id": 2, "title": "create beta.md", "detail": "a new note"},
        ],
        "notices": ["one word was left out"],
    }
    assert notes(vault) == ["Home.md"]
    run_review(NotesFlow(["alpha", "beta"]), vault, accept="2", as_json=True)
    applied = json.loads(capsys.readouterr().out)
    assert applied["accepted"] == [2]
    assert applied["result"]["applied"] == [2]
    assert applied["result"]["paths"] == ["beta.md"]
    assert applied["result"]["record_id"] == vault.ledger()[0].id
    assert [p["id"] for p in applied["proposals"]] == [1, 2]


def test_data_never_hides_the_id_or_title() -> None:
    proposal = Proposal(3, "move a", "", {"id": 99, "title": "sneaky", "source": "a.md"})
    assert proposal.as_dict() == {"id": 3, "title": "move a", "detail": "", "source": "a.md"}


def test_nothing_to_review(vault: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    run_review(NotesFlow([]), vault, accept="all", as_json=False)
    assert "nothing to review: no notes proposals" in capsys.readouterr().out
    run_review(NotesFlow([]), vault, accept=None, as_json=True)
    assert json.loads(capsys.readouterr().out)["proposals"] == []
    assert vault.ledger() == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_at_a_terminal_each_item_is_asked(
    vault: Vault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal("n\ny\nq\n"))
    run_review(NotesFlow(["alpha", "beta", "gamma", "delta"]), vault, accept=None, as_json=False)
    assert notes(vault) == ["Home.md", "beta.md"]
    assert "applied 1: 2" in capsys.readouterr().out


def test_without_a_scope_a_list_is_kept_per_command_line(
    vault: Vault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flow that passes no scope (a topic in its arguments): the list shown for one topic is
    never applied to another."""
    monkeypatch.setattr("sys.argv", ["vaultctx", "review", "notes", "topic A", "--json"])
    run_review(NotesFlow(["alpha"]), vault, accept=None, as_json=True)
    monkeypatch.setattr("sys.argv", ["vaultctx", "review", "notes", "topic B", "--accept", "1"])
    other = NotesFlow(["beta"])
    run_review(other, vault, accept="1", as_json=False)
    assert other.proposed == 1 and notes(vault) == ["Home.md", "beta.md"]
    monkeypatch.setattr("sys.argv", ["vaultctx", "review", "notes", "--accept=1", "topic A"])
    again = NotesFlow(["gamma"])
    run_review(again, vault, accept="1", as_json=False)
    assert again.proposed == 0 and "alpha.md" in notes(vault)
    capsys.readouterr()
