"""Long test-runner output reduced to what a model acts on: the counts and the failures.

A verbose run of 200 passing tests costs thousands of tokens and says two things: how many passed
and which failed, with why. Each supported runner (pytest, Jest, Vitest, Mocha, ``go test``,
``cargo test``) is recognised by its own summary lines; output that is not recognisably a test run
is never touched, so nothing else a command prints is lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

MIN_CHARS = 2000  # shorter output passes through unchanged (docs/hooks.md)
DETAIL_CHARS = 3000
MAX_FAILURES_LISTED = 30
MARKER = "[vaultctx compressed"


@dataclass
class TestSummary:
    """One run's outcome; ``counts`` keeps the runner's own words (passed, failed, skipped…)."""

    runner: str
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return sum(n for word, n in self.counts.items() if word in ("failed", "errors", "error"))

    def headline(self) -> str:
        counts = ", ".join(f"{n} {word}" for word, n in self.counts.items()) or "no counts"
        return f"{self.runner}: {counts}"

    def render(self, original: str) -> str:
        """The replacement text, starting with the marker the recursion guard looks for."""
        lines = [
            f"{MARKER} {original.count(chr(10)) + 1} lines of {self.runner} output to counts "
            "and failures; rerun the command to see all of it]",
            self.headline(),
        ]
        failures = list(dict.fromkeys(self.failures))  # runners repeat names in their recaps
        if failures:
            lines.append("Failed:")
            lines += [f"  {name}" for name in failures[:MAX_FAILURES_LISTED]]
            if len(failures) > MAX_FAILURES_LISTED:
                lines.append(f"  … and {len(failures) - MAX_FAILURES_LISTED} more")
        details = "\n".join(self.details).strip()
        if details:
            if len(details) > DETAIL_CHARS:
                details = details[:DETAIL_CHARS].rstrip() + "\n… (details cut)"
            lines += ["Failure details:", details]
        return "\n".join(lines)


def summarize_test_output(text: str) -> TestSummary | None:
    """The summary of a recognised test run, or None for anything else."""
    for summarize in _SUMMARIZERS:
        summary = summarize(text)
        if summary is not None:
            return summary
    return None


def compress_test_output(text: str) -> tuple[str, TestSummary] | None:
    """(replacement, summary) when ``text`` is a long test run worth compressing."""
    if len(text) < MIN_CHARS or MARKER in text:
        return None
    summary = summarize_test_output(text)
    if summary is None:
        return None
    compressed = summary.render(text)
    return (compressed, summary) if len(compressed) < len(text) else None


# --- pytest -------------------------------------------------------------------------------------

_PYTEST_COUNTS = re.compile(
    r"^(?:=+ )?((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|"
    r"rerun)(?:, )?)+) in [\d.]+s",
    re.MULTILINE,
)
_PYTEST_RESULT = re.compile(r"^(FAILED|ERROR) (.+)$", re.MULTILINE)
_PYTEST_SECTION = re.compile(r"^=+ (FAILURES|ERRORS) =+$")
_PYTEST_BANNER = re.compile(r"^=+ .* =+$")


def _pytest(text: str) -> TestSummary | None:
    matches = list(_PYTEST_COUNTS.finditer(text))
    if not matches:
        return None
    summary = TestSummary("pytest", _counts(matches[-1].group(1), r"(\d+) (\w+)"))
    summary.failures = [f"{kind} {rest}"[:200] for kind, rest in _PYTEST_RESULT.findall(text)]
    summary.details = _section(text.splitlines(), _PYTEST_SECTION.match, _PYTEST_BANNER.match)
    return summary


# --- Jest, Vitest, Mocha ------------------------------------------------------------------------

_JEST_TESTS = re.compile(r"^Tests:\s+(.*\d+ total)\s*$", re.MULTILINE)
_JEST_FAILURE = re.compile(r"^\s*● (?!Console)(.+)$")
_JEST_END = re.compile(r"^\s*(?:PASS|FAIL)\s|^Test Suites:|^\s*● ")
_VITEST_TESTS = re.compile(r"^\s*Tests\s+(.*?)\s*\((\d+)\)\s*$", re.MULTILINE)
_VITEST_FAILURE = re.compile(r"^\s*(?:FAIL|×)\s+(.+)$", re.MULTILINE)
_MOCHA_COUNT = re.compile(r"^\s+(\d+) (passing|failing|pending)\b", re.MULTILINE)
_MOCHA_FAILURE = re.compile(r"^\s+\d+\) (.+)$", re.MULTILINE)


def _jest(text: str) -> TestSummary | None:
    match = _JEST_TESTS.search(text)
    if match is None:
        return None
    counts = _counts(match.group(1), r"(\d+) (\w+)")
    counts.pop("total", None)
    summary = TestSummary("jest", counts)
    lines = text.splitlines()
    summary.failures = [m.group(1).strip() for line in lines if (m := _JEST_FAILURE.match(line))]
    details: list[str] = []
    for start, line in enumerate(lines):
        if _JEST_FAILURE.match(line):
            details += _until(lines, start, _JEST_END.match)
    summary.details = details
    return summary


def _vitest(text: str) -> TestSummary | None:
    match = _VITEST_TESTS.search(text)
    if match is None or not re.search(r"\d+ (?:passed|failed)", match.group(1)):
        return None
    summary = TestSummary("vitest", _counts(match.group(1), r"(\d+) (\w+)"))
    summary.failures = [name.strip() for name in _VITEST_FAILURE.findall(text)][:200]
    return summary


def _mocha(text: str) -> TestSummary | None:
    found = _MOCHA_COUNT.findall(text)
    if not any(word == "passing" for _, word in found):
        return None
    summary = TestSummary("mocha", {word: int(n) for n, word in found})
    summary.failures = _MOCHA_FAILURE.findall(text)
    return summary


# --- go test -------------------------------------------------------------------------------------

_GO_RESULT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", re.MULTILINE)
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(?:[\d.]+s|\(cached\))", re.MULTILINE)
_GO_LOG = re.compile(r"^\s{4,}\S+\.go:\d+: ")


def _go(text: str) -> TestSummary | None:
    results = _GO_RESULT.findall(text)
    packages = _GO_PACKAGE.findall(text)
    if not results and not packages:
        return None
    words = {"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}
    counts: dict[str, int] = {}
    for outcome, _ in results:
        counts[words[outcome]] = counts.get(words[outcome], 0) + 1
    failed_packages = [name for outcome, name in packages if outcome == "FAIL"]
    if packages:
        counts["packages ok"] = len(packages) - len(failed_packages)
        counts["packages failed"] = len(failed_packages)
    summary = TestSummary("go test", counts)
    summary.failures = [name for outcome, name in results if outcome == "FAIL"]
    summary.failures += [f"package {name}" for name in failed_packages]
    summary.details = [
        line
        for line in text.splitlines()
        if _GO_LOG.match(line) or line.lstrip().startswith(("--- FAIL", "panic:"))
    ]
    return summary


# --- cargo test ----------------------------------------------------------------------------------

_CARGO_RESULT = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; "
    r"(\d+) filtered out",
    re.MULTILINE,
)
_CARGO_FAILED = re.compile(r"^test (\S+) \.\.\. FAILED$", re.MULTILINE)
_CARGO_BLOCK = re.compile(r"^---- .+ stdout ----$")
_CARGO_BLOCK_END = re.compile(r"^---- |^failures:$|^test result:")
_BACKTRACE_FRAME = re.compile(r"^\s+(?:\d+: |at )|^stack backtrace:|^note: Some details")


def _cargo(text: str) -> TestSummary | None:
    totals = [0, 0, 0]
    found = False
    for match in _CARGO_RESULT.finditer(text):
        found = True
        for index in range(3):
            totals[index] += int(match.group(index + 1))
    if not found:
        return None
    summary = TestSummary(
        "cargo test", {"passed": totals[0], "failed": totals[1], "ignored": totals[2]}
    )
    summary.failures = _CARGO_FAILED.findall(text)
    lines = text.splitlines()
    details: list[str] = []
    for start, line in enumerate(lines):
        if _CARGO_BLOCK.match(line):
            block = _until(lines, start, _CARGO_BLOCK_END.match)
            details += [kept for kept in block if not _BACKTRACE_FRAME.match(kept)]
    summary.details = details
    return summary


# --- shared helpers ------------------------------------------------------------------------------


def _counts(text: str, pattern: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for number, word in re.findall(pattern, text):
        counts[word] = counts.get(word, 0) + int(number)
    return counts


def _until(lines: list[str], start: int, is_end: Callable[[str], object]) -> list[str]:
    """``lines[start]`` and what follows it up to (not including) the next line ``is_end``."""
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if is_end(line):
            break
        block.append(line)
    return block


def _section(
    lines: Iterable[str],
    is_start: Callable[[str], object],
    is_banner: Callable[[str], object],
) -> list[str]:
    """The lines of every section opened by ``is_start``, each ending at the next banner."""
    kept: list[str] = []
    inside = False
    for line in lines:
        if is_start(line):
            inside = True
            continue
        if inside and is_banner(line):
            inside = False
        if inside:
            kept.append(line)
    return kept


_SUMMARIZERS: tuple[Callable[[str], TestSummary | None], ...] = (
    _pytest,
    _jest,
    _cargo,
    _go,
    _vitest,
    _mocha,
)
