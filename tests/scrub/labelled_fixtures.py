"""The labelled secret fixtures, scored the same way by the quality test and the benchmark.

``../shared/data/secret-fixtures/labelled.jsonl`` holds 899 strings from the test suites of
gitleaks and detect-secrets, each labelled secret or not. A secret row counts as caught when
the scrubber changes it and leaves none of its bare ``secret_value``; a non-secret row counts as
altered when the scrubber redacts anything in it.

**Split.** A row belongs to the dev half or the held-out half by the parity of the first byte
of the SHA-256 of its text: stable, independent of file order, and a string listed twice stays
in one half. The rules were tuned by looking at dev rows only.

**Conflicts.** Both sources label per detector: gitleaks' "false positives" must not be flagged
*by the rule under test*, detect-secrets' negatives must not be flagged *by one plugin*. Where
the two disagree about a string, no scrubber can satisfy both. A row is in conflict when

1. *same text*: the identical text also appears with the opposite label (gitleaks lists a
   string as a finding for one file name and as a non-finding for another; two detect-secrets
   plugins disagree about one token);
2. *same shape*: it belongs to a shape class whose rows one source labels secret and the other
   not secret, checked on the data rather than assumed:
   - placeholder fillers, a vendor prefix padded with one repeated character: detect-secrets
     expects AWS, Artifactory and Twilio prefixes padded with ``Z`` or ``x`` to be flagged,
     gitleaks lists the same padding after GitHub, GitLab, Slack, Vault... prefixes as
     must-not-flag;
   - the Mailchimp key shape, 32 hex digits and ``-us`` with a data-centre number:
     detect-secrets flags it anywhere, gitleaks lists a bare one as must-not-flag;
3. *gitleaks disagrees*: gitleaks' default rule set (vendored in ``gitleaks_rules.json``,
   applied as gitleaks applies it: keywords, regex, entropy limit, allowlists; no file paths)
   reports a row labelled not secret, or matches a row labelled secret and then drops it by its
   entropy limit or an allowlist. gitleaks is the one source whose detector can be run here, so
   its verdict stands in for its opinion on every string, not only on its own test strings.

Kinds 1 and 2 bound what any scrubber can score on the full file, because a scrubber that
treats equal shapes alike must get one side of each group wrong (:func:`best_pairs`). Kind 3
does not bound it, but siding with either source there is a choice between two detectors'
conventions, not a mistake; the targets are asserted on the rows without any conflict.
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from vaultctx.scrub import compiled_rules, scrub_secrets
from vaultctx.scrub.patterns import shannon_entropy
from vaultctx.scrub.scrubber import _allowlisted, _secret_span

LABELLED = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "secret-fixtures"
) / "labelled.jsonl"

RECALL_TARGET = 0.97
ALTERED_TARGET = 0.03


class Row(NamedTuple):
    text: str
    secret: bool
    kind: str
    origin: str
    secret_value: str | None

    @property
    def half(self) -> str:
        """``dev`` or ``held-out``, fixed by the text alone."""
        return "dev" if hashlib.sha256(self.text.encode()).digest()[0] % 2 == 0 else "held-out"


def load_rows(path: Path = LABELLED) -> list[Row]:
    rows = []
    for line in path.read_text("utf-8").splitlines():
        raw = json.loads(line)
        rows.append(
            Row(raw["text"], raw["secret"], raw["kind"], raw["origin"], raw.get("secret_value"))
        )
    return rows


# --- conflicts ----------------------------------------------------------------------------

SAME_TEXT = "same text"
SAME_SHAPE = "same shape"
GITLEAKS_DISAGREES = "gitleaks disagrees"


class Conflict(NamedTuple):
    """Why a row's label is contested. Rows of one ``group`` share one shape, so a scrubber
    that treats equal shapes alike gives them one verdict."""

    kind: str
    group: str


_TOKEN = re.compile(r"[A-Za-z0-9_+/-]{10,}")
_MAILCHIMP_SHAPE = re.compile(r"[0-9a-f]{32}-us\d{1,2}")


def _is_filler(token: str) -> bool:
    """One character at least 8 times, and at most a 9-character prefix's worth of others."""
    counts = collections.Counter(char for char in token if char.isalnum())
    if not counts:
        return False
    _, most = counts.most_common(1)[0]
    return most >= 8 and counts.total() - most <= 9


def has_placeholder_filler(text: str) -> bool:
    return any(_is_filler(token) for token in _TOKEN.findall(text))


def has_mailchimp_shape(text: str) -> bool:
    return bool(_MAILCHIMP_SHAPE.search(text))


SHAPE_CLASSES: dict[str, Callable[[str], bool]] = {
    "placeholder filler": has_placeholder_filler,
    "Mailchimp key shape": has_mailchimp_shape,
}


def labelled_both_ways_across_sources(rows: Iterable[Row]) -> bool:
    """True if one source calls some of ``rows`` secret and the other calls some not secret."""
    labels = {(row.origin, row.secret) for row in rows}
    return any(
        (origin, True) in labels and (other, False) in labels
        for origin, other in itertools.permutations({origin for origin, _ in labels}, 2)
    )


class GitleaksVerdict(NamedTuple):
    reported: bool  # some rule reports a finding
    dropped: bool  # some rule's regex matched, but its entropy limit or an allowlist dropped it


def gitleaks_verdict(text: str) -> GitleaksVerdict:
    """gitleaks' default rules on ``text``, without vaultctx's own rules and checks."""
    compiled = compiled_rules()
    lowered = text.lower()
    dropped = False
    for rule in compiled.rules[: compiled.gitleaks_compiled]:
        if rule.keywords and not any(keyword in lowered for keyword in rule.keywords):
            continue
        for match in rule.regex.finditer(text):
            start, end = _secret_span(rule, match)
            secret = text[start:end]
            if (rule.entropy and shannon_entropy(secret) <= rule.entropy) or _allowlisted(
                rule, match, secret, text, compiled.global_allowlists
            ):
                dropped = True
            else:
                return GitleaksVerdict(reported=True, dropped=dropped)
    return GitleaksVerdict(reported=False, dropped=dropped)


def conflicts(rows: Sequence[Row]) -> list[Conflict | None]:
    """For each row, why its label is contested, or None if it is consistent."""
    labels_by_text: dict[str, set[bool]] = collections.defaultdict(set)
    for row in rows:
        labels_by_text[row.text].add(row.secret)
    live_classes = [
        (name, test)
        for name, test in SHAPE_CLASSES.items()
        if labelled_both_ways_across_sources(row for row in rows if test(row.text))
    ]
    found: list[Conflict | None] = []
    for row in rows:
        shape = next((name for name, test in live_classes if test(row.text)), None)
        verdict = gitleaks_verdict(row.text)
        if shape is not None:
            found.append(Conflict(SAME_SHAPE, shape))
        elif len(labels_by_text[row.text]) == 2:
            digest = hashlib.sha256(row.text.encode()).hexdigest()[:8]
            found.append(Conflict(SAME_TEXT, f"text {digest}"))
        elif verdict.reported != row.secret and (verdict.reported or verdict.dropped):
            found.append(Conflict(GITLEAKS_DISAGREES, f"{row.origin}:{row.kind}"))
        else:
            found.append(None)
    return found


def consistent_rows(rows: Sequence[Row]) -> list[Row]:
    return [row for row, conflict in zip(rows, conflicts(rows), strict=True) if conflict is None]


# --- scoring ------------------------------------------------------------------------------


def caught(row: Row) -> bool:
    scrubbed = scrub_secrets(row.text).text
    return scrubbed != row.text and not (row.secret_value and row.secret_value in scrubbed)


def altered(row: Row) -> bool:
    return scrub_secrets(row.text).total > 0


class Score(NamedTuple):
    caught: int
    secrets: int
    altered: int
    non_secrets: int

    @property
    def recall(self) -> float:
        return self.caught / self.secrets if self.secrets else 1.0

    @property
    def altered_rate(self) -> float:
        return self.altered / self.non_secrets if self.non_secrets else 0.0

    def __str__(self) -> str:
        return (
            f"recall {self.recall:.1%} ({self.caught}/{self.secrets}), "
            f"altered {self.altered_rate:.1%} ({self.altered}/{self.non_secrets})"
        )


def score(rows: Iterable[Row]) -> Score:
    rows = list(rows)
    secrets = [row for row in rows if row.secret]
    others = [row for row in rows if not row.secret]
    return Score(sum(map(caught, secrets)), len(secrets), sum(map(altered, others)), len(others))


def best_pairs(rows: Sequence[Row]) -> list[Score]:
    """The Pareto front of what an ideal scrubber could score on all of ``rows``.

    Ideal: every row matches its label, except that each same-text or same-shape group gets
    one verdict (flag all or none). Every combination of group verdicts is tried.
    """
    groups: dict[str, list[Row]] = collections.defaultdict(list)
    right = 0
    for row, conflict in zip(rows, conflicts(rows), strict=True):
        if conflict is not None and conflict.kind in (SAME_TEXT, SAME_SHAPE):
            groups[conflict.group].append(row)
        else:
            right += row.secret
    secrets = sum(row.secret for row in rows)
    results = set()
    for verdicts in itertools.product((False, True), repeat=len(groups)):
        flagged = [
            row
            for flag, members in zip(verdicts, groups.values(), strict=True)
            if flag
            for row in members
        ]
        caught_rows = right + sum(row.secret for row in flagged)
        wrongly = sum(not row.secret for row in flagged)
        results.add(Score(caught_rows, secrets, wrongly, len(rows) - secrets))
    front = [
        result
        for result in results
        if not any(
            other != result and other.caught >= result.caught and other.altered <= result.altered
            for other in results
        )
    ]
    return sorted(front, key=lambda result: result.caught)
