"""``vaultctx verify-citations FILE|-``: readable and JSON reports, exit codes, bad input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.test_citations import IndexedVault, make_indexed_vault
from vaultctx.cli.main import app, run

ANSWER = """The plan is in [[Alpha#Plan]] and the rollback in Billing service.md#Rollback plan.

Risks: [[Alpha#Riskz]] (see also `[[Code#Span]]`).
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> IndexedVault:
    return make_indexed_vault(tmp_path_factory.mktemp("verify-cli"))


def options(indexed: IndexedVault) -> list[str]:
    return ["--vault", str(indexed.vault), "--db", str(indexed.db)]


def invoke(indexed: IndexedVault, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify-citations", *args, *options(indexed)], input=stdin)
    return result.exit_code, result.stdout


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The real command in its own process, reading a real pipe."""
    env = {**os.environ, "VAULT_PATH": "", "DB_PATH": ""}
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", "verify-citations", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_readable_report_names_place_reason_and_suggestion(
    indexed: IndexedVault, tmp_path: Path
) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER, encoding="utf-8")
    code, output = invoke(indexed, str(answer))
    assert code == 1
    assert "3 citations checked, 1 do not resolve" in output
    assert f"{answer}:3:8  [[Alpha#Riskz]]" in output
    assert "no such heading: projects/Alpha.md has no heading 'Riskz'" in output
    assert "did you mean the heading `Risks`?" in output
    assert "Code#Span" not in output


def test_json_from_stdin(indexed: IndexedVault) -> None:
    code, output = invoke(indexed, "-", "--json", stdin=ANSWER)
    assert code == 1
    report = json.loads(output)
    assert report == {
        "checked": 3,
        "ok": False,
        "unresolved": [
            {
                "citation": "[[Alpha#Riskz]]",
                "line": 3,
                "column": 8,
                "reason": "no_such_heading",
                "message": "projects/Alpha.md has no heading 'Riskz'",
                "suggestion": "did you mean the heading `Risks`?",
                "note": "projects/Alpha.md",
            }
        ],
    }


def test_all_resolved_exits_zero(indexed: IndexedVault) -> None:
    code, output = invoke(indexed, "-", stdin="See [[Alpha#Plan]] and [[Start here]].")
    assert (code, output.strip()) == (0, "✓ 2 citations checked, all resolve")
    code, output = invoke(indexed, "-", "--json", stdin="No sources.")
    assert (code, json.loads(output)) == (0, {"checked": 0, "unresolved": [], "ok": True})


def test_a_vault_note_resolves_its_own_heading_links(indexed: IndexedVault) -> None:
    note = indexed.vault / "projects" / "Gamma.md"
    note.write_text("# Gamma\n\n## Own heading\n\nSee [[#Own heading]].\n", encoding="utf-8")
    try:
        assert invoke(indexed, str(note))[0] == 0
    finally:
        note.unlink()


def test_stdin_and_exit_codes_in_a_real_process(indexed: IndexedVault) -> None:
    done = run_cli("-", "--json", *options(indexed), stdin=ANSWER)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["checked"] == 3
    done = run_cli("-", *options(indexed), stdin="[[Alpha]]")
    assert done.returncode == 0, done.stderr


def run_entry_point(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[object, str]:
    """The console script's ``run()`` in this process: (exit code, stderr)."""
    monkeypatch.setattr(sys, "argv", ["vaultctx", "verify-citations", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO("[[Alpha]]"))
    monkeypatch.delenv("VAULT_PATH", raising=False)
    monkeypatch.delenv("DB_PATH", raising=False)
    with pytest.raises(SystemExit) as exited:
        run()
    return exited.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["{root}/missing.md", "--vault", "{root}", "--db", "{db}"],
            "cannot read {root}/missing.md (No such file or directory); pass a text file, "
            "or - to read standard input",
        ),
        (["{root}", "--vault", "{root}", "--db", "{db}"], "cannot read {root} (Is a directory)"),
        (
            ["-", "--vault", "{root}", "--db", "{root}-none.db"],
            "no index at {root}-none.db; run `vaultctx index",
        ),
        (["-", "--vault", "{root}/nowhere", "--db", "{db}"], "vault folder not found"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(
    indexed: IndexedVault,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    filled = [arg.format(root=tmp_path, db=indexed.db) for arg in args]
    code, stderr = run_entry_point(monkeypatch, capsys, *filled)
    assert code == 2
    assert message.format(root=tmp_path) in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


def test_text_that_is_not_utf8_is_refused(
    indexed: IndexedVault,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    latin = tmp_path / "latin1.md"
    latin.write_bytes("caf\xe9 [[Alpha]]".encode("latin-1"))
    code, stderr = run_entry_point(monkeypatch, capsys, str(latin), *options(indexed))
    assert code == 2
    assert "is not UTF-8 text" in stderr
