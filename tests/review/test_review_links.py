"""``vaultctx review links``: accepted suggestions only, into each source note's related-links
block, merged as a set; one ledger record per apply; undo; targets re-checked."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.brain.conftest import BREAD, KUBE, TIDES, indexed_vault, run_cli, snapshot
from tests.clean_env import clean_cli_env
from vaultctx.brain.markers import read_block
from vaultctx.review.links_flow import LinksFlow
from vaultctx.review.related_links import merge_related_links

SAME = " ".join([KUBE] * 3) + "\n\n[[Hub]]"
NOTES = {
    "O.md": KUBE + "\n",  # an orphan: suggestions a/K, b/K, c/K (equal, by path)
    "a/K.md": SAME,
    "b/K.md": SAME,
    "c/K.md": SAME,
    "Hub.md": " ".join([TIDES] * 3),
    "Bread.md": BREAD,
}


def test_accept_by_id_writes_only_those_then_undo(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, NOTES)
    before = snapshot(vault.path)
    listed = run_cli(tmp_path, vault, "review", "links", "--json")
    assert listed.returncode == 0, listed.stderr
    proposals = json.loads(listed.stdout)["proposals"]
    assert [(p["id"], p["source"], p["target"]) for p in proposals] == [
        (1, "O.md", "a/K.md"),
        (2, "O.md", "b/K.md"),
        (3, "O.md", "c/K.md"),
    ]
    assert snapshot(vault.path) == before  # listing writes nothing
    applied = run_cli(tmp_path, vault, "review", "links", "--accept", "1,3")
    assert applied.returncode == 0, applied.stderr
    assert "applied 2: 1, 3" in applied.stdout and "2 links added" in applied.stdout
    text = (vault.path / "O.md").read_text(encoding="utf-8")
    assert text.startswith(KUBE + "\n")
    assert read_block(text, "related-links") == "## Related notes\n- [[a/K|K]]\n- [[c/K|K]]"
    ledger = json.loads(run_cli(tmp_path, vault, "ledger", "--json").stdout)
    assert len(ledger) == 1 and ledger[0]["label"].startswith("review links:")
    assert run_cli(tmp_path, vault, "undo").returncode == 0
    assert snapshot(vault.path) == before


def test_refused_while_off(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, NOTES, config="")
    result = run_cli(tmp_path, vault, "review", "links", "--accept", "all")
    assert result.returncode == 2 and "Second Brain is turned off" in result.stderr


def test_a_target_gone_since_the_proposal_is_skipped(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, NOTES)
    flow = LinksFlow()
    proposals = asyncio.run(flow.propose(vault))
    (vault.path / "b/K.md").unlink()
    result = flow.apply(vault, proposals)
    assert result.applied == [1, 3] and result.skipped == ["2: b/K.md no longer exists"]
    block = read_block((vault.path / "O.md").read_text(encoding="utf-8"), "related-links")
    assert block == "## Related notes\n- [[a/K|K]]\n- [[c/K|K]]"
    assert result.record_id is not None and result.notices[-1] == "2 links added"


def test_merging_keeps_existing_links_first_and_never_twice() -> None:
    text = "Body.\n"
    once, added = merge_related_links(text, [("a/K.md", "K"), ("Hub.md", "Hub")], name="O.md")
    assert added == 2
    edited = once.replace("- [[Hub]]", "- [[hub]] (my note on it)")
    twice, added = merge_related_links(
        edited, [("A/k.md", "K"), ("hub.md", "Hub"), ("c/K.md", "K")], name="O.md"
    )
    assert added == 1
    assert read_block(twice, "related-links") == (
        "## Related notes\n- [[a/K|K]]\n- [[hub]] (my note on it)\n- [[c/K|K]]"
    )
    assert twice.startswith("Body.\n") and twice.count("<!-- @generated:related-links -->") == 1
    same, added = merge_related_links(twice, [("c/K.md", "K")], name="O.md")
    assert (same, added) == (twice, 0)


def test_at_a_terminal_each_proposal_is_asked(tmp_path: Path) -> None:
    """A real pseudo-terminal: yes to the first, no to the second, quit at the third."""
    vault = indexed_vault(tmp_path, NOTES)
    env = clean_cli_env(tmp_path, TERM="dumb")
    argv = [sys.executable, "-m", "vaultctx", "review", "links"]
    argv += ["--vault", str(vault.path), "--db", str(vault.db_path)]
    master, slave = pty.openpty()
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    output = b""
    answers = [b"y\n", b"n\n", b"q\n"]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
            if answers and output.count(b"apply?") > 3 - len(answers):
                os.write(master, answers.pop(0))
        elif process.poll() is not None:
            break
    process.wait(timeout=60)
    os.close(master)
    text = output.decode("utf-8", "replace")
    assert process.returncode == 0, text
    assert "[1] O.md: link to a/K.md" in text and "applied 1: 1" in text
    block = read_block((vault.path / "O.md").read_text(encoding="utf-8"), "related-links")
    assert block == "## Related notes\n- [[a/K|K]]"


def test_nothing_to_review_is_not_an_error(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, {"A.md": KUBE + " [[B]]", "B.md": BREAD + " [[A]]"})
    result = run_cli(tmp_path, vault, "review", "links", "--accept", "all")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "nothing to review: no links proposals"
    listed = run_cli(tmp_path, vault, "review", "duplicates", "--accept", "all", "--json")
    assert json.loads(listed.stdout) == {
        "flow": "duplicates",
        "proposals": [],
        "notices": [],
        "result": None,
    }
