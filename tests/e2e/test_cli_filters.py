"""``vaultctx search`` and ``context`` with --folder, --tag, --where, --since, --until, as a user
runs them, over a real index. In the test process (tests/cli_in_process.py): the filters are
the point here; tests/e2e/test_cli_search.py runs ``search`` as a real process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_vaultctx
from vaultctx.api import Vault

NOTES = {
    "work/Plan.md": "---\nstatus: active\nproject: {phase: 2}\n---\n# Plan\n\nRelease it #ship\n",
    "work/Retro.md": "---\nstatus: done\nproject: {phase: 1}\n---\n# Retro\n\nRelease retro.\n",
    "workshop/Bench.md": "---\nstatus: active\n---\n# Bench\n\nRelease the bench vise.\n",
    "home/Garden.md": "---\nstatus: active\n---\n# Garden\n\nRelease the hose. #ship/later\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-filters")
    vault = root / "vault"
    for path, text in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    handle = Vault(vault, db=root / "index.db")
    handle.index(fast=True)
    unfiltered = handle.search("release", mode="bm25").results
    assert {result.file_path for result in unfiltered} == set(NOTES), "precondition"
    handle.close()
    return vault, root / "index.db"


def vaultctx(indexed: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[str]:
    vault, db = indexed
    return run_vaultctx(
        [*args, "--vault", str(vault), "--db", str(db)], env={**os.environ, "VAULTCTX_DEBUG": ""}
    )


def found(done: subprocess.CompletedProcess[str]) -> set[str]:
    assert done.returncode == 0, done.stderr
    return {result["file_path"] for result in json.loads(done.stdout)["results"]}


def test_search_filters_choose_the_notes(indexed: tuple[Path, Path]) -> None:
    by_folder = vaultctx(indexed, "search", "release", "--folder", "work", "--json")
    assert found(by_folder) == {"work/Plan.md", "work/Retro.md"}, "workshop/ is not work/"
    by_tag_and_where = vaultctx(
        indexed,
        "search",
        "release",
        "--mode",
        "bm25",
        "--tag",
        "#ship",
        "--where",
        "status = active",
        "--where",
        "project.phase >= 2",
        "--json",
    )
    assert found(by_tag_and_where) == {"work/Plan.md"}
    dated = vaultctx(indexed, "search", "release", "--mode", "bm25", "--until", "2000-01-01")
    assert dated.returncode == 0 and "no notes match the filters" in dated.stdout


def test_context_takes_the_same_filters(indexed: tuple[Path, Path]) -> None:
    done = vaultctx(indexed, "context", "release", "--tag", "ship", "--format", "json")
    assert done.returncode == 0, done.stderr
    sources = json.loads(done.stdout)["sources"]
    assert {source.split("#")[0] for source in sources} == {"work/Plan.md", "home/Garden.md"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["search", "release", "--where", "status"],
            "invalid filter condition 'status': it has no operator; expected KEY OP VALUE with "
            "OP one of = != > >= < <= ~",
        ),
        (["search", "release", "--since", "last week"], "'last week' is not an ISO 8601 date"),
        (["search", "release", "--folder", "../elsewhere"], "path refused"),
        (["context", "release", "--where", "rating >"], "has no value after `>`"),
    ],
)
def test_a_bad_filter_is_a_one_line_error(
    indexed: tuple[Path, Path], args: list[str], message: str
) -> None:
    done = vaultctx(indexed, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr + done.stdout


def test_any_tag_keeps_notes_with_one_of_the_tags(indexed: tuple[Path, Path]) -> None:
    tags = ["--tag", "#ship", "--tag", "nowhere"]
    assert found(vaultctx(indexed, "search", "release", *tags, "--json")) == set()
    either = vaultctx(indexed, "search", "release", *tags, "--any-tag", "--json")
    assert found(either) == {"work/Plan.md", "home/Garden.md"}  # ship/later is nested
    context = vaultctx(indexed, "context", "release", *tags, "--any-tag")
    assert context.returncode == 0, context.stderr
    assert "Plan" in context.stdout and "Bench" not in context.stdout
