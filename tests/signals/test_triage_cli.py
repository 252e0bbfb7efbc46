"""``vaultctx triage`` and ``vaultctx signals fetch`` as real processes: offline, with the OpenAI
wire fake scripting the model's JSON (a garbled reply included), ``--dry-run``, ``vaultctx undo``,
``capture --signal``, and feeds from a real server on 127.0.0.1 (``--allow-host``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, Indexed, agent_env, openai_toml, vaultctx
from tests.agent.fakes import Answer, OpenAIFake
from tests.local_web import local_web, page
from tests.signals.feed_fixtures import NOT_XML, RSS
from tests.signals.support import files, signal_vault
from vaultctx.api import Vault

GOOD_JSON = (
    '{"relevance": 0.2, "actionability": 0.2, "depth": 0.2, "authority": 0.2, "domain": "web"}'
)


@pytest.fixture
def indexed(tmp_path: Path) -> Indexed:
    vault = signal_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    return Indexed(vault, db)


def test_offline_triage_then_undo(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    before = files(indexed.vault)
    result = vaultctx(indexed, env, "triage")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("[1] keep 00-inbox/Banana bread.md in the inbox (0.03175: ")
    assert lines[1].startswith(
        "[2] file 00-inbox/Stripe webhooks.md -> 05-signals/programming/Stripe webhooks.md (0.8"
    )
    assert "; heuristic)" in lines[1]
    assert "triaged 2 signals (1 filed)" in result.stdout
    assert "`vaultctx undo` reverts the whole run" in result.stdout
    assert (indexed.vault / "05-signals/programming/Stripe webhooks.md").exists()
    undone = vaultctx(indexed, env, "undo")
    assert undone.returncode == 0, undone.stderr
    assert files(indexed.vault) == before


def test_dry_run_json_writes_nothing(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    before = files(indexed.vault)
    result = vaultctx(indexed, env, "triage", "--dry-run", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["dry_run"] is True
    assert [s["path"] for s in out["signals"]] == [
        "00-inbox/Banana bread.md",
        "00-inbox/Stripe webhooks.md",
    ]
    assert out["filed"] == 1 and out["kept"] == 1
    assert out["signals"][1]["destination"] == "05-signals/programming/Stripe webhooks.md"
    assert out["record_id"] is None
    assert files(indexed.vault) == before


def test_accept_writes_only_the_chosen_signals(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    bread = (indexed.vault / "00-inbox/Banana bread.md").read_bytes()
    result = vaultctx(indexed, env, "triage", "--accept", "2")
    assert result.returncode == 0, result.stderr
    assert "[2] file 00-inbox/Stripe webhooks.md" in result.stdout
    assert "not accepted, left new for a later run: 1" in result.stdout
    assert (indexed.vault / "00-inbox/Banana bread.md").read_bytes() == bread
    later = vaultctx(indexed, env, "triage", "--dry-run", "--json")
    assert [s["path"] for s in json.loads(later.stdout)["signals"]] == ["00-inbox/Banana bread.md"]
    wrong = vaultctx(indexed, env, "triage", "--accept", "7")
    assert wrong.returncode == 2 and "is not on the list of 1" in wrong.stderr


def test_model_scores_through_the_openai_wire_with_a_garbled_reply(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        # Banana bread.md is scored first: its reply is garbled; Stripe webhooks.md gets JSON.
        fake.queue(Answer("Sorry, I can't rate bread."), Answer("```json\n" + GOOD_JSON + "\n```"))
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "triage", "--json")
        sent = [r for r in fake.requests if r.method == "POST"]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    bread, stripe = out["signals"]
    assert bread["scored_by"] == "heuristic"
    assert "garbled (no JSON object in the reply); scored offline" in bread["notice"]
    assert stripe["scored_by"] == "openai gpt-5.2"
    assert stripe["composite"] == 0.2 and stripe["route"] == "inbox"
    assert len(sent) == 2
    assert "Handling Stripe invoice webhooks" in json.dumps(sent[1].json)
    assert "- Billing service" in json.dumps(sent[1].json)  # the active project went along
    text = (indexed.vault / "00-inbox/Stripe webhooks.md").read_text()
    assert "scored_by: openai gpt-5.2" in text


def test_offline_flag_skips_a_configured_model(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        result = vaultctx(indexed, env, "triage", "--offline", "--dry-run", "--json")
        sent = [r for r in fake.requests if r.method == "POST"]
    assert result.returncode == 0, result.stderr
    assert sent == []
    assert {s["scored_by"] for s in json.loads(result.stdout)["signals"]} == {"heuristic"}


def test_an_unreachable_model_is_one_line_and_nothing_is_written(
    indexed: Indexed, tmp_path: Path
) -> None:
    with OpenAIFake() as fake:
        fake.queue(OpenAIFake.auth_error())
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        before = files(indexed.vault)
        result = vaultctx(indexed, env, "triage")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr
    assert files(indexed.vault) == before


def test_capture_signal_then_triage(indexed: Indexed, tmp_path: Path) -> None:
    env = agent_env(tmp_path, "")
    captured = vaultctx(
        indexed, env, "capture", "--signal", "--source", "https://www.cisa.gov/x", "--json",
        "Patch the invoice service now: upgrade, then run the tests.",
    )  # fmt: skip
    assert captured.returncode == 0, captured.stderr
    path = json.loads(captured.stdout)["path"]
    assert "type: signal" in (indexed.vault / path).read_text()
    result = vaultctx(indexed, env, "triage", "--dry-run", "--json")
    assert path in [s["path"] for s in json.loads(result.stdout)["signals"]]
    clash = vaultctx(indexed, env, "capture", "--signal", "--type", "moc", "x")
    assert clash.returncode == 2 and "contradict" in clash.stderr


def test_triage_fetch_reads_feeds_from_a_local_server(indexed: Indexed, tmp_path: Path) -> None:
    routes = {"/rss": page(RSS.decode(), "application/rss+xml"), "/home": page(NOT_XML.decode())}
    with local_web(routes) as web:
        # Feeds are the user's choice: their own settings file, not the vault's.
        env = agent_env(
            tmp_path, f'[signals]\nfeeds = ["{web.url("/home")}", "{web.url("/rss")}"]\n'
        )
        refused = vaultctx(indexed, env, "signals", "fetch")
        private = vaultctx(
            indexed, env, "signals", "fetch", "--allow-private", "--dry-run", "--json"
        )
        result = vaultctx(indexed, env, "triage", "--fetch", "--allow-host", web.authority)
        again = vaultctx(indexed, env, "signals", "fetch", "--allow-host", web.authority, "--json")
    # Without --allow-host a loopback feed is refused like any private address, and said so.
    assert refused.returncode == 1
    assert refused.stdout.count("feed http://127.0.0.1") == 2
    assert private.returncode == 0, private.stderr
    assert len(json.loads(private.stdout)["created"]) == 2  # --allow-private: the user's choice
    assert result.returncode == 0, result.stderr
    assert f"feed {web.url('/home')}: {web.url('/home')} is not an RSS or Atom feed" in (
        result.stdout
    )
    assert "feed Example Security Blog: take 2 new entries (0 taken before)" in result.stdout
    # Two lines of summary score low offline: scored, marked, kept in the inbox.
    assert "keep 00-inbox/Patch the OpenSSL CVE now.md in the inbox (" in result.stdout
    assert "; security; heuristic)" in result.stdout
    assert again.returncode == 0
    assert json.loads(again.stdout)["created"] == []
    notes = [p for p in files(indexed.vault) if "OpenSSL" in p or "Second post" in p]
    assert len(notes) == 2  # each entry once


def test_clip_signal_lands_in_the_inbox_for_triage(indexed: Indexed, tmp_path: Path) -> None:
    from tests.organize.test_clip_cli import ARTICLE

    env = agent_env(tmp_path, "")
    with local_web({"/wal": page(ARTICLE)}) as web:
        clipped = vaultctx(
            indexed, env, "clip", web.url("/wal"), "--signal", "--no-summary",
            "--allow-host", web.authority, "--json",
        )  # fmt: skip
    assert clipped.returncode == 0, clipped.stderr
    path = json.loads(clipped.stdout)["path"]
    assert path == "00-inbox/WAL mode, explained.md"
    assert "\ntype: signal\n" in (indexed.vault / path).read_text()
    result = vaultctx(indexed, env, "triage", "--dry-run", "--json")
    planned = {s["path"]: s for s in json.loads(result.stdout)["signals"]}
    assert planned[path]["domain"] == "data"  # checkpoints, database


def test_help_shows_the_settings_table_names(tmp_path: Path) -> None:
    """Rich markup would eat "[signals]" unless it is escaped."""
    from tests.cli_in_process import run_vaultctx

    env = {**agent_env(tmp_path, ""), "COLUMNS": "200"}
    for command in (["triage"], ["signals", "fetch"]):
        shown = run_vaultctx([*command, "--help"], env=env)
        assert "the [signals] feeds" in shown.stdout
