"""A signal's four scores, their composite, and where the composite sends it.

composite = 0.35·relevance + 0.25·actionability + 0.25·depth + 0.15·authority; a signal whose
composite is at least 0.55 is filed under ``<signals folder>/<domain>/``, one below stays in the
inbox, marked as triaged. Scores are rounded to three decimals before the composite is taken,
and the composite to five (weights have two decimals, so that is the exact sum, without float
noise): the numbers written into the note are the numbers that decided, and 0.55 exactly files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WEIGHTS = {"relevance": 0.35, "actionability": 0.25, "depth": 0.25, "authority": 0.15}
THRESHOLD = 0.55
DOMAINS = (
    "ai-tooling",
    "security",
    "systems",
    "programming",
    "web",
    "data",
    "devops",
    "design",
    "mobile",
    "career",
    "research",
    "other",
)
INBOX_ROUTE = "inbox"


def clamp(value: float) -> float:
    """Into 0–1 and three decimals: what the front matter shows is what was compared."""
    return round(min(1.0, max(0.0, value)), 3)


@dataclass(frozen=True)
class Scores:
    relevance: float
    actionability: float
    depth: float
    authority: float
    domain: str
    scored_by: str  # "heuristic" or the model's name

    @property
    def composite(self) -> float:
        return composite(self.relevance, self.actionability, self.depth, self.authority)

    @property
    def filed(self) -> bool:
        return self.composite >= THRESHOLD

    def as_dict(self) -> dict[str, Any]:
        return {
            "relevance": self.relevance,
            "actionability": self.actionability,
            "depth": self.depth,
            "authority": self.authority,
            "composite": self.composite,
            "domain": self.domain,
            "scored_by": self.scored_by,
        }


def composite(relevance: float, actionability: float, depth: float, authority: float) -> float:
    """The weighted sum without float noise (0.55 is 0.55, not 0.5499999999)."""
    total = (
        WEIGHTS["relevance"] * relevance
        + WEIGHTS["actionability"] * actionability
        + WEIGHTS["depth"] * depth
        + WEIGHTS["authority"] * authority
    )
    return round(total, 5)


__all__ = ["DOMAINS", "INBOX_ROUTE", "THRESHOLD", "WEIGHTS", "Scores", "clamp", "composite"]
