"""The offline scores: plain counts over the signal's text, the same numbers on every run
(docs/signals.md#the-offline-heuristic, which gives each formula).

Relevance needs the vault (similarity to its active projects, ``relevance.py``); this module
takes that similarity as a number and turns it into a score.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from vaultctx.signals.domains import classify_domain
from vaultctx.signals.inbox import Signal
from vaultctx.signals.scores import Scores, clamp

# Cosine similarity (static model) at or below FLOOR is unrelated, at or above CEILING as close
# as a note about the same project gets. Measured on the example vault: a recipe 0.18, sports
# news 0.48, a Postgres release 0.64, a billing API change to the billing project 0.70, the
# sqlite-vec release to the vaultctx project 0.85.
RELEVANCE_FLOOR = 0.40
RELEVANCE_CEILING = 0.85
NEUTRAL_RELEVANCE = 0.5  # no active project to compare with

CUE_TARGET = 4  # imperative / how-to cues for full marks
STEP_TARGET = 3  # numbered steps or checkboxes for full marks
WORD_TARGET = 800  # words for full marks on length
HEADING_TARGET = 3
BLOCK_TARGET = 5  # list items, code blocks and table rows

CUES = (
    "how to", "step", "steps", "guide", "tutorial", "walkthrough", "install", "configure",
    "set up", "setup", "upgrade", "migrate", "fix", "patch", "enable", "disable", "run", "use",
    "try", "should", "must", "recommended", "checklist", "example", "replace", "update", "rotate",
)  # fmt: skip
_CUE = re.compile(r"\b(?:" + "|".join(re.escape(cue) for cue in CUES) + r")\b", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_STEP = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|[-*+] \[[ xX]\])[ \t]+\S", re.MULTILINE)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\S", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)

NO_SOURCE_AUTHORITY = 0.2
PLAIN_HTTP_AUTHORITY = 0.4
WEB_AUTHORITY = 0.5
VENDOR_AUTHORITY = 0.8
DOCS_AUTHORITY = 0.9
PUBLIC_BODY_AUTHORITY = 1.0
# Official documentation sites, beyond the docs./developer./learn. host prefixes.
DOCS_HOSTS = (
    "readthedocs.io", "docs.rs", "go.dev", "kubernetes.io", "rust-lang.org", "nodejs.org",
    "developer.mozilla.org", "learn.microsoft.com", "docs.github.com",
)  # fmt: skip
DOCS_PREFIXES = ("docs.", "developer.", "developers.", "learn.", "devdocs.")
# Vendors, standards bodies and projects that publish first-hand (a host or any subdomain).
VENDOR_HOSTS = (
    "github.com", "gitlab.com", "python.org", "microsoft.com", "apple.com", "google.com",
    "googleblog.com", "amazon.com", "cloudflare.com", "openai.com", "anthropic.com",
    "mozilla.org", "kernel.org", "sqlite.org", "postgresql.org", "owasp.org", "cve.org",
    "mitre.org", "arxiv.org", "acm.org", "ieee.org", "w3.org", "ietf.org", "rfc-editor.org",
    "apache.org", "linuxfoundation.org", "obsidian.md",
)  # fmt: skip
PUBLIC_SUFFIXES = (".gov", ".edu", ".mil", ".int")
PUBLIC_SECOND_LEVEL = ("gov", "edu", "ac", "go", "mil")  # gov.uk, ac.jp, go.kr, …


def relevance_from_similarity(similarity: float | None) -> float:
    if similarity is None:
        return NEUTRAL_RELEVANCE
    return clamp((similarity - RELEVANCE_FLOOR) / (RELEVANCE_CEILING - RELEVANCE_FLOOR))


def actionability(text: str) -> float:
    cues = min(CUE_TARGET, len(_CUE.findall(text))) / CUE_TARGET
    if _FENCE.search(text):
        code = 1.0
    elif _INLINE_CODE.search(text):
        code = 0.5
    else:
        code = 0.0
    steps = min(STEP_TARGET, len(_STEP.findall(text))) / STEP_TARGET
    return clamp(0.4 * cues + 0.3 * code + 0.3 * steps)


def depth(text: str) -> float:
    words = min(WORD_TARGET, len(text.split())) / WORD_TARGET
    headings = min(HEADING_TARGET, len(_HEADING.findall(text))) / HEADING_TARGET
    fences = len(_FENCE.findall(text)) // 2
    blocks = len(_LIST_ITEM.findall(text)) + fences + len(_TABLE_ROW.findall(text))
    structure = min(BLOCK_TARGET, blocks) / BLOCK_TARGET
    return clamp(0.6 * words + 0.2 * headings + 0.2 * structure)


def authority(source: str | None) -> float:
    if not source:
        return NO_SOURCE_AUTHORITY
    try:
        parts = urlsplit(source.strip())
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        return NO_SOURCE_AUTHORITY
    if parts.scheme not in ("http", "https") or not host:
        return NO_SOURCE_AUTHORITY
    labels = host.split(".")
    if host.endswith(PUBLIC_SUFFIXES) or (len(labels) >= 3 and labels[-2] in PUBLIC_SECOND_LEVEL):
        score = PUBLIC_BODY_AUTHORITY
    elif host.startswith(DOCS_PREFIXES) or _within(host, DOCS_HOSTS):
        score = DOCS_AUTHORITY
    elif _within(host, VENDOR_HOSTS):
        score = VENDOR_AUTHORITY
    else:
        score = WEB_AUTHORITY
    if parts.scheme == "http":
        score = min(score, PLAIN_HTTP_AUTHORITY)
    return score


def _within(host: str, domains: tuple[str, ...]) -> bool:
    return any(host == domain or host.endswith("." + domain) for domain in domains)


def heuristic_scores(signal: Signal, similarity: float | None) -> Scores:
    """The four scores and the domain of ``signal``; ``similarity`` is its best cosine
    similarity to an active project (None: the vault has none)."""
    return Scores(
        relevance=relevance_from_similarity(similarity),
        actionability=actionability(signal.body),
        depth=depth(signal.body),
        authority=authority(signal.source),
        domain=classify_domain(signal.title, signal.tags, signal.body, signal.declared_domain),
        scored_by="heuristic",
    )


__all__ = [
    "actionability",
    "authority",
    "depth",
    "heuristic_scores",
    "relevance_from_similarity",
]
