"""``vaultctx conversations harvest ID`` end to end: a real process, the real client library
against the OpenAI wire fake, a real conversation store, real files and the real ledger."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import yaml

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.conftest import brain_vault, snapshot
from vaultctx.brain.harvest import MAX_TRANSCRIPT_CHARS, transcript
from vaultctx.conversations import ConversationStore, Message

SECRET = "ghp_4Fq8Zr2LmN7pXc9Vb3Ks6Td1Wy5Ha0Je8Gu2"  # made up, a GitHub token's shape
EXTRACTION = "### Conclusions\n- Compost needs greens and browns.\n\n### Open questions\n- Worms?"


def env_for(tmp_path: Path, fake: OpenAIFake | None) -> dict[str, str]:
    agent = "[agent]\n" + (openai_toml(fake) + "translate = false\n" if fake else "")
    return agent_env(tmp_path, agent, OPENAI_TEST=KEY)


def saved(vault: Path, title: str = "Compost: greens/browns?") -> str:
    with ConversationStore.open(vault) as store:
        chat = store.new(title, "openai", "gpt-5.2")
        store.append(
            chat.id,
            [
                Message("user", f"What goes in compost? my key is {SECRET}"),
                Message("assistant", "Greens and browns, turned weekly."),
            ],
        )
        return chat.id


def test_harvest_writes_one_note_with_its_front_matter_and_undo_removes_it(
    tmp_path: Path,
) -> None:
    handle = brain_vault(tmp_path)
    indexed = Indexed(handle.path, handle.db_path)
    chat = saved(handle.path)
    before = snapshot(handle.path)
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        fake.queue(Answer(EXTRACTION))
        done = vaultctx(indexed, env, "conversations", "harvest", chat[:8], "--json")
        again = vaultctx(indexed, env, "conversations", "harvest", chat)
        bodies = [r.json for r in fake.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)
    path = written["path"]
    assert path.startswith("Second Brain/Conversations/") and path.endswith(
        " Compost- greens-browns.md"
    )
    text = (handle.path / path).read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["type"] == "conversation-harvest"
    assert front["source_session"] == chat
    assert str(front["conversation_date"]) == path.split("/")[-1][:10]
    assert "harvested" in front
    assert text.split("---\n", 2)[2] == f"\n# Compost: greens/browns?\n\n{EXTRACTION}\n"
    assert len(bodies) == 1  # the second harvest refused before asking
    body = bodies[0]
    assert isinstance(body, dict)
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 1500
    sent = json.dumps(body)
    assert "Greens and browns" in sent and SECRET not in sent
    assert again.returncode == 2 and "exists already" in again.stderr
    assert "never overwrites" in again.stderr

    undone = vaultctx(indexed, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert f"conversations harvest {chat}" in undone.stdout
    assert snapshot(handle.path) == before


def test_harvest_refuses_without_a_model_or_with_the_second_brain_off(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path)
    indexed = Indexed(handle.path, handle.db_path)
    chat = saved(handle.path)
    no_model = vaultctx(indexed, env_for(tmp_path / "a", None), "conversations", "harvest", chat)
    assert no_model.returncode == 2
    assert "asks a model" in no_model.stderr and "none is configured" in no_model.stderr
    (handle.path / "vaultctx.toml").write_text("", encoding="utf-8")
    with OpenAIFake() as fake:
        off = vaultctx(indexed, env_for(tmp_path / "b", fake), "conversations", "harvest", chat)
        assert not [r for r in fake.requests if r.method == "POST"]
    assert off.returncode == 2 and "Second Brain is turned off" in off.stderr
    assert not (handle.path / "Second Brain").exists()


def test_the_transcript_keeps_the_most_recent_messages_that_fit(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path, indexed=False)
    with ConversationStore.open(handle.path) as store:
        chat = store.new("long", "openai", "gpt")
        store.append(chat.id, [Message("user", f"old {n} " + "x" * 5000) for n in range(10)])
        store.append(chat.id, [Message("tool", "ignored"), Message("assistant", "the end")])
        conversation = store.get(chat.id)
    text = transcript(conversation)
    assert len(text) <= MAX_TRANSCRIPT_CHARS
    assert text.endswith("Assistant: the end") and "User: old 9" in text
    assert "old 0" not in text and "ignored" not in text
    # Scrubbed again when sent: a rule learnt after the chat was saved still applies.
    pasted = replace(conversation, messages=(Message("user", f"token {SECRET}"),))
    assert SECRET not in transcript(pasted) and transcript(pasted).startswith("User: token ")


def test_chat_harvest_and_the_retrospective_word_each_write_one_record(tmp_path: Path) -> None:
    handle = brain_vault(tmp_path)
    indexed = Indexed(handle.path, handle.db_path)
    todo = f"ToDo/{date.today().isoformat()} To-Do.md"
    (handle.path / "ToDo").mkdir()
    (handle.path / todo).write_text("# Today\n\n- [x] Turn the compost\n", encoding="utf-8")
    script = "what goes in compost?\n/harvest\n회고\n/quit\n"
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake)
        fake.queue(Answer("Greens and browns."), Answer(EXTRACTION), Answer("- 퇴비를 뒤집었다"))
        chat = vaultctx(indexed, env, "chat", stdin=script)
        bodies = [r.json for r in fake.requests if r.method == "POST"]
        ledger = vaultctx(indexed, env, "ledger")
    assert chat.returncode == 0, chat.stderr
    assert len(bodies) == 3
    assert "Greens and browns." in json.dumps(bodies[1])  # the harvest saw the answer
    harvested = list((handle.path / "Second Brain" / "Conversations").iterdir())
    assert [p.name[11:] for p in harvested] == ["what goes in compost.md"]
    assert "Harvested " in chat.stderr and "Retrospective added" in chat.stderr
    assert (
        (handle.path / todo)
        .read_text(encoding="utf-8")
        .endswith("## 📝 오늘의 회고\n\n- 퇴비를 뒤집었다\n")
    )
    assert "Korean" in json.dumps(bodies[2])
    assert ledger.returncode == 0, ledger.stderr
    assert "todo retrospective" in ledger.stdout and "conversations harvest" in ledger.stdout
