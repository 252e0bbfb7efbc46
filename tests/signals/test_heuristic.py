"""The offline heuristic: each formula of docs/signals.md on fixed texts, and the same numbers on
every run."""

from __future__ import annotations

import pytest

from vaultctx.signals.domains import classify_domain, domain_counts
from vaultctx.signals.heuristic import (
    actionability,
    authority,
    depth,
    heuristic_scores,
    relevance_from_similarity,
)
from vaultctx.signals.inbox import Signal

HOW_TO = """# Rotate the signing key

How to rotate the key without downtime. You should run these steps in order:

1. Create the new key with `openssl genpkey`.
2. Deploy it next to the old one.
3. Remove the old key after a day.

```bash
openssl genpkey -algorithm ed25519 -out new.pem
```
"""

HEADLINE = "Big news today: a company announced things."


def signal(body: str, *, title: str = "T", source: str | None = None) -> Signal:
    return Signal(
        path="00-inbox/t.md", title=title, body=body, front_matter={}, tags=[], source=source
    )


def test_actionability_counts_cues_code_and_steps() -> None:
    # cues: how to, should, run, steps, deploy? (not a cue), remove? (no) -> "How to", "should",
    # "run", "steps" = 4 -> 0.4; a fence -> 0.3; three numbered steps -> 0.3.
    assert actionability(HOW_TO) == 1.0
    assert actionability(HEADLINE) == 0.0
    assert actionability("Use `x` here.") == pytest.approx(0.4 * 1 / 4 + 0.3 * 0.5)
    assert actionability("- [ ] one\n- [x] two\n") == pytest.approx(0.3 * 2 / 3, abs=1e-3)


def test_depth_counts_words_headings_and_blocks() -> None:
    assert depth("") == 0.0
    words_only = " ".join(["word"] * 400)
    assert depth(words_only) == 0.3  # 0.6 * 400/800
    long_structured = "# A\n## B\n## C\n" + "- item\n" * 5 + " ".join(["word"] * 900)
    assert depth(long_structured) == 1.0
    assert depth(HOW_TO) == pytest.approx(
        round(0.6 * len(HOW_TO.split()) / 800 + 0.2 * 1 / 3 + 0.2 * 4 / 5, 3)
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (None, 0.2),
        ("", 0.2),
        ("not a url", 0.2),
        ("ftp://nist.gov/x", 0.2),
        ("https://www.cisa.gov/news", 1.0),
        ("https://cs.stanford.edu/paper", 1.0),
        ("https://www.gov.uk/guidance", 1.0),
        ("https://docs.python.org/3/library/sqlite3.html", 0.9),
        ("https://learn.microsoft.com/en-us/powershell", 0.9),
        ("https://sqlite-utils.readthedocs.io/en/stable/", 0.9),
        ("https://github.com/asg017/sqlite-vec/releases", 0.8),
        ("https://blog.cloudflare.com/post", 0.8),
        ("https://notgithub.com/x", 0.5),
        ("https://someone.substack.com/p/x", 0.5),
        ("http://www.cisa.gov/plain", 0.4),
        ("http://random.example/x", 0.4),
    ],
)
def test_authority_from_the_source(source: str | None, expected: float) -> None:
    assert authority(source) == expected


def test_relevance_maps_similarity_between_floor_and_ceiling() -> None:
    assert relevance_from_similarity(None) == 0.5
    assert relevance_from_similarity(0.40) == 0.0
    assert relevance_from_similarity(0.20) == 0.0
    assert relevance_from_similarity(0.85) == 1.0
    assert relevance_from_similarity(0.99) == 1.0
    assert relevance_from_similarity(0.625) == 0.5


@pytest.mark.parametrize(
    ("title", "text", "domain"),
    [
        ("Critical CVE in OpenSSL", "Patch now: the vulnerability allows an exploit.", "security"),
        (
            "Kubernetes 1.30",
            "Upgrade your deployment and helm charts; docker images too.",
            "devops",
        ),
        ("Claude gets tools", "Anthropic's LLM agents and MCP servers.", "ai-tooling"),
        ("SQLite 3.46", "The database adds a new query planner and index options.", "data"),
        ("SwiftUI tips", "Build iOS apps faster.", "mobile"),
        ("A new paper on arXiv", "The study reports benchmark results on a dataset.", "research"),
        ("Nothing here", "Lorem ipsum dolor sit amet.", "other"),
    ],
)
def test_domain_by_keywords(title: str, text: str, domain: str) -> None:
    assert classify_domain(title, [], text) == domain


def test_a_declared_domain_wins_and_an_unknown_one_is_ignored() -> None:
    assert classify_domain("CVE", [], "exploit", declared="Design") == "design"
    assert classify_domain("CVE", [], "exploit", declared="cooking") == "security"


def test_title_counts_three_times_and_one_word_cannot_flood() -> None:
    counts = domain_counts("docker", [], "security " * 50)
    assert counts["devops"] == 3
    assert counts["security"] == 3  # capped at 3 occurrences


def test_keywords_match_whole_words_only() -> None:
    assert domain_counts("", [], "circuit, uicomponent, disclosure")["devops"] == 0
    assert classify_domain("", [], "pipeline: ci") == "devops"


def test_heuristic_is_deterministic() -> None:
    note = signal(HOW_TO, title="Rotate the signing key", source="https://docs.example.com/k")
    first = heuristic_scores(note, 0.7)
    assert all(heuristic_scores(note, 0.7) == first for _ in range(5))
    assert first.scored_by == "heuristic"
    assert first.authority == 0.9
    assert first.relevance == pytest.approx(0.667)
