"""`vaultctx para` end to end: real processes, a real index, the OpenAI wire fake scripting the
model: the list writes nothing, --accept moves only the accepted notes (links kept working),
`vaultctx undo` puts every note back and removes the folders it created."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from tests.ledger.conftest import tree
from tests.review.support import cli_toml
from vaultctx.api import Vault

NOTES = {
    "Garbled.md": "# Garbled\nHard to say.\n",
    "Health/Running.md": "# Running\nWeekly runs, for the [[Launch plan]].\n",
    "Launch plan.md": "# Launch plan\n\n## Goals\nShip v2. Runs: [[Health/Running|runs]].\n",
    "Old/2019 taxes.md": "# Taxes 2019\nFiled. See [the plan](../Launch%20plan.md#goals).\n",
    "Reading list.md": "# Reading list\n- [[Launch plan#Goals]]\n",
    "Templates/Daily.md": "# {{date}}\n",
}
REPLIES = ["I cannot tell: projects or areas", "areas", "Projects.", "archives", "resources"]


@pytest.fixture
def indexed(tmp_path: Path) -> Indexed:
    vault = make_vault(tmp_path / "vault", NOTES)
    db = tmp_path / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    return Indexed(vault, db)


def test_list_accept_links_and_undo(indexed: Indexed, tmp_path: Path) -> None:
    before = tree(indexed.vault)
    with OpenAIFake() as fake:
        fake.queue(*(Answer(reply) for reply in REPLIES))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY)
        listed = vaultctx(indexed, env, "para")
        assert listed.returncode == 0, listed.stderr
        assert tree(indexed.vault) == before
        assert (
            "[1] create the P.A.R.A folders 01. Projects, 02. Areas, 03. Resources" in listed.stdout
        )
        assert "[3] move Launch plan.md -> 01. Projects/Launch plan.md" in listed.stdout
        assert "Garbled.md" in listed.stdout and "no single category" in listed.stdout
        assert "vaultctx para --accept 1,3" in listed.stdout
        # A real process applies the batch (its ledger record written from the console script).
        applied = vaultctx(indexed, env, "para", "--accept", "2,3,5", "--json", process=True)
        asked = len(fake.requests_to("/chat/completions"))
    assert applied.returncode == 0, applied.stderr
    assert asked == 5  # --accept applied the list shown; the model was not asked again
    result = json.loads(applied.stdout)["result"]
    assert result["applied"] == [2, 3, 5]
    vault = indexed.vault
    assert (vault / "02. Areas" / "Running.md").is_file()
    assert (vault / "01. Projects" / "Launch plan.md").is_file()
    assert (vault / "03. Resources" / "Reading list.md").is_file()
    assert (vault / "Old" / "2019 taxes.md").is_file()  # not accepted: not moved
    assert (vault / "Health").is_dir()  # left empty, not deleted
    assert not (vault / "04. Archives").exists()  # nothing moved there, creating it not accepted
    plan = (vault / "01. Projects" / "Launch plan.md").read_text(encoding="utf-8")
    assert "[[02. Areas/Running|runs]]" in plan
    taxes = (vault / "Old" / "2019 taxes.md").read_text(encoding="utf-8")
    assert "Launch%20plan.md" in taxes and "01.%20Projects" in taxes
    with Vault(vault, db=indexed.db) as handle:
        assert handle.broken_links() == []
    undone = vaultctx(indexed, env, "undo")  # one undo: the whole apply was one record
    assert undone.returncode == 0, undone.stderr
    assert tree(vault) == before


def test_accepting_the_folders_creates_them_empty_and_undo_removes_them(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(*(Answer(reply) for reply in REPLIES))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY)
        done = vaultctx(indexed, env, "para", "--accept", "1")
    assert done.returncode == 0, done.stderr
    assert "applied 1: 1" in done.stdout
    for name in ("01. Projects", "02. Areas", "03. Resources", "04. Archives"):
        assert os.listdir(indexed.vault / name) == []
    assert vaultctx(indexed, env, "undo").returncode == 0
    assert not any((indexed.vault / n).exists() for n in ("01. Projects", "04. Archives"))


def test_without_a_backend_it_says_so(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    result = vaultctx(indexed, env, "para")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_at_a_terminal_each_move_is_asked(indexed: Indexed, tmp_path: Path) -> None:
    import pty
    import subprocess
    import sys
    import time

    with OpenAIFake() as fake:
        fake.queue(*(Answer(reply) for reply in REPLIES))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY, TERM="dumb")
        leader, follower = pty.openpty()
        argv = [sys.executable, "-m", "vaultctx", "para", "--vault", str(indexed.vault)]
        process = subprocess.Popen(
            [*argv, "--db", str(indexed.db)],
            stdin=follower,
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
        )
        os.close(follower)
        seen = b""
        answers = iter([b"n\n", b"y\n", b"q\n"])
        deadline = time.monotonic() + 240
        while process.poll() is None and time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: the process ended
                break
            seen += chunk
            if chunk.rstrip().endswith(b"[q]uit:"):
                os.write(leader, next(answers))
        process.wait(timeout=60)
        os.close(leader)
    text = seen.decode("utf-8", "replace")
    assert process.returncode == 0, (text, process.stderr.read() if process.stderr else "")
    assert text.count("apply? [y]es / [n]o / [q]uit") == 3
    assert "applied 1: 2" in text
    assert (indexed.vault / "02. Areas" / "Running.md").is_file()
    assert (indexed.vault / "Launch plan.md").is_file()  # item 3 was never reached: q


def test_a_rerun_classifies_first_the_notes_the_last_list_did_not_offer(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(*(Answer(r) for r in ["areas", "no idea", "projects", "archives", "areas"]))
        env = agent_env(tmp_path, cli_toml(fake), OPENAI_TEST=KEY)
        assert vaultctx(indexed, env, "para").returncode == 0
        fake.queue(*(Answer("areas") for _ in range(5)))
        assert vaultctx(indexed, env, "para").returncode == 0
        prompts = [
            r.json["messages"][1]["content"].split("\n", 1)[0]
            for r in fake.requests_to("/chat/completions")
        ]
    assert prompts[:5] == [
        "Title: Garbled",
        "Title: Running",
        "Title: Launch plan",
        "Title: 2019 taxes",
        "Title: Reading list",
    ]
    assert prompts[5] == "Title: Running"  # skipped last time: never offered, so first now
