"""Credential scrubber quality and speed.

Quality, on the 899 labelled fixture strings from gitleaks' and detect-secrets' test suites:
recall on ``secret: true`` rows and the share of ``secret: false`` rows altered, one line per
figure, on three sets of rows: all of them; those without a same-text or same-shape
contradiction (the two suites label the same string, or the same shape, oppositely); and those
without any conflict (also leaving out rows whose label gitleaks' own rule set contradicts). Each
set is split into the dev half (looked at while writing rules) and the held-out half (only
scored). Then one line per ``kind`` (the gitleaks rule or detect-secrets plugin a row tests), the
conflicts, what they cap any scrubber at, and every remaining miss and alteration.
``tests/scrub/labelled_fixtures.py`` defines the split, the conflicts and the scoring, shared
with the test that asserts the targets. ``--end-to-end`` also scores the rows through the CLI:
each row a note in a temporary vault, ``vaultctx index --fast``, then ``vaultctx search --batch``
reads every note back, so the figure covers parsing, chunking, storing and output scrubbing.

Speed and false positives on real prose, the Windows PowerShell docs (14,142 markdown files) and
the Obsidian Help vault (347 files): CPU time per chunk as the indexer scrubs (``chunk_text``
chunks, then each chunk's text and its heading context), per 2,000-character window, how many
files each rule alters, with the lines; and what a public-IP rule (detect-secrets' shape, not
part of the scrubber) would alter. Times are CPU time of this process (``time.process_time``),
the best of ``--rounds`` passes, so a busy machine inflates them less.

    PYTHONPATH=src .venv/bin/python bench/scrub_quality.py [--show 20] [--rounds 3] [--end-to-end]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from corpora import REPO, SHARED_DATA, powershell_corpus
from vaultctx.scrub import compiled_rules, scrub_secrets
from vaultctx.vault.chunker import chunk_text, heading_context
from vaultctx.vault.note import parse_note

sys.path.insert(0, str(REPO))
from tests.scrub.labelled_fixtures import (
    ALTERED_TARGET,
    RECALL_TARGET,
    SAME_SHAPE,
    SAME_TEXT,
    Conflict,
    Row,
    Score,
    altered,
    best_pairs,
    caught,
    conflicts,
    load_rows,
    score,
)

WINDOW = 2000
WINDOW_STEP = 1800  # the chunker's 2,000-character windows with 200 characters of overlap
MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def import_and_compile_cost() -> None:
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import vaultctx.scrub"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO / "src")},
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
        f"{own_us / 1000:.1f} ms of it in vaultctx's own modules"
    )
    compiled = compiled_rules()
    print(
        f"first use compiles {len(compiled.rules)} rules in {compiled.compile_seconds * 1000:.0f} "
        f"ms: {compiled.gitleaks_compiled} gitleaks rules, {len(compiled.gitleaks_skipped)} "
        f"skipped ({'; '.join(f'{k}: {v}' for k, v in compiled.gitleaks_skipped.items())}), "
        f"{len(compiled.rules) - compiled.gitleaks_compiled} own rules; "
        f"{len(compiled.anchored)} run only at their keywords' offsets"
    )


# --- labelled fixtures ----------------------------------------------------------------------


def _contradicted(conflict: Conflict | None) -> bool:
    """The two suites label this text, or this shape, oppositely: no scrubber gets both right."""
    return conflict is not None and conflict.kind in (SAME_TEXT, SAME_SHAPE)


def _populations(
    rows: Sequence[Row], found: Sequence[Conflict | None]
) -> list[tuple[str, list[Row]]]:
    pairs = list(zip(rows, found, strict=True))
    return [
        ("all rows", list(rows)),
        ("no same-text/shape contradiction", [row for row, c in pairs if not _contradicted(c)]),
        ("no conflict at all", [row for row, c in pairs if c is None]),
    ]


def _score_table(rows: Sequence[Row], found: Sequence[Conflict | None]) -> None:
    print(f"targets: recall >= {RECALL_TARGET:.0%}, altered <= {ALTERED_TARGET:.0%}")
    for label, subset in _populations(rows, found):
        for half in (None, "dev", "held-out"):
            part = [row for row in subset if half is None or row.half == half]
            print(f"  {label:34s} {half or 'both halves':11s} {score(part)}")


def _kind_table(rows: Sequence[Row], found: Sequence[Conflict | None]) -> None:
    """One line per gitleaks rule or detect-secrets plugin; ``contradicted`` counts the rows
    whose text or shape the other suite labels oppositely."""
    by_kind: dict[str, list[tuple[Row, Conflict | None]]] = collections.defaultdict(list)
    for row, conflict in zip(rows, found, strict=True):
        by_kind[f"{row.origin}:{row.kind}"].append((row, conflict))
    print(f"per kind ({len(by_kind)} kinds):")
    for kind, members in sorted(by_kind.items()):
        result = score(row for row, _ in members)
        recall = "-"
        if result.secrets:
            recall = f"{result.recall:6.1%} ({result.caught}/{result.secrets})"
        altered_share = "-"
        if result.non_secrets:
            altered_share = f"{result.altered_rate:6.1%} ({result.altered}/{result.non_secrets})"
        contradicted = sum(_contradicted(conflict) for _, conflict in members)
        note = f"  {contradicted} contradicted" if contradicted else ""
        print(f"  {kind:58s} recall {recall:18s} altered {altered_share:16s}{note}")


def _conflict_table(rows: Sequence[Row], found: Sequence[Conflict | None]) -> None:
    tally: collections.Counter[tuple[str, str, str, bool]] = collections.Counter()
    for row, conflict in zip(rows, found, strict=True):
        if conflict is not None:
            group = "identical strings" if conflict.kind == SAME_TEXT else conflict.group
            tally[(conflict.kind, group, row.origin, row.secret)] += 1
    total = sum(conflict is not None for conflict in found)
    print(f"rows in conflict: {total} of {len(rows)}")
    for (kind, group, origin, secret), count in sorted(tally.items()):
        label = "secret" if secret else "not secret"
        print(f"  {kind:18s} {group:45s} {origin:15s} {label:10s} {count:3d}")


def _ceiling(rows: Sequence[Row]) -> None:
    front = best_pairs(rows)
    within_altered = [pair for pair in front if pair.altered_rate <= ALTERED_TARGET]
    within_recall = [pair for pair in front if pair.recall >= RECALL_TARGET]
    print("ceiling on the full file (every row right, one verdict per same-text/shape group):")
    if within_altered:
        print(f"  best recall with altered <= {ALTERED_TARGET:.0%}: {within_altered[-1]}")
    if within_recall:
        print(f"  least altered with recall >= {RECALL_TARGET:.0%}: {within_recall[0]}")
    print("  Pareto front:", "; ".join(str(pair) for pair in front))


def _by_kind(rows: Iterable[Row], wrong: Callable[[Row], bool]) -> str:
    counts = collections.Counter(f"{row.origin}:{row.kind}" for row in rows if wrong(row))
    return ", ".join(f"{kind} {count}" for kind, count in counts.most_common()) or "none"


def fixture_quality() -> None:
    rows = load_rows()
    found = conflicts(rows)
    _score_table(rows, found)
    _kind_table(rows, found)
    _conflict_table(rows, found)
    _ceiling(rows)
    for label, keep in (("consistent", True), ("in conflict", False)):
        subset = [row for row, c in zip(rows, found, strict=True) if (c is None) == keep]
        secrets = [row for row in subset if row.secret]
        others = [row for row in subset if not row.secret]
        print(f"misses ({label}): {_by_kind(secrets, lambda row: not caught(row))}")
        print(f"altered ({label}): {_by_kind(others, altered)}")


def _cli(*args: str, cwd: Path) -> str:
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    ).stdout


def end_to_end() -> None:
    """Every row as a note, indexed and read back through the CLI; scored like the in-process
    figures, on what ``search`` returns for the note: a secret row is caught when the output
    carries a redaction and none of its bare ``secret_value``, a non-secret row altered when
    it carries a redaction."""
    rows = load_rows()
    found = conflicts(rows)
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        vault = work / "vault"
        vault.mkdir()
        names = [f"fixturerow{index:04d}" for index in range(len(rows))]
        for name, row in zip(names, rows, strict=True):
            # The alias finds the note whatever its first heading makes its title.
            note = f"---\naliases: [{name}]\n---\n{row.text}\n"
            (vault / f"{name}.md").write_text(note, "utf-8")
        queries = work / "queries.jsonl"
        queries.write_text("".join(json.dumps({"id": n, "query": n}) + "\n" for n in names))
        started = time.perf_counter()
        db = ("--db", str(work / "index.db"))
        _cli("index", "--vault", str(vault), *db, "--fast", cwd=work)
        indexed = time.perf_counter() - started
        output = _cli(
            *("search", "--vault", str(vault), *db, "--batch", str(queries), "--mode", "bm25"),
            *("--limit", "50", "--max-tokens", "1000000"),
            cwd=work,
        )
        seconds = time.perf_counter() - started
    read_back: dict[str, str] = {}
    for line in output.splitlines():
        answer = json.loads(line)
        own = [r["text"] for r in answer["results"] if r["file_path"] == f"{answer['id']}.md"]
        if own:
            read_back[answer["id"]] = "\n".join(own)
    missing = [name for name in names if name not in read_back]

    def redacted(name: str, row: Row) -> bool:
        shown = read_back.get(name, "")
        return len(MARKER.findall(shown)) > len(MARKER.findall(row.text))

    def verdicts(subset: Iterable[int]) -> Score:
        picked = [(names[i], rows[i]) for i in subset]
        secrets = [(name, row) for name, row in picked if row.secret]
        others = [(name, row) for name, row in picked if not row.secret]
        hit = sum(
            redacted(name, row)
            and not (row.secret_value and row.secret_value in read_back.get(name, ""))
            for name, row in secrets
        )
        return Score(hit, len(secrets), sum(redacted(n, r) for n, r in others), len(others))

    print(
        f"end to end through the CLI: {len(rows)} notes indexed in {indexed:.1f} s, read back "
        f"in {seconds - indexed:.1f} s; {len(missing)} notes not found by search"
    )
    indices = range(len(rows))
    for label, subset in (
        ("all rows", list(indices)),
        ("no same-text/shape contradiction", [i for i in indices if not _contradicted(found[i])]),
        ("no conflict at all", [i for i in indices if found[i] is None]),
    ):
        print(f"  end to end, {label:34s} {verdicts(subset)}")
    in_process = [caught(row) if row.secret else altered(row) for row in rows]
    through_cli = [
        verdicts([i]).caught == 1 if row.secret else verdicts([i]).altered == 1
        for i, row in enumerate(rows)
    ]
    differ = [names[i] for i in indices if in_process[i] != through_cli[i]]
    print(f"  rows scored differently in process and end to end: {len(differ)} {differ[:10]}")


# --- real prose ---------------------------------------------------------------------------


def _best_cpu_seconds(work: Callable[[], None], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def _indexer_inputs(notes: Sequence[Path], root: Path) -> tuple[list[str], int]:
    """What the indexer's scrub phase receives: each note's body, then its distinct heading
    contexts (one per section); and how many chunks the notes make."""
    texts, chunks = [], 0
    for path in notes:
        note = parse_note(str(path.relative_to(root)), path.read_text("utf-8", errors="replace"))
        texts.append(note.body)
        note_chunks = chunk_text(note.body)
        chunks += len(note_chunks)
        texts.extend(
            {
                heading_context(note.title, note.tags, note.aliases, chunk.heading_path)
                for chunk in note_chunks
            }
        )
    return texts, chunks


def corpus_speed(rounds: int) -> None:
    root = powershell_corpus()
    notes = sorted(root.rglob("*.md"))
    texts = [note.read_text("utf-8", errors="replace") for note in notes]
    indexer_texts, chunks = _indexer_inputs(notes, root)
    windows = [text[i : i + WINDOW] for text in texts for i in range(0, len(text), WINDOW_STEP)]

    def scrub_as_indexer() -> None:
        for text in indexer_texts:
            scrub_secrets(text)

    def scrub_windows() -> None:
        for window in windows:
            scrub_secrets(window)

    indexer_seconds = _best_cpu_seconds(scrub_as_indexer, rounds)
    window_seconds = _best_cpu_seconds(scrub_windows, rounds)
    print(
        f"PowerShell docs, {len(notes)} files: indexer's scrub phase {indexer_seconds:.2f} s CPU "
        f"(bodies once, then one heading context per section) for {chunks} chunks = "
        f"{indexer_seconds * 1000 / chunks:.4f} ms per chunk; "
        f"{len(windows)} windows of {WINDOW} chars: {window_seconds * 1000 / len(windows):.4f} "
        f"ms each (best of {rounds})"
    )


# detect-secrets' IPPublicDetector: an IPv4 address (optional port) outside the private,
# loopback and link-local ranges. Not a scrubber rule: only measured, to show what one would
# alter (the scrubber's docstring says why public addresses stay).
PUBLIC_IPV4 = re.compile(
    r"(?<![\w.])((?!192\.168\.|127\.|10\.|169\.254\.|172\.(?:1[6-9]|2[0-9]|3[01])\.)"
    r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?::\d{1,5})?)(?![\w.])"
)


def _only_versions_or_masks(text: str) -> bool:
    """Every public-IP match is a version (``Version: 5.0.0.1``, ``Version=4.0.0.0``) or a mask
    or wildcard (``255.255.255.0``, ``0.0.0.0``), not a host."""
    for found in PUBLIC_IPV4.finditer(text):
        before = text[max(0, found.start() - 30) : found.start()].lower()
        if "version" not in before and not found.group(1).startswith(("255.", "0.")):
            return False
    return True


def corpus_alterations(show: int) -> None:
    """Per corpus: files altered, files altered per rule, and the altered lines."""
    for label, root in (
        ("PowerShell docs", powershell_corpus()),
        ("Obsidian Help", SHARED_DATA / "obsidian-help"),
    ):
        notes = sorted(root.rglob("*.md"))
        texts = [note.read_text("utf-8", errors="replace") for note in notes]
        results = [scrub_secrets(text) for text in texts]
        changed = [(n, r) for n, r in zip(notes, results, strict=True) if r.total]
        files_by_rule = collections.Counter(rule for _, r in changed for rule in r.counts)
        addresses = collections.Counter(
            found for text in texts for found in set(PUBLIC_IPV4.findall(text))
        )
        with_address = [text for text in texts if PUBLIC_IPV4.search(text)]
        no_host = sum(map(_only_versions_or_masks, with_address))
        print(
            f"{label}: files altered {len(changed)} of {len(notes)} "
            f"({len(changed) / len(notes):.2%}); "
            f"files per rule: {dict(files_by_rule.most_common())}"
        )
        print(
            f"  a public-IP rule would alter {len(with_address)} files, {no_host} of them only "
            f"for version numbers or masks ({len(addresses)} distinct matches; most common: "
            f"{', '.join(a for a, _ in addresses.most_common(8))})"
        )
        for note, result in changed[:show]:
            for marker in MARKER.finditer(result.text):
                line_start = result.text.rfind("\n", 0, marker.start()) + 1
                line_end = result.text.find("\n", marker.end())
                print(f"  {note.name}: {result.text[line_start:line_end].strip()[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=10, help="altered files to print")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes; the best counts")
    parser.add_argument(
        "--end-to-end", action="store_true", help="also score the fixtures through the CLI"
    )
    args = parser.parse_args()
    import_and_compile_cost()
    fixture_quality()
    if args.end_to_end:
        end_to_end()
    corpus_speed(args.rounds)
    corpus_alterations(args.show)


if __name__ == "__main__":
    main()
