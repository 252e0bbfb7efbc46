"""Credential scrubber quality and speed (SPEC §3).

Prints recall and false-positive rate on the labelled fixtures (one line each), the misses per
kind, then import / first-compile cost and throughput on the Windows PowerShell docs corpus
(14,142 markdown files), with how many files get altered and a sample of the redacted lines.
Times are CPU time of this process (``time.process_time``), so a busy machine does not inflate
them; wall-clock time is printed beside them.

    PYTHONPATH=src .venv/bin/python bench/scrub_quality.py [--show 20]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from vaultctx.scrub import compiled_rules, scrub_secrets

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT / ".." / "shared" / "data"
LABELLED = SHARED_DATA / "secret-fixtures" / "labelled.jsonl"
POWERSHELL_DOCS = (
    SHARED_DATA / "md-corpus-windows-powershell-docs" / "windows-powershell-docs.tar.gz"
)
CHUNK = 2000
CHUNK_STEP = 1800  # the indexer's 2,000-character windows with 200 characters of overlap
MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def fixture_quality() -> None:
    rows = [json.loads(line) for line in LABELLED.read_text("utf-8").splitlines()]
    secrets = [row for row in rows if row["secret"]]
    others = [row for row in rows if not row["secret"]]
    missed: collections.Counter[str] = collections.Counter()
    for row in secrets:
        scrubbed = scrub_secrets(row["text"]).text
        value = row.get("secret_value")
        if scrubbed == row["text"] or (value and value in scrubbed):
            missed[f"{row['origin']}:{row['kind']}"] += 1
    altered: collections.Counter[str] = collections.Counter()
    for row in others:
        if scrub_secrets(row["text"]).total:
            altered[f"{row['origin']}:{row['kind']}"] += 1
    caught = len(secrets) - missed.total()
    print(f"recall: {caught / len(secrets):.1%} ({caught}/{len(secrets)} secret rows caught)")
    print(
        f"false positives: {altered.total() / len(others):.1%} "
        f"({altered.total()}/{len(others)} non-secret rows altered)"
    )
    print("misses by kind:", ", ".join(f"{kind} {n}" for kind, n in missed.most_common()))
    print("altered non-secrets by kind:", ", ".join(f"{k} {n}" for k, n in altered.most_common()))


def import_and_compile_cost() -> None:
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import vaultctx.scrub"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO_ROOT / "src")},
    )
    own_us = cumulative_us = 0
    for line in probe.stderr.splitlines():
        parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        if parts[2].startswith("vaultctx"):
            own_us += int(parts[0])
        if parts[2] == "vaultctx.scrub":
            cumulative_us = int(parts[1])
    print(
        f"import vaultctx.scrub: {cumulative_us / 1000:.1f} ms in a fresh interpreter, "
        f"{own_us / 1000:.1f} ms of it in vaultctx's own modules (the rest: re, json, dataclasses)"
    )
    compiled = compiled_rules()
    milliseconds = compiled.compile_seconds * 1000
    print(
        f"first use compiles {len(compiled.rules)} rules in {milliseconds:.0f} ms: "
        f"{compiled.gitleaks_compiled} gitleaks rules compiled, "
        f"{len(compiled.gitleaks_skipped)} skipped "
        f"({'; '.join(f'{name}: {why}' for name, why in compiled.gitleaks_skipped.items())}), "
        f"{len(compiled.rules) - compiled.gitleaks_compiled} own rules; "
        f"{len(compiled.anchored)} run only at their keywords' offsets"
    )


def corpus_throughput(show: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(POWERSHELL_DOCS) as archive:
            archive.extractall(folder, filter="data")
        notes = sorted(Path(folder).rglob("*.md"))
        texts = [note.read_text("utf-8", errors="replace") for note in notes]
    megabytes = sum(len(text.encode()) for text in texts) / 1e6
    chunks = [text[i : i + CHUNK] for text in texts for i in range(0, len(text), CHUNK_STEP)]

    cpu, wall = time.process_time(), time.perf_counter()
    results = [scrub_secrets(text) for text in texts]
    file_cpu, file_wall = time.process_time() - cpu, time.perf_counter() - wall
    cpu, wall = time.process_time(), time.perf_counter()
    for chunk in chunks:
        scrub_secrets(chunk)
    chunk_cpu, chunk_wall = time.process_time() - cpu, time.perf_counter() - wall

    altered = [(note, result) for note, result in zip(notes, results, strict=True) if result.total]
    counts: collections.Counter[str] = collections.Counter()
    for _, result in altered:
        counts.update(result.counts)
    print(
        f"PowerShell docs: {len(texts)} files, {megabytes:.1f} MB: whole files "
        f"{file_cpu * 1000 / megabytes:.0f} ms/MB CPU ({file_wall * 1000 / megabytes:.0f} wall); "
        f"{len(chunks)} chunks of {CHUNK} chars {chunk_cpu * 1000 / len(chunks):.3f} ms/chunk CPU "
        f"({chunk_wall * 1000 / len(chunks):.3f} wall)"
    )
    print(
        f"files altered: {len(altered)} ({len(altered) / len(texts):.2%}); "
        f"redactions by rule: {dict(counts.most_common())}"
    )
    for note, result in altered[:show]:
        for marker in MARKER.finditer(result.text):
            line_start = result.text.rfind("\n", 0, marker.start()) + 1
            line_end = result.text.find("\n", marker.end())
            print(f"  {note.name}: {result.text[line_start:line_end].strip()[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=10, help="altered files to print")
    args = parser.parse_args()
    import_and_compile_cost()
    fixture_quality()
    corpus_throughput(args.show)


if __name__ == "__main__":
    main()
