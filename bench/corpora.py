"""Locate and unpack the shared benchmark corpora (never copied into the repo)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# VAULTCTX_SHARED_DATA: where the corpora are when the repo is not beside them (a git worktree).
SHARED_DATA = Path(
    os.environ.get("VAULTCTX_SHARED_DATA", REPO / ".." / "shared" / "data")
).resolve()
CACHE = Path(os.environ.get("VAULTCTX_BENCH_CACHE", "/tmp/vaultctx-bench"))


def _unpack(archive: Path, name: str) -> Path:
    target = CACHE / name
    marker = target / ".unpacked"
    if not marker.exists():
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
        marker.write_text("ok")
    return target


def powershell_corpus() -> Path:
    """14,142 real markdown files (94 MB) from the Windows PowerShell docs."""
    return _unpack(
        SHARED_DATA / "md-corpus-windows-powershell-docs" / "windows-powershell-docs.tar.gz",
        "powershell",
    )


def tldr_corpus() -> Path:
    """14,073 short English and Korean tldr pages."""
    return _unpack(SHARED_DATA / "md-corpus-tldr-en-ko" / "tldr-pages-en-ko.tar.gz", "tldr")


def markdown_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.md") if p.is_file())


def dataset_index_dir(name: str) -> Path:
    """Where a BEIR set's vault and index are kept between benchmark runs (pass 2 is slow)."""
    return CACHE / f"fusion-{name}"
