"""The bundled Korean example vault as a user meets it: `vaultctx index` with defaults, then an
English question through `vaultctx search` finds the Korean note; `vaultctx status` names the
vault's languages and what gives them meaning search. The first `index` is a real process;
the rest run in the test process (tests/cli_in_process.py), where the models stay loaded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import run_vaultctx
from vaultctx.embed.registry import create_multilingual_embedder

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vault-ko"
CLI = [sys.executable, "-m", "vaultctx"]


def _run(root: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    words = [*args, "--vault", str(root / "vault"), "--db", str(root / "index.db")]
    env = {**os.environ, "VAULTCTX_DEBUG": "", "COLUMNS": "200"}
    if not process:
        return run_vaultctx(words, env=env)
    return subprocess.run([*CLI, *words], capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if create_multilingual_embedder("auto") is None:
        pytest.skip("no multilingual engine installed")
    root = tmp_path_factory.mktemp("vault-ko")
    shutil.copytree(EXAMPLE, root / "vault")
    done = _run(root, "index", process=True)
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("how do I clean a bicycle chain", "자전거 정비.md"),
        ("making compost from kitchen scraps", "퇴비 만들기.md"),
        ("tips for sleeping better at night", "잠 잘 자기.md"),
    ],
)
def test_an_english_question_finds_the_korean_note(indexed: Path, question: str, note: str) -> None:
    done = _run(indexed, "search", question, "--json", "--limit", "3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["file_path"] == note


def test_status_says_meaning_search_covers_korean(indexed: Path) -> None:
    done = _run(indexed, "status", "--json")
    status = json.loads(done.stdout)
    assert status["languages"] == {"ko": 1.0}
    assert status["meaning_search"].startswith("Korean 100 % — meaning search covers it (")
    assert status["language_note"] is None
    shown = _run(indexed, "status").stdout
    assert "languages" in shown and "meaning search covers it" in shown


def test_status_says_when_korean_has_keyword_search_only(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "vault")
    (tmp_path / "vault" / "vaultctx.toml").write_text('multilingual_engine = ""\n')
    assert _run(tmp_path, "index", "--fast").returncode == 0
    status = json.loads(_run(tmp_path, "status", "--json").stdout)
    assert status["meaning_search"].startswith("Korean 100 % — Korean: keyword (BM25) search only")
    assert "multilingual_engine" in status["meaning_search"]
