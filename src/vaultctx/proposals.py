"""A list of proposed changes, and the user's choice of which to apply.

Every approval flow (links, duplicates, contradictions, decisions and inbox in ``review/``, para
in ``organize/``, triage in ``signals/``) works the same way: ``propose`` computes numbered
proposals and writes nothing; the user accepts some (one by one at a terminal, or ``--accept
1,3``); ``apply`` writes only those, inside one ``Vault.change_batch``, so the whole apply is one
ledger record and one ``vaultctx undo``. This contract sits below the feature packages, like
``text_model``, so each implements it without importing another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault


@dataclass(frozen=True)
class Proposal:
    number: int  # 1-based, what --accept names
    title: str  # one line: what would change
    detail: str = ""  # further lines shown under the title (evidence, the exact text)
    data: dict[str, Any] = field(default_factory=dict)  # what apply needs; JSON-able

    def as_dict(self) -> dict[str, Any]:
        # The flow's data first: a key of its own never hides the id, title or detail.
        return {**self.data, "id": self.number, "title": self.title, "detail": self.detail}


@dataclass
class ReviewResult:
    """What an apply did: ``record_id`` is the ledger record (None when nothing changed)."""

    record_id: str | None
    applied: list[int] = field(default_factory=list)  # proposal numbers written
    skipped: list[str] = field(default_factory=list)  # "3: Plan.md no longer exists"
    paths: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "record_id": self.record_id,
            "applied": self.applied,
            "skipped": self.skipped,
            "paths": self.paths,
            "notices": self.notices,
        }


class ReviewFlow(Protocol):
    """One approval flow. ``propose`` never writes; ``apply`` re-checks each accepted item
    against the vault as it is now (a note may have moved since) and skips, with a reason,
    what no longer applies."""

    name: str  # "links": the ledger label is "review links: …"

    # A flow may also have ``notices: list[str]``, filled by ``propose`` with what it left out
    # and why (a garbled model answer, a name collision, a cap reached); they are shown with the
    # list and returned under "notices" in --json. Optional, so older flows need nothing new.

    async def propose(self, vault: Vault) -> list[Proposal]: ...

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult: ...


_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def parse_accept(text: str, count: int) -> list[int]:
    """``--accept`` as proposal numbers: ``1,3``, ``2-4``, ``all``; anything else, or a
    number that is not on the list, is an error naming the valid range."""
    valid = f"give numbers from 1 to {count}, e.g. --accept 1,3 or --accept 2-4 or --accept all"
    if count == 0:
        raise VaultctxError("there is nothing to accept: the list is empty", "")
    if text.strip().lower() == "all":
        return list(range(1, count + 1))
    chosen: list[int] = []
    for part in text.split(","):
        match = _RANGE.match(part.strip())
        if match is None:
            raise VaultctxError(f"--accept {text!r}: {part.strip()!r} is not a number", valid)
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= count:
            raise VaultctxError(
                f"--accept {text!r}: {part.strip()} is not on the list of {count}", valid
            )
        chosen += [n for n in range(first, last + 1) if n not in chosen]
    return chosen


__all__ = ["Proposal", "ReviewFlow", "ReviewResult", "parse_accept"]
