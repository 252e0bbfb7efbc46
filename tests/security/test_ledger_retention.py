"""The ledger keeps by age, not count: one turn of many small changes cannot push the user's text
out of reach; ``undo ID`` reaches any kept record whose files no later record touched; a file
already back in its before-state does not block an undo; ``ledger drop`` discards a record that
cannot apply."""

from __future__ import annotations

import json
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, NOTES, isolate_data_dir, tree
from tests.ledger.test_cli import run_cli
from vaultctx.api import Vault
from vaultctx.config import ConfigError
from vaultctx.ledger.undo import UndoConflictError, UndoDependencyError

DAY = 86_400.0


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    monkeypatch.setattr(platformdirs, "user_config_dir", lambda name: str(config / name))
    return isolate_data_dir(tmp_path / "data", monkeypatch)


@pytest.fixture
def vault(tmp_path: Path, data_dir: Path) -> Vault:
    return Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")


def user_settings(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "config" / "vaultctx"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vaultctx.toml").write_text(text)


def age(vault: Vault, days: float) -> None:
    """Make every record so far ``days`` older."""
    for path in (vault.ledger_store().folder / "records").glob("*.json"):
        raw = json.loads(path.read_text())
        raw["created_at"] -= days * DAY
        path.write_text(json.dumps(raw))


def test_one_turn_of_many_changes_cannot_push_the_users_text_out_of_reach(vault: Vault) -> None:
    original = (vault.path / "Inbox.md").read_bytes()
    replaced = vault.replace_note("Inbox.md", "# gone\n", change=AGENT)
    for number in range(25):
        vault.append_to_note("10-projects/Budget.md", f"trivial {number}", change=AGENT)
    assert replaced.record_id in [record.id for record in vault.ledger(limit=None)]
    report = vault.undo(replaced.record_id)  # later records touched other files only
    assert report.record.id == replaced.record_id
    assert (vault.path / "Inbox.md").read_bytes() == original


def test_undo_id_refuses_while_a_later_record_touched_the_same_files(vault: Vault) -> None:
    original = tree(vault.path)
    first = vault.append_to_note("Inbox.md", "one", change=AGENT)
    second = vault.append_to_note("Inbox.md", "two", change=AGENT)
    with pytest.raises(UndoDependencyError) as refused:
        vault.undo(first.record_id)
    assert refused.value.later == [second.record_id]
    vault.undo(second.record_id)
    vault.undo(first.record_id)
    assert tree(vault.path) == original


def test_records_younger_than_the_window_are_kept_and_older_ones_go_beyond_twenty(
    vault: Vault,
) -> None:
    for number in range(25):
        vault.append_to_note("Inbox.md", f"old {number}", change=AGENT)
    age(vault, 8)
    newest = vault.append_to_note("Inbox.md", "today", change=AGENT)
    kept = vault.ledger(limit=None)
    assert len(kept) == 21 and kept[0].id == newest.record_id  # 20 old ones and today's


def test_the_size_cap_drops_only_old_records_and_says_so(vault: Vault, tmp_path: Path) -> None:
    user_settings(tmp_path, "ledger_max_mb = 0\n")
    capped = Vault(vault.path, db=vault.db_path)
    vault.append_to_note("Inbox.md", "old", change=AGENT)
    age(vault, 8)
    young = capped.append_to_note("Inbox.md", "young", change=AGENT)
    assert any("dropped its 1 oldest change" in notice for notice in young.notices)
    assert any("changes of the last 7 days are kept anyway" in n for n in young.notices)
    younger = capped.append_to_note("Inbox.md", "younger", change=AGENT)
    assert [r.id for r in capped.ledger()] == [younger.record_id, young.record_id]


def test_the_window_is_the_users_setting_never_the_vaults(vault: Vault, tmp_path: Path) -> None:
    (vault.path / "vaultctx.toml").write_text("ledger_keep_days = 0\n")
    with pytest.raises(ConfigError, match="only your own settings file"):
        Vault(vault.path, db=vault.db_path)
    (vault.path / "vaultctx.toml").unlink()
    user_settings(tmp_path, "ledger_keep_days = 30\n")
    assert Vault(vault.path, db=vault.db_path).ledger_store().keep_days == 30


def test_a_created_note_the_user_deleted_is_undone_and_older_records_stay_reachable(
    vault: Vault,
) -> None:
    original = tree(vault.path)
    vault.append_to_note("Inbox.md", "older", change=AGENT)
    vault.create_note("drafts/Idea.md", "# Idea\n", change=AGENT)
    (vault.path / "drafts/Idea.md").unlink()  # the user deletes it by hand
    report = vault.undo()
    assert any("already as before the change" in notice for notice in report.notices)
    vault.undo()
    assert tree(vault.path) == original


def test_ledger_drop_discards_a_record_that_cannot_apply_and_shows_its_diff(
    vault: Vault, data_dir: Path
) -> None:
    change = vault.edit_note("Inbox.md", "Nothing links here.", "The AI wrote.", change=AGENT)
    (vault.path / "Inbox.md").write_text("# Inbox\n\nThe user rewrote it all.\n")
    with pytest.raises(UndoConflictError):
        vault.undo()
    dropped = run_cli(vault, data_dir, "ledger", "drop", str(change.record_id))
    assert dropped.returncode == 0, dropped.stderr
    assert f"dropped {change.record_id}" in dropped.stdout
    assert "-Nothing links here.\n+The AI wrote." in dropped.stdout
    assert vault.ledger() == []
    assert (vault.path / "Inbox.md").read_text() == "# Inbox\n\nThe user rewrote it all.\n"
