"""Which of the 12 signal domains a text is about, by keyword counts
(docs/signals.md#the-offline-heuristic).

Each keyword found in the title or tags counts 3, each occurrence in the first 50,000 characters
of the text 1 (at most 3 per keyword, so one word repeated cannot outvote the rest); URLs in the
text are not read. The domain with the highest count wins; a tie goes to the domain listed
first; no keyword at all is ``other``. A front matter ``domain`` that names one of the 12 is the
user's choice and wins outright.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vaultctx.signals.scores import DOMAINS

# fmt: off
KEYWORDS: dict[str, tuple[str, ...]] = {
    "ai-tooling": (
        "llm", "llms", "gpt", "claude", "openai", "anthropic", "ollama", "copilot", "agent",
        "agents", "prompt", "embedding", "embeddings", "rag", "mcp", "machine learning",
        "language model", "transformer", "fine-tuning", "inference",
    ),
    "security": (
        "security", "vulnerability", "vulnerabilities", "cve", "exploit", "malware", "phishing",
        "oauth", "authentication", "xss", "csrf", "encryption", "cryptography", "tls",
        "ransomware", "patch", "zero-day", "pkce", "credential", "credentials",
    ),
    "systems": (
        "distributed", "architecture", "consensus", "latency", "throughput", "kernel",
        "scalability", "microservices", "operating system", "linux", "filesystem", "raft",
        "cache", "caching", "concurrency", "scheduler",
    ),
    "programming": (
        "python", "rust", "golang", "java", "javascript", "typescript", "compiler", "refactoring",
        "algorithm", "algorithms", "library", "api design", "type system", "generics", "async",
        "testing", "debugging", "design pattern",
    ),
    "web": (
        "frontend", "backend", "http", "css", "html", "browser", "react", "vue", "svelte",
        "rest api", "graphql", "websocket", "web", "dom", "node.js", "nextjs",
    ),
    "data": (
        "database", "databases", "sql", "sqlite", "postgres", "postgresql", "mysql", "query",
        "index", "etl", "data pipeline", "warehouse", "analytics", "vector search", "duckdb",
        "parquet", "schema",
    ),
    "devops": (
        "ci", "cd", "ci/cd", "docker", "kubernetes", "k8s", "terraform", "ansible", "deploy",
        "deployment", "container", "containers", "helm", "github actions", "observability",
        "monitoring", "infrastructure", "sre", "incident",
    ),
    "design": (
        "ux", "ui", "user experience", "usability", "typography", "figma", "accessibility",
        "design system", "prototype", "wireframe", "product design", "color",
    ),
    "mobile": (
        "ios", "android", "swift", "kotlin", "flutter", "react native", "mobile", "app store",
        "play store", "iphone", "swiftui", "jetpack compose",
    ),
    "career": (
        "career", "hiring", "interview", "salary", "promotion", "layoffs", "remote work",
        "management", "manager", "leadership", "mentoring", "job market",
    ),
    "research": (
        "paper", "arxiv", "study", "research", "whitepaper", "benchmark", "dataset",
        "experiment", "survey", "peer review", "preprint", "results",
    ),
    "other": (),
}
# fmt: on

_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
TITLE_WEIGHT = 3
MAX_HITS_PER_KEYWORD = 3
# A note's topic shows in its first pages; reading at most this much keeps one 1 MB signal from
# costing seconds.
MAX_TEXT_CHARS = 50_000

_DOMAINS_OF: dict[str, list[str]] = {}
for _domain, _words in KEYWORDS.items():
    for _word in _words:
        _DOMAINS_OF.setdefault(_word, []).append(_domain)
# One pass over the text for every keyword: the longest first, so "react native" is one hit.
_KEYWORD = re.compile(
    r"(?<![\w/.-])("
    + "|".join(re.escape(word) for word in sorted(_DOMAINS_OF, key=len, reverse=True))
    + r")(?![\w/-])"
)


def domain_counts(title: str, tags: Sequence[str], text: str) -> dict[str, int]:
    head = (title + "\n" + " ".join(tag.replace("/", " ") for tag in tags)).lower()
    # A link says where, not what: every clip and feed entry has one.
    body = _URL.sub(" ", text[:MAX_TEXT_CHARS].lower())
    hits: dict[str, int] = {}
    for match in _KEYWORD.finditer(body):
        hits[match.group(1)] = min(MAX_HITS_PER_KEYWORD, hits.get(match.group(1), 0) + 1)
    for word in {match.group(1) for match in _KEYWORD.finditer(head)}:
        hits[word] = hits.get(word, 0) + TITLE_WEIGHT
    counts = dict.fromkeys(KEYWORDS, 0)
    for word, count in hits.items():
        for domain in _DOMAINS_OF[word]:
            counts[domain] += count
    return counts


def classify_domain(title: str, tags: Sequence[str], text: str, declared: object = None) -> str:
    if isinstance(declared, str) and declared.strip().lower() in DOMAINS:
        return declared.strip().lower()
    counts = domain_counts(title, tags, text)
    best = max(DOMAINS, key=lambda domain: (counts[domain], -DOMAINS.index(domain)))
    return best if counts[best] > 0 else "other"


__all__ = ["KEYWORDS", "classify_domain", "domain_counts"]
