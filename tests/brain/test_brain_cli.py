"""``vaultctx brain ...`` end to end: real processes, the real client library against the OpenAI
wire fake, real files, a real index and ledger. The first test is the issue's "done when"
scenario on a copy of the Obsidian Help vault."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.conftest import ON, brain_vault
from tests.conftest import shared_data
from vaultctx.api import Vault
from vaultctx.brain.markers import read_block
from vaultctx.brain.provenance import PROVENANCE_KEY, parse

TOPIC = "canvas"
NOTE = f"Second Brain/{TOPIC}.md"
MINE = "\n## What I think\n\nCanvas is where I plan talks. <!-- keep -->\n"
FIRST = "Canvas is an infinite board.\nCards can be notes, media or web pages.\nGroups frame cards."
SECOND = "Canvas is an infinite board.\nCards can be notes or media.\nGroups frame cards."


def env_for(tmp_path: Path, fake: OpenAIFake) -> dict[str, str]:
    return agent_env(
        tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
    )


def sources_of(note: Path) -> list[str]:
    provenance = parse(read_block(note.read_text(encoding="utf-8"), PROVENANCE_KEY) or "")
    assert provenance is not None
    return [source.path for source in provenance.sources]


def test_done_when_synthesis_goes_stale_and_regenerates_keeping_the_users_text(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(shared_data("obsidian-help", "en"), vault)
    (vault / "vaultctx.toml").write_text(ON, encoding="utf-8")
    indexed = Indexed(vault, tmp_path / "index.db")
    with Vault(vault, db=indexed.db) as handle:
        handle.index(fast=True)
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        fake.queue(Answer(FIRST))
        created = vaultctx(indexed, env, "brain", "synthesize", TOPIC, process=True)
        assert created.returncode == 0, created.stderr
        assert created.stdout.startswith(f"Synthesis note created: {NOTE} (")
        note = vault / NOTE
        assert "> [!info] Source check: current (" in note.read_text(encoding="utf-8")

        # The user adds a paragraph outside the markers; then one source note changes.
        with note.open("a", encoding="utf-8", newline="") as file:
            file.write(MINE)
        source = sources_of(note)[0]
        (vault / source).write_text("# Rewritten\n\nThe user rewrote this note.\n", "utf-8")

        reindexed = vaultctx(indexed, env, "index", "--fast")
        assert reindexed.returncode == 0, reindexed.stderr
        assert f"Second Brain: {NOTE} is outdated (changed: {source}" in reindexed.stdout
        marked = note.read_text(encoding="utf-8")
        assert "> [!warning] Outdated synthesis" in marked and marked.endswith(MINE)

        stale = vaultctx(indexed, env, "brain", "stale", "--json")
        assert stale.returncode == 0, stale.stderr
        listed = json.loads(stale.stdout)["stale"]
        assert [(s["path"], s["marked"]) for s in listed] == [(NOTE, True)]
        assert source in listed[0]["changed_sources"]
        plain = vaultctx(indexed, env, "brain", "stale")
        assert f"{NOTE} ({TOPIC})" in plain.stdout and f"  changed: {source}" in plain.stdout

        fake.queue(Answer(SECOND))
        regenerated = vaultctx(indexed, env, "brain", "synthesize", TOPIC)
        sent = [r for r in fake.requests if r.method == "POST"]
    assert regenerated.returncode == 0, regenerated.stderr
    assert regenerated.stdout.startswith(f"Synthesis note updated: {NOTE} (")
    assert (
        "Changes to the synthesis:\n- Cards can be notes, media or web pages.\n"
        "+ Cards can be notes or media.\n"
    ) in regenerated.stdout
    after = note.read_text(encoding="utf-8")
    assert after.endswith(MINE)  # byte-for-byte, after the generated blocks
    assert after[: after.index("<!-- @generated")] == marked[: marked.index("<!-- @generated")]
    assert "> [!info] Source check: current (" in after
    assert read_block(after, "synthesis") == SECOND
    body = sent[-1].json
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 2000
    assert "canvas" in json.dumps(sent[-1].json).lower()

    undone = vaultctx(indexed, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert "brain synthesize canvas" in undone.stdout
    assert note.read_text(encoding="utf-8") == marked


def test_every_brain_command_refuses_while_the_second_brain_is_off(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path, enabled=False)
    indexed = Indexed(handle.path, handle.db_path)
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        for args in (
            ["synthesize", "compost"],
            ["wiki-note", "Soil", "--body", "x"],
            ["update-index"],
            ["stale"],
        ):
            result = vaultctx(indexed, env, "brain", *args)
            assert result.returncode == 2, (args, result.stderr)
            assert "Second Brain is turned off" in result.stderr
            assert "enabled = true under [second_brain]" in result.stderr
        assert not [r for r in fake.requests if r.method == "POST"]
    assert not (handle.path / "Second Brain").exists()


def test_wiki_note_update_index_and_json_output(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path)
    indexed = Indexed(handle.path, handle.db_path)
    draft = tmp_path / "draft.md"
    draft.write_text("Worms make soil.\n", encoding="utf-8")
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        made = vaultctx(
            indexed, env, "brain", "wiki-note", "Soil", "--from", str(draft),
            "--category", "concepts", "--confidence", "high", "--tag", "garden", "--json",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert json.loads(made.stdout)["path"] == "Second Brain/concepts/Soil.md"
        again = vaultctx(
            indexed, env, "brain", "wiki-note", "Soil", "--body", "x", "--category", "concepts"
        )
        assert again.returncode == 2
        assert "A note already exists and was not overwritten" in again.stderr
        catalog = vaultctx(indexed, env, "brain", "update-index")
        assert catalog.stdout == "Index catalog updated: 1 note(s) (Second Brain/index.md)\n"
        stale = vaultctx(indexed, env, "brain", "stale", "--json")
        assert json.loads(stale.stdout)["stale"] == []
    text = (handle.path / "Second Brain/concepts/Soil.md").read_text(encoding="utf-8")
    assert "confidence: high" in text and 'tags: ["garden"]' in text
    assert text.endswith("Worms make soil.\n")
    assert "[[Second Brain/concepts/Soil|Soil]]" in (
        handle.path / "Second Brain/index.md"
    ).read_text(encoding="utf-8")


@pytest.mark.parametrize("args", [[], ["--body", "x", "--from", "f.md"]])
def test_wiki_note_needs_exactly_one_body(tmp_path: Path, args: list[str]) -> None:
    handle = brain_vault(tmp_path, indexed=False)
    with OpenAIFake() as fake:
        result = vaultctx(
            Indexed(handle.path, handle.db_path),
            env_for(tmp_path, fake),
            "brain",
            "wiki-note",
            "T",
            *args,
        )
    assert result.returncode == 2 and "--body or --from" in result.stderr


def test_index_json_reports_the_stale_check_only_when_enabled(tmp_path: Path) -> None:
    on = brain_vault(tmp_path / "on")
    off = brain_vault(tmp_path / "off", enabled=False)
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        checked = vaultctx(Indexed(on.path, on.db_path), env, "index", "--fast", "--json")
        plain = vaultctx(Indexed(off.path, off.db_path), env, "index", "--fast", "--json")
    assert json.loads(checked.stdout)["second_brain"] == {
        "stale": [],
        "rewritten": [],
        "unreadable": [],
        "record_id": None,
    }
    assert "second_brain" not in json.loads(plain.stdout)


def test_a_backend_failure_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path)
    with OpenAIFake() as fake:
        fake.queue(OpenAIFake.auth_error())
        result = vaultctx(
            Indexed(handle.path, handle.db_path),
            env_for(tmp_path, fake),
            "brain",
            "synthesize",
            "compost",
        )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert not (handle.path / "Second Brain").exists()
