"""``vaultctx search --batch``: one JSONL line out per query in, models loaded once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import copy_example_vault
from vaultctx.api import Vault

CLI = [sys.executable, "-m", "vaultctx"]


def test_batch_answers_every_line_with_its_id(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    Vault(vault, db=tmp_path / "index.db").index(fast=True)
    queries = [{"id": f"q{i}", "query": "why did the database lock up"} for i in range(4)]
    lines = [json.dumps(q) for q in queries] + ["meeting notes"]
    batch = tmp_path / "queries.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(
        [
            *CLI,
            "search",
            "--batch",
            str(batch),
            "--vault",
            str(vault),
            "--db",
            str(tmp_path / "index.db"),
            "--limit",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers][:4] == ["q0", "q1", "q2", "q3"]
    assert len(answers) == 5
    # The same query gives the same answer whether vectors come from disk or, from the third
    # vector query on, from memory.
    first = [r["chunk_id"] for r in answers[0]["results"]]
    assert first and all([r["chunk_id"] for r in a["results"]] == first for a in answers[1:4])
