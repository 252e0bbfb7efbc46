"""The index report says which files held secrets, and what kinds, but never a secret itself
(docs/security.md, "Secrets"): not in the summary line, not per file, not in ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultctx.cli.main import app

# Random-looking shapes the scrubber knows, so no placeholder rule spares them.
AWS = "AKIAZ7VRSQ5TJN2UEXAM"
GITHUB = "ghp_" + "x9K2mQ7vL4pR8sT1wY6zB3nD5fH0jC2aE7gU"
SLACK = "xoxb-" + "2048137561-4096283745-Xq7RmT2vLp9KwZ4sNb8YdC3F"
VALUES = (AWS, GITHUB, SLACK)

NOTES = {
    "ops/deploy.md": f"# Deploy\n\nThe CI key is {AWS} and the bot uses {SLACK}.\n\n"
    f"Old key, rotated: {AWS}.\n",
    "ops/github.md": f"# GitHub\n\nA token pasted by mistake: {GITHUB}\n",
    "clean.md": "# Clean\n\nNothing to hide here, only compost and tomatoes.\n",
    # Only in the front matter, once as a property and once as an alias.
    "ops/bot.md": f"---\nslack_token: {SLACK}\naliases: [{GITHUB}]\n---\n# Bot\n\nThe bot.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("secrets-report") / "vault"
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _index(vault: Path, db: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        app, ["index", "--fast", "--vault", str(vault), "--db", str(db), *extra]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _assert_no_value(output: str) -> None:
    for value in VALUES:
        # Not the whole value, nor any telling piece of it (a report that printed half a key
        # would leak it as surely).
        pieces = {value[i : i + 8] for i in range(len(value) - 7)}
        assert not [piece for piece in pieces if piece in output], value


def test_json_lists_each_file_with_kinds_and_counts_and_no_value(
    vault: Path, tmp_path: Path
) -> None:
    output = _index(vault, tmp_path / "index.db", "--json")
    _assert_no_value(output)
    summary = json.loads(output)
    by_file = {entry["path"]: entry["secrets"] for entry in summary["secrets_by_file"]}
    assert set(by_file) == {"ops/deploy.md", "ops/github.md", "ops/bot.md"}  # not the clean one
    assert sum(by_file["ops/deploy.md"].values()) == 3
    assert len(by_file["ops/deploy.md"]) == 2  # two kinds: the AWS key (twice) and Slack's
    assert sum(by_file["ops/github.md"].values()) == 1
    assert sum(by_file["ops/bot.md"].values()) == 2  # front matter, each value counted once
    totals: dict[str, int] = {}
    for counts in by_file.values():
        for kind, count in counts.items():
            totals[kind] = totals.get(kind, 0) + count
    assert totals == summary["secrets_redacted"]


def test_the_human_report_names_the_files_and_no_value(vault: Path, tmp_path: Path) -> None:
    output = _index(vault, tmp_path / "index.db")
    _assert_no_value(output)
    assert "secrets redacted before storing" in output
    lines = [line.strip() for line in output.splitlines() if line.strip().startswith("in ")]
    expected = ["in ops/bot.md", "in ops/deploy.md", "in ops/github.md"]
    assert [line.split(":")[0] for line in lines] == expected
    assert "×2" in lines[1]  # the AWS key, twice


def test_an_unchanged_rerun_lists_no_file(vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    _index(vault, db)
    again = json.loads(_index(vault, db, "--json"))
    assert again["secrets_by_file"] == []
