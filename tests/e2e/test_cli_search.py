"""``vaultctx search`` as a user runs it: a real process over a real index, checked for what the
user sees (exit status, the one error line, the summary)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultctx.api import Vault

CLI = [sys.executable, "-m", "vaultctx"]
NOTES = {
    "Compost.md": "# Compost\n\nTurn the heap weekly; greens and browns in equal parts.\n",
    "Trains.md": "# Trains\n\nThe night train to Vienna leaves at ten and carries bicycles.\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-search")
    for name, text in NOTES.items():
        (root / "vault").mkdir(exist_ok=True)
        (root / "vault" / name).write_text(text, encoding="utf-8")
    with Vault(root / "vault", db=root / "index.db") as handle:
        handle.index(fast=True)
    return root / "vault", root / "index.db"


def vaultctx(indexed: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[str]:
    vault, db = indexed
    return subprocess.run(
        [*CLI, *args, "--vault", str(vault), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "VAULTCTX_DEBUG": "", "COLUMNS": "200"},
    )


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_an_error_not_an_empty_answer(
    indexed: tuple[Path, Path], query: str
) -> None:
    done = vaultctx(indexed, "search", query)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "error: the search query is empty; give the words to look for, e.g. `compost`"
    )


def test_one_result_is_counted_in_the_singular(indexed: tuple[Path, Path]) -> None:
    done = vaultctx(indexed, "search", "vienna", "--mode", "bm25")
    assert done.returncode == 0, done.stderr
    assert "1 result in " in done.stdout and "1 results" not in done.stdout
    both = vaultctx(indexed, "search", "compost vienna", "--mode", "bm25", "--limit", "2")
    assert "2 results in " in both.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--mode", "fuzzy"], "error: unknown mode 'fuzzy'; use one of: hybrid, bm25, vector"),
        (["--fusion", "max"], "error: unknown fusion 'max'; use one of: score, rrf"),
        (["--where", "rating => 5"], "it uses `=>`, which is not an operator"),
        (["--depth", "2"], "error: --depth sets how far --graph follows links; add --graph"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_two(
    indexed: tuple[Path, Path], args: list[str], line: str
) -> None:
    done = vaultctx(indexed, "search", "compost", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and line in done.stderr


def test_help_names_the_fusion_weights_as_they_are() -> None:
    done = subprocess.run(
        [*CLI, "search", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert done.returncode == 0
    assert "RRF weight" not in done.stdout
    assert "Fusion weight of the keyword (BM25) list" in " ".join(done.stdout.split())
