"""`vaultctx review inbox`: candidates, the prompt, validation of a hostile answer, applying with
a collision, and the command end to end, all through the OpenAI wire fake."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from tests.ledger.conftest import tree
from tests.review.support import cli_toml, model_for
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.review.inbox import InboxFlow, clean_title, normalise_tag, note_tags

NOTES = {
    "Inbox/meeting notes.md": "---\ntags: [work]\nsource: phone\n---\n# Meeting\nThe launch.\n",
    "Inbox/sub/idea.md": "# Idea\nA tool for notes.\n",
    "Inbox/clash.md": "# Clash\n",
    "Projects/Launch/Plan.md": "---\ntags: [work]\n---\n# Plan\nSee [[meeting notes]].\n",
    "Projects/Launch/Clash.md": "# the user's own clash\n",
    "Areas/Health.md": "# Health\n#work\n",
    ".obsidian/snippets/a.md": "x\n",
}
HOSTILE = [
    {
        "path": "Inbox/meeting notes.md",
        "folder": "Projects/Launch",
        "title": "Launch meeting #1 [draft].md",
        "tags": ["Launch Review", "work", "#Q3 plans", 7],
    },
    {"path": "Inbox/clash.md", "folder": "projects/launch", "title": "", "tags": ["misc"]},
    {"path": "Inbox/sub/idea.md", "folder": "../x", "title": "", "tags": []},
    {"path": "../secrets.md", "folder": "Areas", "title": "x", "tags": ["a"]},
    {"path": "Areas/Health.md", "folder": "Projects", "tags": ["b"]},
]


def test_titles_are_cleaned() -> None:
    assert clean_title("Launch meeting #1 [draft].md") == "Launch meeting 1 draft"
    assert clean_title("../../etc/passwd") == "etc passwd"
    assert clean_title("a|b^c:d") == "a b c d"
    assert clean_title(" .hidden ") == "hidden"


@pytest.mark.parametrize(
    ("raw", "tag"),
    [
        ("#Machine Learning", "machine-learning"),
        ("  a  b ", "a-b"),
        ("Q3/Plans!", "q3/plans"),
        ("2024", ""),
        ("--x--", "x"),
        ("한국어 태그", "한국어-태그"),
        (7, ""),
        ("", ""),
    ],
)
def test_tags_are_normalised(raw: object, tag: str) -> None:
    assert normalise_tag(raw) == tag


def test_a_notes_own_tags() -> None:
    assert note_tags("---\ntags: [Work, '#Q3 plans']\n---\n") == {"work", "q3-plans"}
    assert note_tags("---\ntags: a, b\n---\n") == {"a", "b"}
    assert note_tags("---\ntag: solo\n---\n") == {"solo"}
    assert note_tags("no front matter #inline") == set()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = make_vault(tmp_path / "vault", NOTES)
    for age, name in enumerate(["Inbox/meeting notes.md", "Inbox/clash.md", "Inbox/sub/idea.md"]):
        stamp = 1_700_000_000 - age * 3600
        os.utime(root / name, (stamp, stamp))
    handle = Vault(root, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


def test_the_prompt_and_a_hostile_answer(vault: Vault, fake: OpenAIFake, tmp_path: Path) -> None:
    fake.queue(Answer("Here you go:\n```json\n" + json.dumps(HOSTILE) + "\n```"))
    flow = InboxFlow(model_for(fake, tmp_path))
    proposals = asyncio.run(flow.propose(vault))
    assert [(p.title, p.data) for p in proposals] == [
        (
            "Inbox/meeting notes.md -> Projects/Launch/Launch meeting 1 draft.md; "
            "tags +launch-review, +q3-plans",
            {
                "path": "Inbox/meeting notes.md",
                "destination": "Projects/Launch/Launch meeting 1 draft.md",
                "tags": ["launch-review", "q3-plans"],
            },
        ),
        (
            "Inbox/clash.md -> Projects/Launch/clash.md; tags +misc",
            {
                "path": "Inbox/clash.md",
                "destination": "Projects/Launch/clash.md",
                "tags": ["misc"],
            },
        ),
    ]
    assert any("'../secrets.md' is not one of the notes" in n for n in flow.notices)
    assert any("'Areas/Health.md' is not one of the notes" in n for n in flow.notices)
    assert any("folder '../x' is not an existing folder" in n for n in flow.notices)
    request = fake.last("/chat/completions").json
    assert request["max_completion_tokens"] == 2500
    prompt = request["messages"][1]["content"]
    folders = prompt.split("Existing folders:\n", 1)[1].split("\n\n", 1)[0]
    assert folders.splitlines() == ["- Areas", "- Projects", "- Projects/Launch"]
    assert "Existing tags: work" in prompt
    # Newest first, excerpts without front matter.
    order = [prompt.index(f"path: Inbox/{n}") for n in ("meeting notes.md", "clash.md", "sub/idea")]
    assert order == sorted(order)
    assert "source: phone" not in prompt and "# Meeting\nThe launch." in prompt


def test_at_most_twelve_notes_newest_first(vault: Vault, fake: OpenAIFake, tmp_path: Path) -> None:
    for number in range(14):
        path = vault.path / "Inbox" / f"n{number:02}.md"
        path.write_text(f"# {number}\n", encoding="utf-8")
        os.utime(path, (1_800_000_000 + number, 1_800_000_000 + number))
    fake.queue(Answer("[]"))
    assert asyncio.run(InboxFlow(model_for(fake, tmp_path)).propose(vault)) == []
    prompt = fake.last("/chat/completions").json["messages"][1]["content"]
    assert prompt.count("\npath: ") == 12
    assert "path: Inbox/n13.md" in prompt and "path: Inbox/n02.md" in prompt
    assert "path: Inbox/n01.md" not in prompt and "meeting notes" not in prompt


def test_untriaged_signals_are_left_to_triage(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    (vault.path / "Inbox/feed item.md").write_text("---\ntype: signal\n---\n# Feed item\n")
    triaged = "---\ntype: signal\ntriage:\n  route: inbox\n---\n# Kept in the inbox\n"
    (vault.path / "Inbox/triaged.md").write_text(triaged)
    fake.queue(Answer("[]"))
    flow = InboxFlow(model_for(fake, tmp_path))
    assert asyncio.run(flow.propose(vault)) == []
    prompt = fake.last("/chat/completions").json["messages"][1]["content"]
    assert "path: Inbox/feed item.md" not in prompt and "path: Inbox/triaged.md" in prompt
    assert "1 untriaged signal(s) left to `vaultctx triage`" in flow.notices


def test_a_garbled_answer_proposes_nothing_and_says_so(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer("Sorry, I moved them all for you."))
    flow = InboxFlow(model_for(fake, tmp_path))
    assert asyncio.run(flow.propose(vault)) == []
    assert any("not a JSON list" in n and "Sorry, I moved" in n for n in flow.notices)


def test_a_missing_inbox_is_an_error_before_any_model(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    with pytest.raises(VaultctxError, match="no folder Capture/"):
        asyncio.run(InboxFlow(model_for(fake, tmp_path), "Capture").propose(vault))
    with pytest.raises(VaultctxError):
        asyncio.run(InboxFlow(model_for(fake, tmp_path), "../Inbox").propose(vault))
    assert fake.requests_to("/chat/completions") == []


def test_apply_tags_moves_and_skips_a_taken_name(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer(json.dumps(HOSTILE)))
    flow = InboxFlow(model_for(fake, tmp_path))
    proposals = asyncio.run(flow.propose(vault))
    (vault.path / "Inbox" / "gone.md").write_text("# gone\n", encoding="utf-8")
    result = flow.apply(vault, proposals)
    assert result.applied == [1, 2]
    assert result.skipped == ["2: Projects/Launch/clash.md exists; not moved (tags added)"]
    assert result.notices[0] == "moved 1, tagged 2, skipped 1"
    moved = vault.path / "Projects/Launch/Launch meeting 1 draft.md"
    assert moved.read_text(encoding="utf-8") == (
        "---\ntags: [work, launch-review, q3-plans]\nsource: phone\n---\n# Meeting\nThe launch.\n"
    )
    assert (vault.path / "Inbox/clash.md").read_text(encoding="utf-8") == (
        "---\ntags:\n  - misc\n---\n# Clash\n"
    )
    assert (vault.path / "Projects/Launch/Clash.md").read_text(encoding="utf-8") == (
        "# the user's own clash\n"
    )
    plan = (vault.path / "Projects/Launch/Plan.md").read_text(encoding="utf-8")
    assert "[[Launch meeting 1 draft]]" in plan
    assert vault.broken_links() == []
    assert len(vault.ledger()) == 1


def test_one_failing_item_does_not_stop_the_others(
    vault: Vault, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(Answer(json.dumps(HOSTILE)))
    flow = InboxFlow(model_for(fake, tmp_path))
    proposals = asyncio.run(flow.propose(vault))
    (vault.path / "Inbox/meeting notes.md").write_text("---\ntags: [a\n---\n", encoding="utf-8")
    result = flow.apply(vault, proposals)
    assert result.applied == [1, 2]  # 1 moved without its tags, 2 tagged
    assert result.skipped[0].startswith(
        "1: tags not added: Inbox/meeting notes.md: its front matter is not valid YAML (line 3); "
        "it was left unchanged"
    )
    assert (vault.path / "Projects/Launch/Launch meeting 1 draft.md").is_file()
    assert "misc" in (vault.path / "Inbox/clash.md").read_text(encoding="utf-8")


def test_inbox_end_to_end(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault", NOTES)
    db = tmp_path / "index.db"
    with Vault(root, db=db) as handle:
        handle.index(fast=True)
    indexed = Indexed(root, db)
    before = tree(root)
    with OpenAIFake() as fake:
        fake.queue(Answer(json.dumps(HOSTILE)))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY)
        listed = vaultctx(indexed, env, "review", "inbox")
        assert listed.returncode == 0, listed.stderr
        assert tree(root) == before
        assert "[2] Inbox/clash.md -> Projects/Launch/clash.md; tags +misc" in listed.stdout
        assert "vaultctx review inbox --folder Inbox --accept 1,3" in listed.stdout
        applied = vaultctx(indexed, env, "review", "inbox", "--accept", "all")
    assert applied.returncode == 0, applied.stderr
    assert "applied 2: 1, 2" in applied.stdout
    assert "skipped 2: Projects/Launch/clash.md exists; not moved (tags added)" in applied.stdout
    assert "note: moved 1, tagged 2, skipped 1" in applied.stdout
    assert (root / "Projects/Launch/Launch meeting 1 draft.md").is_file()
    undone = vaultctx(indexed, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert tree(root) == before
