"""``run_triage`` on a real vault and index: scores written, routes taken, one ledger record,
undo, dry runs, collisions, bad notes, and model replies (scripted ``TextModel``s)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.signals.support import GOOD_SIGNAL, WEAK_SIGNAL, files, signal_vault
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.signals.triage import run_triage
from vaultctx.vault.note import split_front_matter

NOW = dt.datetime(2026, 12, 1, 10, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def indexed(tmp_path: Path, extra: dict[str, str] | None = None) -> Vault:
    vault = Vault(signal_vault(tmp_path / "vault", extra), db=tmp_path / "index.db")
    vault.index(fast=True)
    return vault


def front(vault: Vault, path: str) -> dict[str, object]:
    return split_front_matter((vault.path / path).read_text(encoding="utf-8"))[0]


def test_a_run_files_the_strong_signal_keeps_the_weak_one_and_records_once(
    tmp_path: Path,
) -> None:
    vault = indexed(tmp_path)
    run = run_triage(vault, now=NOW)
    by_path = {item.path: item for item in run.plan.items}
    assert set(by_path) == {"00-inbox/Stripe webhooks.md", "00-inbox/Banana bread.md"}
    strong, weak = by_path["00-inbox/Stripe webhooks.md"], by_path["00-inbox/Banana bread.md"]
    assert strong.scores.composite >= 0.55 > weak.scores.composite
    # The heuristic's numbers on these fixed notes (docs/signals.md gives each formula).
    assert (strong.scores.actionability, strong.scores.depth, strong.scores.authority) == (
        1.0,
        0.728,
        0.9,
    )
    assert strong.scores.relevance == pytest.approx(0.677, abs=0.01)
    assert strong.scores.domain == "programming"  # python, library
    assert (weak.scores.relevance, weak.scores.actionability, weak.scores.authority) == (
        0.0,
        0.0,
        0.2,
    )
    assert strong.destination == f"05-signals/{strong.scores.domain}/Stripe webhooks.md"
    assert weak.destination is None and weak.route == "inbox"
    assert not (vault.path / "00-inbox/Stripe webhooks.md").exists()
    filed = front(vault, strong.destination)
    triage = filed["triage"]
    assert isinstance(triage, dict)
    assert triage["composite"] == strong.scores.composite
    assert triage["route"] == f"05-signals/{strong.scores.domain}"
    assert triage["scored_by"] == "heuristic"
    assert triage["triaged_at"] == "2026-12-01T10:00:00+00:00"
    assert filed["source"] == "https://docs.stripe.com/billing/webhooks"  # the rest kept
    kept = front(vault, "00-inbox/Banana bread.md")["triage"]
    assert isinstance(kept, dict) and kept["route"] == "inbox"
    # The note's own text is untouched around the new key.
    text = (vault.path / strong.destination).read_text(encoding="utf-8")
    assert text.replace(text[text.index("triage:") : text.index("---\n# Handling")], "") == (
        GOOD_SIGNAL
    )
    assert run.record_id is not None
    assert [record.id for record in vault.ledger()] == [run.record_id]
    assert (vault.path / "00-inbox/Plain note.md").read_text().startswith("---\ntype: note")


def test_a_second_run_finds_nothing_new(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    run_triage(vault, now=NOW)
    before = files(vault.path)
    again = run_triage(vault, now=NOW)
    assert again.plan.items == []
    assert again.plan.already_triaged == 1  # the weak one, still in the inbox
    assert again.record_id is None
    assert files(vault.path) == before


def test_undo_reverts_the_whole_run(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    before = files(vault.path)
    run_triage(vault, now=NOW)
    assert files(vault.path) != before
    vault.undo()
    assert files(vault.path) == before
    assert not (vault.path / "05-signals").exists()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    before = files(vault.path)
    run = run_triage(vault, dry_run=True, now=NOW)
    assert run.dry_run and len(run.plan.items) == 2
    assert any(item.destination for item in run.plan.items)
    assert files(vault.path) == before
    assert vault.ledger() == []


def test_taken_names_are_numbered(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    plan = run_triage(vault, dry_run=True).plan
    domain = next(item.scores.domain for item in plan.items if item.destination)
    taken = {
        f"05-signals/{domain}/Stripe webhooks.md": "mine\n",
        f"05-signals/{domain}/Stripe webhooks 2.md": "mine too\n",
    }
    for path, text in taken.items():
        (vault.path / path).parent.mkdir(parents=True, exist_ok=True)
        (vault.path / path).write_text(text)
    run = run_triage(vault, now=NOW)
    assert f"05-signals/{domain}/Stripe webhooks 3.md" in run.written
    for path, text in taken.items():
        assert (vault.path / path).read_text() == text


def test_malformed_front_matter_is_reported_and_left_alone(tmp_path: Path) -> None:
    broken = "---\ntype: signal\ntags: [unclosed\n---\nA signal with broken YAML.\n"
    vault = indexed(tmp_path, {"00-inbox/Broken.md": broken})
    run = run_triage(vault, now=NOW)
    assert any(s.startswith("00-inbox/Broken.md: front matter is not valid YAML") for s in
               run.as_dict()["skipped"])  # fmt: skip
    assert (vault.path / "00-inbox/Broken.md").read_text() == broken
    assert len(run.written) == 2


def test_a_signal_changed_between_plan_and_apply_is_re_read(tmp_path: Path) -> None:
    import asyncio

    from vaultctx.signals.settings import load_signal_settings
    from vaultctx.signals.triage import apply_triage, plan_triage

    vault = indexed(tmp_path)
    plan = asyncio.run(plan_triage(vault, load_signal_settings(vault.path)))
    weak = vault.path / "00-inbox/Banana bread.md"
    weak.write_text(WEAK_SIGNAL + "\nA line the user added meanwhile.\n")
    run = apply_triage(vault, plan, now=NOW)
    assert "A line the user added meanwhile." in weak.read_text()
    assert "triage:" in weak.read_text()
    assert "00-inbox/Banana bread.md" in run.written


def test_signals_in_a_configured_inbox_and_folder(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    (vault.path / "vaultctx.toml").write_text(
        '[signals]\ninbox = "Feeds"\nfolder = "Signals"\n', encoding="utf-8"
    )
    (vault.path / "Feeds").mkdir()
    (vault.path / "00-inbox/Stripe webhooks.md").rename(vault.path / "Feeds/Stripe webhooks.md")
    run = run_triage(vault, now=NOW)
    assert [item.path for item in run.plan.items] == ["Feeds/Stripe webhooks.md"]
    assert run.written[0].startswith("Signals/")


class Scripted:
    """A TextModel answering from a list, one reply per call."""

    name = "scripted gpt"

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        self.prompts.append(prompt)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


def test_model_scores_are_used_and_a_garbled_reply_falls_back_with_a_notice(
    tmp_path: Path,
) -> None:
    vault = indexed(tmp_path)
    model = Scripted(
        "I think this is about bread.",  # Banana bread.md comes first (by name)
        '{"relevance": 0.6, "actionability": 0.6, "depth": 0.6, "authority": 0.6, '
        '"domain": "security"}',
    )
    run = run_triage(vault, model=model, now=NOW)
    by_path = {item.path: item for item in run.plan.items}
    bread, stripe = by_path["00-inbox/Banana bread.md"], by_path["00-inbox/Stripe webhooks.md"]
    assert bread.scores.scored_by == "heuristic"
    assert bread.notice is not None and "garbled (no JSON object in the reply)" in bread.notice
    assert bread.scores.composite > 0  # the heuristic's numbers, not zeros
    assert stripe.scores.scored_by == "scripted gpt"
    assert stripe.scores.composite == 0.6
    assert stripe.destination == "05-signals/security/Stripe webhooks.md"
    assert "Billing service" in model.prompts[0]  # the active projects go with the question
    assert front(vault, "05-signals/security/Stripe webhooks.md")["triage"]["scored_by"] == (  # type: ignore[index]
        "scripted gpt"
    )


def test_a_backend_failure_stops_the_run_before_anything_is_written(tmp_path: Path) -> None:
    vault = indexed(tmp_path)
    before = files(vault.path)
    failure = VaultctxError("the backend cannot be reached", "start it")
    with pytest.raises(VaultctxError, match="cannot be reached"):
        run_triage(vault, model=Scripted(failure), now=NOW)
    assert files(vault.path) == before
    assert vault.ledger() == []


def test_without_an_index_relevance_is_neutral_and_said_so(tmp_path: Path) -> None:
    vault = Vault(signal_vault(tmp_path / "vault"), db=tmp_path / "none.db")
    run = run_triage(vault, dry_run=True)
    assert all(item.scores.relevance == 0.5 for item in run.plan.items)
    assert any("relevance is neutral" in notice for notice in run.plan.notices)


def test_a_move_that_fails_leaves_the_signal_as_it_was_and_new(tmp_path: Path) -> None:
    # Changes never go where .indexignore excludes: filing fails after the scores are written.
    vault = indexed(tmp_path, {".indexignore": "05-signals/\n"})
    strong = vault.path / "00-inbox/Stripe webhooks.md"
    before = strong.read_bytes()
    run = run_triage(vault, now=NOW)
    assert strong.read_bytes() == before
    assert any(s.startswith("00-inbox/Stripe webhooks.md: not filed (") for s in run.skipped)
    assert run.written == ["00-inbox/Banana bread.md"]
    again = run_triage(vault, dry_run=True)
    assert [item.path for item in again.plan.items] == ["00-inbox/Stripe webhooks.md"]
    vault.undo()
    assert "triage" not in (vault.path / "00-inbox/Banana bread.md").read_text()


def test_a_crlf_signal_with_a_byte_order_mark_keeps_both(tmp_path: Path) -> None:
    windows = "\ufeff" + WEAK_SIGNAL.replace("\n", "\r\n")
    vault = indexed(tmp_path, {"00-inbox/Windows.md": ""})
    (vault.path / "00-inbox/Windows.md").write_bytes(windows.encode("utf-8"))
    run = run_triage(vault, now=NOW)
    assert "00-inbox/Windows.md" in run.written
    data = (vault.path / "00-inbox/Windows.md").read_bytes().decode("utf-8")
    assert data.startswith("\ufeff---\r\ntype: signal\r\n")
    assert "\r\ntriage:\r\n  relevance: " in data
    assert "\n" not in data.replace("\r\n", "")
    assert data.endswith("Nice picture.\r\n")


def test_a_project_written_after_the_last_index_run_counts(tmp_path: Path) -> None:
    vault = Vault(signal_vault(tmp_path / "vault"), db=tmp_path / "index.db")
    (vault.path / "01-projects/Billing service.md").rename(tmp_path / "away.md")
    vault.index(fast=True)
    without = run_triage(vault, dry_run=True).plan
    (tmp_path / "away.md").rename(vault.path / "01-projects/Billing service.md")
    with_project = run_triage(vault, dry_run=True).plan  # no `vaultctx index` in between
    assert any("no active project notes" in notice for notice in without.notices)
    assert not any("no active project" in notice for notice in with_project.notices)
    stripe = next(i for i in with_project.items if i.path.endswith("Stripe webhooks.md"))
    assert stripe.scores.relevance > 0.5


def test_an_unreadable_inbox_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = indexed(tmp_path)

    def refuse(path: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("vaultctx.signals.inbox.scandir", refuse)  # this module's only
    run = run_triage(vault, dry_run=True)
    assert run.plan.items == []
    assert "00-inbox/: cannot be read (Permission denied); no signal was triaged" in (
        run.plan.skipped
    )
