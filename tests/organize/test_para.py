"""P.A.R.A proposals from a scripted model (the OpenAI wire fake behind the real client):
what is a candidate, which answers count, collisions, the cap, and applying as one record."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from tests.review.support import fake_server, isolate, model_for
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.organize.para import ParaFlow, category_of

NOTES = {
    "Garbled.md": "# Garbled\nHard to say.\n",
    "Health/Running.md": "# Running\nWeekly runs.\n",
    "Launch plan.md": "# Launch plan\nShip v2. Runs: [[Health/Running]].\n",
    "Templates/Daily.md": "# {{date}}\n",
    "03. Resources/Existing.md": "# Existing\n",
    ".obsidian/snippets/x.md": "not a note\n",
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate(tmp_path, monkeypatch)  # the ledger and saved lists stay in tmp


@pytest.fixture
def fake() -> Iterator[OpenAIFake]:
    yield from fake_server()


@pytest.mark.parametrize(
    ("answer", "category"),
    [
        ("projects", "projects"),
        ("Resources.", "resources"),
        ("**Area**", "areas"),
        ("  ARCHIVES\n", "archives"),
        ("The answer is: project", "projects"),
        ("projects or areas", None),
        ("I cannot tell", None),
        ("", None),
        ("projectsareas", None),
    ],
)
def test_an_answer_counts_only_when_it_names_one_category(
    answer: str, category: str | None
) -> None:
    assert category_of(answer) == category


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")


def propose(flow: ParaFlow, vault: Vault) -> list[tuple[str, dict[str, object]]]:
    return [(p.title, p.data) for p in asyncio.run(flow.propose(vault))]


def test_candidates_skip_para_folders_dot_folders_and_folders_left_alone(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("I cannot tell: projects or areas"), Answer("areas"), Answer("Projects."))
    flow = ParaFlow(model_for(fake, tmp_path), left_alone=["Templates"])
    proposals = propose(flow, vault)
    assert proposals == [
        (
            "create the P.A.R.A folders 01. Projects, 02. Areas, 04. Archives",
            {"kind": "folders", "folders": ["01. Projects", "02. Areas", "04. Archives"]},
        ),
        (
            "move Health/Running.md -> 02. Areas/Running.md",
            {"kind": "move", "source": "Health/Running.md", "destination": "02. Areas/Running.md"},
        ),
        (
            "move Launch plan.md -> 01. Projects/Launch plan.md",
            {
                "kind": "move",
                "source": "Launch plan.md",
                "destination": "01. Projects/Launch plan.md",
            },
        ),
    ]
    sent = [r.json for r in fake.requests_to("/chat/completions")]
    assert len(sent) == 3  # Templates/, 03. Resources/ and .obsidian/ were never asked about
    first = sent[0]["messages"]
    assert "Answer with the one word only" in first[0]["content"]
    assert first[1]["content"] == "Title: Garbled\nContent preview: # Garbled\nHard to say.\n"
    assert sent[0]["max_completion_tokens"] == 256
    assert any("Garbled.md" in n and "no single category" in n for n in flow.notices)
    assert any("1 notes in Templates/ were left where they are" in n for n in flow.notices)


def test_a_name_taken_in_the_category_folder_is_not_proposed(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    (vault.path / "Old").mkdir()
    (vault.path / "Old" / "existing.md").write_text("# mine\n", encoding="utf-8")
    (vault.path / "Old" / "Running.md").write_text("# another running\n", encoding="utf-8")
    for _ in range(5):
        fake.queue(Answer("resources"))
    flow = ParaFlow(model_for(fake, tmp_path), left_alone=["Templates"])
    titles = [title for title, _ in propose(flow, vault)]
    assert "move Old/existing.md -> 03. Resources/existing.md" not in titles  # Existing.md there
    assert "move Health/Running.md -> 03. Resources/Running.md" in titles
    assert "move Old/Running.md -> 03. Resources/Running.md" not in titles  # taken by the first
    collision = next(n for n in flow.notices if "not proposed" in n)
    assert "Old/existing.md -> 03. Resources/existing.md" in collision
    assert "Old/Running.md -> 03. Resources/Running.md" in collision


def test_the_cap_reports_the_rest_and_a_rerun_starts_with_them(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("areas"), Answer("areas"))
    flow = ParaFlow(model_for(fake, tmp_path), left_alone=["Templates"], limit=2)
    first = [data.get("source") for _, data in propose(flow, vault)]
    assert first == [None, "Garbled.md", "Health/Running.md"]
    assert any("2 notes classified (the most per run); 1 more" in n for n in flow.notices)
    fake.queue(Answer("projects"), Answer("areas"))
    again = ParaFlow(
        model_for(fake, tmp_path), left_alone=["Templates"], offered=first[1:], limit=2
    )
    assert [data.get("source") for _, data in propose(again, vault)][1] == "Launch plan.md"


def test_a_model_that_fails_at_once_is_an_error(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(OpenAIFake.server_error(500))
    with pytest.raises(VaultctxError):
        propose(ParaFlow(model_for(fake, tmp_path)), vault)


def test_a_model_that_fails_later_keeps_what_it_classified(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("areas"), OpenAIFake.server_error(500))
    flow = ParaFlow(model_for(fake, tmp_path), left_alone=["Templates"])
    proposals = propose(flow, vault)
    assert [d.get("source") for _, d in proposals] == [None, "Garbled.md"]
    assert any("the model failed after 1 notes" in n for n in flow.notices)


def test_apply_moves_and_creates_as_one_record_and_skips_what_became_taken(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("archives"), Answer("areas"), Answer("projects"))
    flow = ParaFlow(model_for(fake, tmp_path), left_alone=["Templates"])
    proposals = asyncio.run(flow.propose(vault))
    (vault.path / "02. Areas").mkdir()
    (vault.path / "02. Areas" / "running.md").write_text("# user's own\n", encoding="utf-8")
    result = flow.apply(vault, proposals)
    assert result.applied == [1, 2, 4]
    assert result.skipped == [
        "3: 02. Areas/Running.md exists (a note of that name is there); not moved"
    ]
    assert (vault.path / "04. Archives" / "Garbled.md").is_file()
    assert (vault.path / "Health" / "Running.md").is_file()
    moved = (vault.path / "01. Projects" / "Launch plan.md").read_text(encoding="utf-8")
    assert "[[Health/Running]]" in moved
    assert len(vault.ledger()) == 1
    vault.undo()
    assert sorted(p.name for p in vault.path.iterdir()) == [
        ".obsidian",
        "02. Areas",
        "03. Resources",
        "Garbled.md",
        "Health",
        "Launch plan.md",
        "Templates",
    ]
