"""``vaultctx review duplicates``: an accepted cluster is recorded on its canonical note, and
nothing is merged or deleted (docs/second-brain.md#reviewing-links-and-duplicates).

The canonical note's front matter ``aliases`` gains each duplicate's title and file name (so a
search or a link by either finds it), and its ``canonical-candidates`` block lists the
duplicates. A cluster whose canonical note cannot be edited safely (its front matter is not
valid YAML, say) is skipped with the reason; the other accepted clusters are still applied.
"""

from __future__ import annotations

import os
import posixpath
from typing import TYPE_CHECKING, Any

from vaultctx.brain.markers import upsert_block
from vaultctx.brain.reports import duplicates, enabled_settings
from vaultctx.brain.wikilinks import note_link
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.vault.front_matter_edit import ALIASES, add_list_items

if TYPE_CHECKING:
    from vaultctx.api import Vault

BLOCK_KEY = "canonical-candidates"


def _basename(path: str) -> str:
    name = posixpath.basename(path)
    return name[:-3] if name.lower().endswith(".md") else name


def aliases_for(
    canonical: str, canonical_title: str, duplicates: list[dict[str, Any]]
) -> list[str]:
    """Each duplicate's title and file name, without the canonical note's own, de-duplicated
    case-insensitively."""
    own = {canonical_title.casefold(), _basename(canonical).casefold()}
    found: list[str] = []
    for duplicate in duplicates:
        for alias in (duplicate["title"], _basename(duplicate["path"])):
            if alias.strip() and alias.casefold() not in own:
                own.add(alias.casefold())
                found.append(alias)
    return found


def candidates_block(duplicates: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"- {note_link(d['path'], d['title'])} — `{d['path']}` (similarity {d['similarity']:.1%})"
        for d in duplicates
    )


class DuplicatesFlow:
    name = "duplicates"

    async def propose(self, vault: Vault) -> list[Proposal]:
        proposals = []
        for number, cluster in enumerate(duplicates(vault), 1):
            dups = [vars(d) for d in cluster.duplicates]
            count = len(dups)
            proposals.append(
                Proposal(
                    number,
                    f"{cluster.canonical}: record {count} duplicate{'s' if count > 1 else ''} "
                    f"({cluster.reason})",
                    "\n".join(f"{d['path']} (similarity {d['similarity']:.1%})" for d in dups),
                    {
                        "canonical": cluster.canonical,
                        "canonical_title": cluster.canonical_title,
                        "reason": cluster.reason,
                        "duplicates": dups,
                    },
                )
            )
        return proposals

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        enabled_settings(vault)
        result = ReviewResult(None)
        label = f"review duplicates: {len(accepted)} clusters"
        with vault.change_batch(ChangeContext(label, source="cli"), "review-duplicates") as batch:
            for proposal in accepted:
                canonical = proposal.data["canonical"]
                if not os.path.isfile(vault.path / canonical):
                    result.skipped.append(f"{proposal.number}: {canonical} no longer exists")
                    continue
                present = [
                    d for d in proposal.data["duplicates"] if os.path.isfile(vault.path / d["path"])
                ]
                if not present:
                    result.skipped.append(f"{proposal.number}: its duplicates no longer exist")
                    continue
                aliases = aliases_for(canonical, proposal.data["canonical_title"], present)
                block = candidates_block(present)

                def recorded(
                    text: str,
                    aliases: list[str] = aliases,
                    block: str = block,
                    canonical: str = canonical,
                ) -> str:
                    text = add_list_items(text, ALIASES, aliases, name=canonical)
                    return upsert_block(text, BLOCK_KEY, block, name=canonical)

                try:
                    batch.rewrite(canonical, recorded)
                except VaultctxError as exc:
                    result.skipped.append(f"{proposal.number}: {exc.one_line()}")
                    continue
                result.applied.append(proposal.number)
        change = batch.change
        assert change is not None
        result.record_id = change.record_id
        result.paths = list(change.paths)
        result.notices = list(change.notices)
        return result
