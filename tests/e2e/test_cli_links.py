"""``vaultctx links``: outlinks, backlinks and broken links of a real indexed vault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vaultctx.api import Vault
from vaultctx.cli.main import app
from vaultctx.errors import VaultctxError

CLI = [sys.executable, "-m", "vaultctx"]

NOTES = {
    "Home.md": "# Home\n\nStart with [[Projects/Alpha plan|the plan]] and [[Ideas]].\n",
    "Projects/Alpha plan.md": "---\naliases: [Alpha]\n---\n# Alpha plan\n\n"
    "Goals are in [[Ideas#Goals]], the diagram is ![[diagram.png]].\n"
    "Also [[Missing note]] and ![[lost.png]].\n",
    "Ideas.md": "# Ideas\n\n## Goals\n\nBack to [[alpha]] (alias) and [home](Home.md).\n"
    "See [the notes](Old%20notes/Meeting%20notes.md#Decisions).\n",
    "Old notes/Meeting notes.md": "# Meeting notes\n\n## Decisions\n\n[[Ideas#^missing-block]]\n"
    "[[Nowhere|somewhere]]\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("links")
    vault = root / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "assets").mkdir()
    (vault / "assets" / "diagram.png").write_bytes(b"\x89PNG")
    db = root / "index.db"
    Vault(vault, db=db).index(fast=True)
    return vault, db


def run(indexed: tuple[Path, Path], *args: str) -> str:
    vault, db = indexed
    result = CliRunner().invoke(app, ["links", *args, "--vault", str(vault), "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result.output


def test_outlinks_and_backlinks_with_lines(indexed: tuple[Path, Path]) -> None:
    data = json.loads(run(indexed, "Alpha", "--json"))  # found by its alias
    assert (data["path"], data["title"]) == ("Projects/Alpha plan.md", "Alpha plan")
    assert [
        (o["target"], o["heading"], o["kind"], o["line"], o["resolved"]) for o in data["outlinks"]
    ] == [
        ("Ideas", "Goals", "wikilink", 6, "Ideas.md"),
        ("diagram.png", None, "embed", 6, "assets/diagram.png"),
        ("Missing note", None, "wikilink", 7, None),
        ("lost.png", None, "embed", 7, None),
    ]
    assert [(b["source"], b["line"], b["target"]) for b in data["backlinks"]] == [
        ("Home.md", 3, "Projects/Alpha plan"),
        ("Ideas.md", 5, "alpha"),
    ]


def test_markdown_links_url_encoded_and_relative(indexed: tuple[Path, Path]) -> None:
    data = json.loads(run(indexed, "Old notes/Meeting notes.md", "--json"))
    [backlink] = data["backlinks"]
    assert (backlink["source"], backlink["kind"], backlink["heading"]) == (
        "Ideas.md",
        "markdown",
        "Decisions",
    )
    home = json.loads(run(indexed, "home", "--json"))  # by name, case-insensitive
    assert {b["source"] for b in home["backlinks"]} == {"Ideas.md"}


def test_human_output_names_lines_and_targets(indexed: tuple[Path, Path]) -> None:
    text = run(indexed, "Ideas")
    assert "Outlinks (3):" in text and "Backlinks (3):" in text
    assert "[[alpha]] → Projects/Alpha plan.md" in text
    assert "Projects/Alpha plan.md:6  [[Ideas#Goals]]" in text


def test_broken_links_by_note(indexed: tuple[Path, Path]) -> None:
    data = json.loads(run(indexed, "--broken", "--json"))
    assert [(b["source"], b["line"], b["target"]) for b in data["broken"]] == [
        ("Old notes/Meeting notes.md", 6, "Nowhere"),
        ("Projects/Alpha plan.md", 7, "Missing note"),
        ("Projects/Alpha plan.md", 7, "lost.png"),
    ]
    assert data["count"] == 3
    text = run(indexed, "--broken")
    assert "Projects/Alpha plan.md\n  line    7  [[Missing note]]" in text
    assert "![[lost.png]]" in text and "[[Nowhere|somewhere]]" in text
    assert "3 broken links in 2 notes" in text


@pytest.mark.parametrize("args", [[], ["Home", "--broken"]])
def test_exactly_one_of_note_or_broken(indexed: tuple[Path, Path], args: list[str]) -> None:
    vault, db = indexed
    result = CliRunner().invoke(app, ["links", *args, "--vault", str(vault), "--db", str(db)])
    assert isinstance(result.exception, VaultctxError)
    assert "exactly one" in result.exception.suggestion


def test_a_missing_note_is_one_clear_line(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    done = subprocess.run(
        [*CLI, "links", "No such note", "--vault", str(vault), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: no note 'No such note' in the index")
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_search_and_context_take_graph_and_depth(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    where = ["--vault", str(vault), "--db", str(db)]
    result = CliRunner().invoke(
        app, ["search", "alpha plan goals", "--graph", "--depth", "2", "--json", *where]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    roles = {r["graph"]["role"] for r in data["results"] if r["graph"]}
    assert "seed" in roles and "related_mocs" in data
    human = CliRunner().invoke(app, ["search", "alpha plan goals", "--graph", *where])
    assert human.exit_code == 0 and "graph seed" in human.output
    context = CliRunner().invoke(app, ["context", "alpha plan", "--graph", "--depth", "0", *where])
    assert context.exit_code == 0 and "## Context from my notes" in context.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--depth", "2"], "--depth sets how far --graph follows links; add --graph"),
        (["--graph", "--depth", "4"], "Invalid value for '--depth'"),
    ],
)
def test_depth_errors_are_clear(indexed: tuple[Path, Path], args: list[str], message: str) -> None:
    vault, db = indexed
    done = subprocess.run(
        [*CLI, "search", "alpha", *args, "--vault", str(vault), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr
