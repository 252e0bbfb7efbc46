"""A hostile note costs one note, never the run: it is indexed (as text, with its problem
reported) within a bounded time, and the note after it is indexed too.

Each case runs ``vaultctx index`` as its own process with a deadline: the code these tests guard
against hung for minutes inside a regex or libyaml, where no signal reaches Python, so only a
separate process can turn a hang into a failure. The vault and the index are real.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.index.test_watch import read_line
from tests.mcp.conftest import subprocess_env
from vaultctx.index.db import open_index
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import Retriever

# Every case below takes about a second; the deadline only has to tell that from a hang (the
# old code ran for minutes or forever) on a loaded machine.
DEADLINE_SECONDS = 60

AFTER_NOTE = "zz-after.md"  # scanned after every hostile note


def billion_laughs() -> str:
    """Nine aliases to nine aliases, nine levels deep: ~360 bytes, 9⁹ values written out."""
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n\nThe lighthouse keeper.\n"


def distinct_backtick_runs(size: int) -> str:
    """One line of backtick runs 1, 2, 3, … long: no run closes another, so none is code."""
    parts = []
    length = 0
    while length < size:
        parts.append("`" * (len(parts) + 1) + "a")
        length += len(parts) + 1
    return "".join(parts)


def run_cli(vault: Path, db: Path, *args: str, timeout: float = DEADLINE_SECONDS) -> Any:
    """``vaultctx index --fast --json`` on ``vault``: its report, or a failure at the deadline."""
    command = [sys.executable, "-m", "vaultctx", *args, "--vault", str(vault), "--db", str(db)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=subprocess_env(), timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`vaultctx {' '.join(args)}` did not finish within {timeout} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def index_vault(vault: Path, db: Path) -> Any:
    return run_cli(vault, db, "index", "--fast", "--json")


def hits(db_path: Path, word: str) -> list[str]:
    db = open_index(db_path, readonly=True)
    try:
        response = Retriever(db, None).search(SearchRequest(word, mode="bm25", limit=50))
        return sorted({r.file_path for r in response.results})
    finally:
        db.close()


def stored_front_matter(db_path: Path, path: str) -> Any:
    db = open_index(db_path, readonly=True)
    try:
        rows = list(db.execute("SELECT front_matter FROM files WHERE path = ?", (path,)))
        return json.loads(str(rows[0][0]))
    finally:
        db.close()


def vault_with(tmp_path: Path, name: str, text: str) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / name).write_text(text, encoding="utf-8")
    (vault / AFTER_NOTE).write_text("# After\n\nThe marmalade protocol.\n", encoding="utf-8")
    return vault


def problems_of(report: Any, path: str) -> list[str]:
    return [p["problem"] for p in report["problems"] if p["path"] == path]


def test_billion_laughs_front_matter_is_indexed_as_text(tmp_path: Path) -> None:
    bomb = billion_laughs()
    assert len(bomb.encode()) < 400
    vault = vault_with(tmp_path, "bomb.md", bomb)
    db = tmp_path / "index.db"

    report = index_vault(vault, db)

    assert report["files"]["added"] == 2
    [problem] = problems_of(report, "bomb.md")
    assert "over 10,000 keys and values once YAML aliases are written out" in problem
    assert problem.endswith("indexed as text")
    assert stored_front_matter(db, "bomb.md") == {}
    assert hits(db, "lighthouse") == ["bomb.md"]
    assert hits(db, "marmalade") == [AFTER_NOTE]


@dataclass(frozen=True)
class Hostile:
    """A note that once hung or crashed a run; ``problem`` is what the report must say now."""

    id: str
    name: str
    text: str
    problem: str | None


HOSTILE_NOTES = [
    Hostile(
        # Read as front matter, 150,000 `[` cost libyaml minutes; read as text, the markdown
        # link pattern more (every `[` scanned to the end of the line).
        "oversized-front-matter",
        "big.md",
        "---\nrelated: " + "[" * 150_000 + "\n---\nThe lighthouse keeper.\n",
        "over the 65,536-character limit",
    ),
    Hostile(
        # Below libyaml's own limit of 1,000 levels; writing it out as JSON overflowed
        # Python's stack (RecursionError), which stopped the run.
        "deep-nesting",
        "deep.md",
        "---\nnested: " + "[" * 900 + "]" * 900 + "\n---\nThe lighthouse keeper.\n",
        "deeper than 50 levels",
    ),
    Hostile(
        # An alias inside its own anchor is a cycle; writing it out recursed forever.
        "recursive-alias",
        "loop.md",
        "---\nloop: &loop [*loop]\n---\nThe lighthouse keeper.\n",
        "contains itself",
    ),
    Hostile(
        # Few values, but each alias repeats 30,000 characters: 240 MB of JSON to scrub and
        # store in one row.
        "alias-text-bomb",
        "text-bomb.md",
        "---\nbig: &b "
        + "x" * 30_000
        + "\ncopies: ["
        + ",".join(["*b"] * 8000)
        + "]\n---\nThe lighthouse keeper.\n",
        "once YAML aliases are written out",
    ),
    Hostile(
        # A typo, not an attack: the date constructor's ValueError stopped the whole run.
        "impossible-date",
        "date.md",
        "---\ncreated: 2024-02-30\n---\nThe lighthouse keeper.\n",
        "day is out of range for month",
    ),
    Hostile(
        # YAML builds a hex int of any size; Python refused to write it out as JSON.
        "huge-hex-int",
        "hex.md",
        "---\nid: 0x" + "f" * 5000 + "\n---\nThe lighthouse keeper.\n",
        None,
    ),
    Hostile(
        # The H1 pattern backtracked over the spaces: three minutes for this line.
        "heading-of-spaces",
        "heading.md",
        "# a" + " " * 100_000 + "b\n\nThe lighthouse keeper.\n",
        None,
    ),
    Hostile(
        "line-of-brackets",
        "brackets.md",
        "[" * 200_000 + "\n\nThe lighthouse keeper.\n",
        None,
    ),
    Hostile(
        # Inline code paired runs with a backreference, rescanning the line from every run.
        "backtick-runs",
        "backticks.md",
        distinct_backtick_runs(3_000_000) + "\n\nThe lighthouse keeper.\n",
        None,
    ),
    Hostile(
        # Python's HTMLParser rescanned to the end of the page from every unclosed `<`.
        "html-unclosed-tags",
        "page.html",
        "<p>The lighthouse keeper.</p>" + "<a " * 100_000,
        None,
    ),
    Hostile(
        # Python's HTMLParser raised AssertionError, which stopped the run.
        "html-bad-marked-section",
        "marked.html",
        "<p>The lighthouse keeper.</p><![ if>",
        "HTML could not be parsed",
    ),
]


@pytest.mark.parametrize("hostile", HOSTILE_NOTES, ids=[h.id for h in HOSTILE_NOTES])
def test_a_hostile_note_costs_one_note_not_the_run(hostile: Hostile, tmp_path: Path) -> None:
    vault = vault_with(tmp_path, hostile.name, hostile.text)
    db = tmp_path / "index.db"

    report = index_vault(vault, db)

    assert report["files"]["added"] == 2, report
    problems = problems_of(report, hostile.name)
    if hostile.problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and hostile.problem in problems[0], problems
    assert hits(db, "lighthouse") == [hostile.name]
    assert hits(db, "marmalade") == [AFTER_NOTE]


def test_huge_yaml_ints_are_stored_as_text(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, "hex.md", "---\nid: 0x" + "f" * 5000 + "\nsmall: 0x10\n---\n")
    db = tmp_path / "index.db"
    index_vault(vault, db)
    stored = stored_front_matter(db, "hex.md")
    assert stored["small"] == 16
    assert stored["id"] == "0x" + "f" * 5000  # JSON and SQLite hold no 20,000-bit number


def test_watch_indexes_past_a_billion_laughs_note_and_stops_on_the_first_ctrl_c(
    tmp_path: Path,
) -> None:
    vault = vault_with(tmp_path, "bomb.md", billion_laughs())
    db = tmp_path / "index.db"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vaultctx",
            "watch",
            "--vault",
            str(vault),
            "--db",
            str(db),
            "--no-quality",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    try:
        assert process.stdout is not None
        catch_up = json.loads(read_line(process.stdout, DEADLINE_SECONDS))
        assert catch_up["kind"] == "indexed"
        assert catch_up["report"]["files"]["added"] == 2
        assert problems_of(catch_up["report"], "bomb.md")
        (vault / "later.md").write_text("# Later\n\nThe tangerine clause.\n", encoding="utf-8")
        later = json.loads(read_line(process.stdout, DEADLINE_SECONDS))
        assert later["kind"] == "indexed" and later["report"]["files"]["added"] == 1
        assert hits(db, "tangerine") == ["later.md"]
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr


def test_a_parser_failure_nobody_foresaw_costs_one_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The safety net under the fixes above: an unexpected exception while parsing one note is
    reported for that note (in worker processes too, which call the same function)."""
    from vaultctx.config import Config
    from vaultctx.embed.static import StaticEmbedder
    from vaultctx.index import prepare
    from vaultctx.index.indexer import Indexer

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "cursed.md").write_text("# Cursed\n\nbreaks the parser\n")
    (vault / AFTER_NOTE).write_text("# After\n\nthe lighthouse keeper\n")
    real_parse = prepare.parse_note

    def parse(path: str, text: str) -> Any:
        if path == "cursed.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real_parse(path, text)

    monkeypatch.setattr(prepare, "parse_note", parse)
    report = Indexer(Config(vault=vault, db=tmp_path / "index.db"), StaticEmbedder()).run(fast=True)
    reasons = {s["path"]: s["reason"] for s in report.skipped}
    assert "RecursionError" in reasons["cursed.md"]
    assert report.added == 1
