"""``vaultctx undo`` and ``vaultctx ledger [show ID]``: output, JSON, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from tests.cli_in_process import run_vaultctx
from tests.conftest import REPO
from tests.ledger.conftest import AGENT
from vaultctx.api import Vault
from vaultctx.cli.main import app


def invoke(vault: Vault, *args: str) -> tuple[int, str]:
    where = ["--vault", str(vault.path), "--db", str(vault.db_path)]
    result = CliRunner().invoke(app, [*args, *where])
    return result.exit_code, result.stdout


def run_cli(vault: Vault, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "src"),
        "XDG_DATA_HOME": str(data_dir.parent),
        "VAULT_PATH": "",
        "DB_PATH": "",
    }
    # In the test process (tests/cli_in_process.py): the one-line errors are the point here;
    # tests/e2e and tests/security/test_ledger_write_ahead.py keep real processes for undo.
    return run_vaultctx([*args, "--vault", str(vault.path), "--db", str(vault.db_path)], env=env)


def test_list_show_and_undo(vault: Vault) -> None:
    assert invoke(vault, "ledger") == (0, "no AI changes recorded\n")
    change = vault.edit_note("Inbox.md", "Nothing links here.", "Now it does.", change=AGENT)
    code, out = invoke(vault, "ledger")
    assert code == 0 and out.startswith(f"{change.record_id}  ") and "test change" in out
    [listed] = json.loads(invoke(vault, "ledger", "--json")[1])
    assert listed["id"] == change.record_id and listed["paths"] == ["Inbox.md"]
    code, out = invoke(vault, "ledger", "show", str(change.record_id))
    assert code == 0 and "-Nothing links here.\n+Now it does.\n" in out
    shown = json.loads(invoke(vault, "ledger", "show", str(change.record_id), "--json")[1])
    assert shown["files"][0]["change"] == "modified"
    code, out = invoke(vault, "undo", "--dry-run")
    assert code == 0 and out.startswith(f"would undo {change.record_id}")
    assert "+Nothing links here." in out
    report = json.loads(invoke(vault, "undo", "--json")[1])
    assert report["dry_run"] is False and report["record"]["id"] == change.record_id
    assert (vault.path / "Inbox.md").read_text().endswith("Nothing links here.\n")


def test_a_label_cannot_reach_the_terminal_as_escape_codes(vault: Vault) -> None:
    from vaultctx.ledger.context import ChangeContext

    vault.append_to_note("Inbox.md", "x", change=ChangeContext("evil \x1b]52;c;aGk=\x07 label"))
    code, out = invoke(vault, "ledger")
    assert code == 0 and "\x1b" not in out and "\x07" not in out


def test_errors_are_one_line_with_exit_2(vault: Vault, data_dir: Path) -> None:
    nothing = run_cli(vault, data_dir, "undo")
    assert nothing.returncode == 2
    assert nothing.stderr.startswith("error: No AI changes have been recorded")
    assert nothing.stderr.count("\n") == 1 and "Traceback" not in nothing.stderr
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    (vault.path / "Inbox.md").write_text("the user's own text\n")
    refused = run_cli(vault, data_dir, "undo")
    assert refused.returncode == 2 and "undo refused: Inbox.md changed" in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert (vault.path / "Inbox.md").read_text() == "the user's own text\n"
    unknown = run_cli(vault, data_dir, "ledger", "show", "deadbeef")
    assert unknown.returncode == 2 and "no change 'deadbeef'" in unknown.stderr
