"""``vaultctx todo --retro`` and ``vaultctx todo --clean-archive`` end to end: real processes, the
real client library against the OpenAI wire fake, real files, the real ledger and undo."""

from __future__ import annotations

import json
import os
from datetime import date, datetime, time, timedelta
from pathlib import Path

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.organize.retrospective import (
    is_retrospective_request,
    section_text,
    with_retrospective,
)

TODAY = date(2026, 12, 6)
NOTE = "ToDo/2026-12-06 To-Do.md"
TODAY_TEXT = (
    "# 📋 2026-12-06\n\n## To-Do\n\n- [x] Ship the harvest\n- [ ] Write the docs\n\n"
    "## 📊 오늘의 회고\n\n(old text)\n\n## Notes\n\n- keep this\n"
)
LONG_PAST = "Yesterday went well. " * 100  # over 1,000 characters


def at_noon(day: date) -> float:
    return datetime.combine(day, time(12)).timestamp()


def indexed(tmp_path: Path, notes: dict[str, str], days: dict[str, date] | None = None) -> Indexed:
    """The vault of ``notes``, indexed; ``days``: the day each of these notes last changed."""
    vault = make_vault(tmp_path / "vault", notes)
    for path, day in (days or {}).items():
        os.utime(vault / path, (at_noon(day), at_noon(day)))
    with Vault(vault, db=tmp_path / "index.db") as handle:
        handle.index(fast=True)
    return Indexed(vault, tmp_path / "index.db")


def env_for(tmp_path: Path, fake: OpenAIFake | None, **extra: str) -> dict[str, str]:
    agent = "[agent]\n" + (openai_toml(fake) + "translate = false\n" if fake else "")
    return agent_env(tmp_path, agent, OPENAI_TEST=KEY, **extra)


def past_notes() -> dict[str, str]:
    notes = {}
    for back in range(1, 10):
        day = (TODAY - timedelta(days=back)).isoformat()
        folder = "ToDo/Archive" if back > 3 else "ToDo"
        notes[f"{folder}/{day} To-Do.md"] = (
            f"# {day}\n\n## 📝 Daily Retrospective\n\nday {back} {LONG_PAST}\n"
        )
    return notes


def test_retro_replaces_the_section_in_place_from_the_todo_and_seven_days(
    tmp_path: Path,
) -> None:
    others = {"Garden.md": "Planted the garlic today.\n", "Old.md": "An older thought.\n"}
    days = {"Garden.md": TODAY, "Old.md": TODAY - timedelta(days=3)}
    found = indexed(tmp_path, {NOTE: TODAY_TEXT, **past_notes(), **others}, days)
    with OpenAIFake() as fake:
        env = env_for(tmp_path, fake, LANG="ko_KR.UTF-8")
        fake.queue(Answer("## Done\n- Shipped the harvest.\n- Docs carry over."))
        done = vaultctx(found, env, "todo", "--retro", "--date", TODAY.isoformat(), "--json")
        bodies = [r.json for r in fake.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["replaced"] is True
    after = (found.vault / NOTE).read_text(encoding="utf-8")
    assert after == TODAY_TEXT.replace(
        "(old text)", "### Done\n- Shipped the harvest.\n- Docs carry over."
    )
    assert len(bodies) == 1 and isinstance(bodies[0], dict)
    body = bodies[0]
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 2048
    sent = json.dumps(body, ensure_ascii=False)
    assert "Write the docs" in sent and "Korean" in sent
    for back in range(1, 8):  # the 7 days before, from the folder and the archive
        assert f"day {back} " in sent
    assert "day 8 " not in sent and "day 9 " not in sent
    assert "Planted the garlic" in sent and "An older thought" not in sent  # the day's notes
    assert sent.count("Yesterday went well.") <= 7 * (1000 // len("Yesterday went well. ") + 1)

    undone = vaultctx(found, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert "todo retrospective 2026-12-06" in undone.stdout
    assert (found.vault / NOTE).read_text(encoding="utf-8") == TODAY_TEXT


def test_retro_appends_a_localised_heading_and_refuses_clearly(tmp_path: Path) -> None:
    plain = "# 📋 2026-12-06\n\n## To-Do\n\n- [ ] one\n"
    found = indexed(tmp_path, {NOTE: plain})
    no_model = vaultctx(found, env_for(tmp_path / "a", None), "todo", "--retro")
    assert no_model.returncode == 2 and "none is configured" in no_model.stderr
    with OpenAIFake() as fake:
        env = env_for(tmp_path / "b", fake, LANG="ja_JP.UTF-8")
        missing = vaultctx(found, env, "todo", "--retro", "--date", "2026-12-07")
        assert missing.returncode == 2 and "no to-do note for 2026-12-07" in missing.stderr
        assert "`vaultctx todo`" in missing.stderr
        fake.queue(Answer("- 良い一日"))
        done = vaultctx(found, env, "todo", "--retro", "--date", TODAY.isoformat())
    assert done.returncode == 0, done.stderr
    assert "Retrospective added" in done.stdout
    assert (found.vault / NOTE).read_text(encoding="utf-8") == (
        plain + "\n## 📝 今日の振り返り\n\n- 良い一日\n"
    )


def test_the_section_helpers_and_the_chat_trigger() -> None:
    text, replaced = with_retrospective("# Day\n", "- a", "en")
    assert (text, replaced) == ("# Day\n\n## 📝 Daily Retrospective\n\n- a\n", False)
    again, replaced = with_retrospective(text, "- b", "ko")
    assert replaced and again == "# Day\n\n## 📝 Daily Retrospective\n\n- b\n"
    assert section_text(again) == "- b"
    assert all(is_retrospective_request(w) for w in ("회고", "Retrospective!", " 振り返り。"))
    assert not is_retrospective_request("what is a retrospective?")


def test_clean_archive_moves_old_archived_todos_to_trash_in_one_record(tmp_path: Path) -> None:
    old = [f"ToDo/Archive/{(TODAY - timedelta(days=d)).isoformat()} To-Do.md" for d in (91, 200)]
    recent = f"ToDo/Archive/{(TODAY - timedelta(days=90)).isoformat()} To-Do.md"
    notes = {path: "# old\n" for path in [*old, recent]}
    notes["ToDo/Archive/2025/misc.md"] = "undated, old by its file time\n"
    notes["ToDo/2026-01-01 To-Do.md"] = "not archived: never cleaned\n"
    found = indexed(tmp_path, notes)
    stale = found.vault / "ToDo/Archive/2025/misc.md"
    year_ago = (TODAY - timedelta(days=365)).toordinal() - date(1970, 1, 1).toordinal()
    os.utime(stale, (year_ago * 86400, year_ago * 86400))
    env = env_for(tmp_path, None)
    args = ["todo", "--clean-archive", "--date", TODAY.isoformat()]

    dry = vaultctx(found, env, *args, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    expected = sorted([*old, "ToDo/Archive/2025/misc.md"])
    assert json.loads(dry.stdout)["would_trash"] == expected
    assert all((found.vault / path).exists() for path in expected)

    done = vaultctx(found, env, *args)
    assert done.returncode == 0, done.stderr
    assert "3 archived to-do(s) moved to .trash/" in done.stdout
    assert not any((found.vault / path).exists() for path in expected)
    assert (found.vault / recent).exists() and (found.vault / "ToDo/2026-01-01 To-Do.md").exists()
    assert len(list((found.vault / ".trash").iterdir())) == 3

    undone = vaultctx(found, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert "todo archive cleanup" in undone.stdout
    assert all((found.vault / path).exists() for path in expected)
    bad = found.vault / "vaultctx.toml"
    bad.write_text("[todo]\narchive_clean_days = 0\n", encoding="utf-8")
    refused = vaultctx(found, env, *args)
    assert refused.returncode == 2 and "archive_clean_days must be a whole number" in refused.stderr
    both = vaultctx(found, env, *args, "--retro")
    assert both.returncode == 2 and "two separate runs" in both.stderr
