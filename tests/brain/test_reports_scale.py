"""The issue's target: each offline report on the 14,142-file PowerShell docs in under 60 s and
under 1 GB, as a real process (docs/benchmarks.md, "Second Brain reports")."""

from __future__ import annotations

import json
import resource
import tarfile
import time
from pathlib import Path

import pytest

from tests.brain.conftest import run_cli
from tests.conftest import shared_data
from vaultctx.api import Vault


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(tarfile, "data_filter"), reason="needs tar extraction filters")
def test_each_report_under_60_s_and_1_gb(tmp_path: Path) -> None:
    archive = shared_data("md-corpus-windows-powershell-docs", "windows-powershell-docs.tar.gz")
    vault_path = tmp_path / "vault"
    with tarfile.open(archive) as tar:
        tar.extractall(vault_path, filter="data")
    (vault_path / "vaultctx.toml").write_text("[second_brain]\nenabled = true\n")
    vault = Vault(vault_path, db=tmp_path / "index.db")
    vault.index(fast=True)
    for report in ("gaps", "links", "duplicates", "review-queue"):
        started = time.perf_counter()
        # A process of its own: its memory is measured below.
        result = run_cli(tmp_path, vault, "brain", report, "--json", process=True)
        elapsed = time.perf_counter() - started
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["items"]
        assert elapsed < 60, f"brain {report} took {elapsed:.1f} s"
    # The largest of every process this test waited for (the indexer's workers included), in KB.
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1024 * 1024
