"""A context block: the best passages about a topic as one markdown block, with their sources.

What ``vaultctx context``, the MCP ``get_context`` tool and the hooks paste into a model's prompt.
Facts come first, then where they come from, so a model can cite its sources; the whole block,
headings and source list included, fits the token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.search.budget import estimate_tokens

if TYPE_CHECKING:
    from vaultctx.search.graph import RelatedMoc
    from vaultctx.search.retriever import SearchResult


@dataclass(frozen=True)
class ContextBlock:
    """Vault context ready to paste into any AI tool, with its sources."""

    topic: str
    markdown: str
    sources: list[str]
    results: list[SearchResult]
    related_mocs: list[RelatedMoc] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "markdown": self.markdown,
            "sources": self.sources,
            "results": [r.as_dict() for r in self.results],
            "related_mocs": [asdict(moc) for moc in self.related_mocs],
        }


def passage_budget(max_tokens: int, limit: int) -> int:
    """The tokens the passages may take: the block's headings and source list need about 25
    tokens and 15 per passage, but the passages keep at least half of the budget."""
    return max(max_tokens - 25 - 15 * limit, max_tokens // 2)


def fitted_block(
    topic: str, results: Sequence[SearchResult], mocs: Sequence[RelatedMoc], max_tokens: int
) -> ContextBlock:
    """The block of ``results`` in rank order, the last ones dropped until it fits."""
    kept = list(results)
    while True:
        block = context_block(topic, kept, mocs)
        if estimate_tokens(block.markdown) <= max_tokens or not kept:
            return block
        kept.pop()


def context_block(
    topic: str, results: list[SearchResult], mocs: Sequence[RelatedMoc] = ()
) -> ContextBlock:
    """Facts first, then where they come from, so a model can cite its sources."""
    parts = [f"## Context from my notes: {topic}\n"]
    sources: list[str] = []
    for result in results:
        parts.append(f"### {result.title} ({result.citation})\n{result.text}\n")
        if result.citation not in sources:
            sources.append(result.citation)
    if sources:
        parts.append("Sources:\n" + "\n".join(f"- {s}" for s in sources) + "\n")
    else:
        parts.append("(nothing in the notes matches this topic)\n")
    shown = {result.file_path for result in results}
    mocs = [moc for moc in mocs if shown.intersection(moc.links_to)]
    if mocs:
        lines = [f"- {moc.path} ({moc.title})" for moc in mocs]
        parts.append("Maps of content linking to these notes:\n" + "\n".join(lines) + "\n")
    return ContextBlock(topic, "\n".join(parts), sources, results, mocs)
