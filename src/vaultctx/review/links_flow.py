"""``vaultctx review links``: accepted link suggestions written into each source note's
``related-links`` block (docs/second-brain.md#reviewing-links-and-duplicates)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from vaultctx.brain.reports import enabled_settings, link_suggestions
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.review.related_links import merge_related_links

if TYPE_CHECKING:
    from vaultctx.api import Vault


_REASONS = {"orphan": "an orphan (no links in or out)", "stub": "a stub (short, but linked to)"}


class LinksFlow:
    name = "links"

    async def propose(self, vault: Vault) -> list[Proposal]:
        return [
            Proposal(
                number,
                f"{s.source}: link to {s.target}",
                f"similarity {s.similarity:.1%}; {s.source} is {_REASONS[s.reason]}",
                {
                    "source": s.source,
                    "target": s.target,
                    "target_title": s.target_title,
                    "similarity": s.similarity,
                },
            )
            for number, s in enumerate(link_suggestions(vault), 1)
        ]

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        enabled_settings(vault)
        result = ReviewResult(None)
        by_source: dict[str, list[Proposal]] = {}
        for proposal in accepted:
            by_source.setdefault(proposal.data["source"], []).append(proposal)
        added_total = 0
        notes = "1 note" if len(by_source) == 1 else f"{len(by_source)} notes"
        label = f"review links: {len(accepted)} accepted in {notes}"
        with vault.change_batch(ChangeContext(label, source="cli"), "review-links") as batch:
            for source, proposals in by_source.items():
                if not os.path.isfile(vault.path / source):
                    result.skipped += [f"{p.number}: {source} no longer exists" for p in proposals]
                    continue
                valid = []
                for p in proposals:
                    if os.path.isfile(vault.path / p.data["target"]):
                        valid.append(p)
                    else:
                        result.skipped.append(f"{p.number}: {p.data['target']} no longer exists")
                links = [(p.data["target"], p.data["target_title"]) for p in valid]
                added = 0

                def merged(
                    text: str, links: list[tuple[str, str]] = links, source: str = source
                ) -> str:
                    nonlocal added
                    new, added = merge_related_links(text, links, name=source)
                    return new

                try:
                    batch.rewrite(source, merged)
                except VaultctxError as exc:
                    result.skipped += [f"{p.number}: {exc.one_line()}" for p in valid]
                    continue
                added_total += added
                result.applied += [p.number for p in valid]
        change = batch.change
        assert change is not None
        result.record_id = change.record_id
        result.paths = list(change.paths)
        total = "1 link" if added_total == 1 else f"{added_total} links"
        result.notices = [*change.notices, f"{total} added"]
        return result
