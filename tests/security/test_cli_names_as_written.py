"""A folder's or a note's name is never terminal markup, and a line naming one is never cut.

Names come from the vault (synced, cloned, unzipped), so ``[link=https://…]`` in a folder name is
input like any other. Rich reads ``[...]`` as markup unless told not to: a path shown through it
lost its brackets (``vault [x]`` became ``vault``) and, on a terminal, ``[link=…]`` became a
link hidden behind the text. And when stdout is not a terminal rich wraps at 80 columns, so
a script reading ``skipped <path>: …`` or ``captured <path>`` got the path in two pieces.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_in_process import run_vaultctx
from tests.conftest import copy_example_vault

HOSTILE = "[link=mailto:x@evil.example]folder [x] [bold]"  # no "/": a name cannot hold one
OSC_8 = "\x1b]8;"  # a terminal hyperlink


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The vault, indexed once, and what that index run printed on stderr."""
    root = tmp_path_factory.mktemp("names") / f"vault {HOSTILE}"
    copy_example_vault(root)
    board = root / HOSTILE / ("a kanban board with a name long enough to wrap " * 2 + ".md")
    board.parent.mkdir()
    board.write_text("---\nkanban-plugin: basic\n---\n## Todo\n- [ ] thing\n", encoding="utf-8")
    return root, vaultctx(root, "index", "--fast")[1]


@pytest.fixture
def vault(indexed: tuple[Path, str]) -> Path:
    return indexed[0]


def vaultctx(vault: Path, *args: str, **env: str) -> tuple[str, str]:
    done = run_vaultctx(
        [*args, "--vault", str(vault), "--db", str(vault.parent / "index.db")],
        env={**os.environ, "VAULTCTX_ENGINE": "off", **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_index_names_a_skipped_note_whole_on_one_line(indexed: tuple[Path, str]) -> None:
    vault, stderr = indexed
    board = next((vault / HOSTILE).iterdir()).relative_to(vault).as_posix()
    assert len(board) > 80
    assert any(line.startswith(f"skipped {board}: kanban board") for line in stderr.splitlines())


def test_status_shows_the_vault_folder_as_named(vault: Path) -> None:
    stdout, _ = vaultctx(vault, "status", COLUMNS="400")
    [row] = [line for line in stdout.splitlines() if line.strip().startswith("vault ")]
    assert row.split(None, 1)[1].rstrip() == str(vault)


def test_status_on_a_terminal_makes_no_hidden_link(vault: Path) -> None:
    stdout, _ = vaultctx(vault, "status", COLUMNS="400", FORCE_COLOR="1", TERM="xterm-256color")
    assert "\x1b[" in stdout, "precondition: styled as on a terminal"
    assert OSC_8 not in stdout
    assert "[link=mailto:x@evil.example]folder [x] [bold]" in stdout  # shown as text


def test_capture_names_the_new_note_whole_on_one_line(vault: Path) -> None:
    stdout, _ = vaultctx(vault, "capture", "a kumquat thought", "--title", "x" * 70 + " [y]")
    [line] = stdout.splitlines()  # the title's brackets go (capture names files safely)
    assert line == f"captured 00-inbox/{'x' * 70} y.md (indexed)"
    listed = json.loads(vaultctx(vault, "status", "--json")[0])
    assert listed["vault"] == str(vault)


def test_a_question_that_finds_nothing_is_repeated_as_typed(vault: Path) -> None:
    stdout, _ = vaultctx(vault, "search", "[red]zzqx[/red]", "--mode", "bm25")
    assert stdout == "no results for '[red]zzqx[/red]'; try broader or different words\n"
