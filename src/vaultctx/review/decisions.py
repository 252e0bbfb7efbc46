"""``vaultctx review decisions TOPIC`` (docs/review.md#decisions): decisions the model finds in
the notes about a topic, merged into the decision ledger ``{wiki}/Decisions.md`` once the user
accepts them. Part of the Second Brain: refused while it is off.

The model's answer is hostile input: an entry needs a decision and at least one source among
the notes this search returned; dates that are not YYYY-MM-DD are blanked; an unknown status is
"open"; text is flattened to one line and capped. When applying, each source is checked again
to still exist, and entries left without one are skipped.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from vaultctx.brain.markers import read_block, upsert_block
from vaultctx.brain.wiki import check_wiki_folder, enabled_settings, vault_root
from vaultctx.ledger.context import ChangeContext
from vaultctx.model_reply import json_array, shown
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.review.decision_ledger import (
    BLOCK_KEY,
    FILE_NAME,
    HEADING,
    STATUSES,
    Decision,
    effective_status,
    merge,
    normalised,
    parse,
    render,
)

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

MAX_TOKENS = 2000
SEARCH_LIMIT = 10
PASSAGE_CHARS = 1500
MAX_ENTRIES = 30
MAX_FIELD_CHARS = 300

SYSTEM = """You extract decisions from a person's notes. A decision is something that was
decided (a choice made, a rule adopted), not an idea or a question. Use only the passages given.
Answer with a JSON array only (an empty array when there are none), one object per decision:
[{"decision": "...", "rationale": "...", "sources": ["<path of a passage>"],
  "decidedOn": "YYYY-MM-DD or empty", "owner": "...", "due": "YYYY-MM-DD or empty",
  "status": "open|done|superseded", "supersededBy": "<the decision replacing it, or empty>"}]"""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class DecisionsFlow:
    model: TextModel
    topic: str
    name: str = "decisions"
    notices: list[str] = field(default_factory=list)

    async def propose(self, vault: Vault) -> list[Proposal]:
        self.notices.clear()
        enabled_settings(vault)
        results = vault.search(self.topic, limit=SEARCH_LIMIT).results
        if not results:
            self.notices.append(f"no notes match {self.topic!r}; nothing was asked")
            return []
        paths = list(dict.fromkeys(result.file_path for result in results))
        passages = "\n\n".join(
            f"[{r.file_path}] {r.section}\n{r.text[:PASSAGE_CHARS]}" for r in results
        )
        prompt = f"Topic: {self.topic}\n\nPassages:\n\n{passages}"
        reply = await self.model.complete(SYSTEM, prompt, max_tokens=MAX_TOKENS)
        items = json_array(reply)
        if items is None:
            self.notices.append(
                f"the model's answer was not a JSON list, so nothing was proposed: {shown(reply)}"
            )
            return []
        return self._proposals(validated(items, paths, self.notices))

    def _proposals(self, entries: list[Decision]) -> list[Proposal]:
        proposals: list[Proposal] = []
        for entry in entries:
            status = effective_status(entry)
            details = [
                f"{label}: {value}"
                for label, value in (
                    ("rationale", entry.rationale),
                    ("decided on", entry.decided_on),
                    ("owner", entry.owner),
                    ("due", entry.due),
                    ("superseded by", entry.superseded_by),
                    ("sources", ", ".join(entry.sources)),
                )
                if value
            ]
            data = asdict(entry)
            data["sources"] = list(entry.sources)
            title = f"{entry.decision} [{status}]"
            proposals.append(Proposal(len(proposals) + 1, title, "\n".join(details), data))
        return proposals

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        settings = enabled_settings(vault)
        target = f"{settings.wiki_folder}/{FILE_NAME}"
        check_wiki_folder(vault_root(vault), settings.wiki_folder)
        result = ReviewResult(None)
        found: list[Decision] = []
        for proposal in accepted:
            entry = _from_data(proposal.data)
            if entry is None:
                result.skipped.append(f"{proposal.number}: not a decision entry")
                continue
            sources = tuple(s for s in entry.sources if _note_exists(vault, s))
            if not sources:
                result.skipped.append(f"{proposal.number}: none of its sources exists any more")
                continue
            found.append(Decision(**{**asdict(entry), "sources": sources}))
            result.applied.append(proposal.number)
        if not found:
            return result

        def merged(text: str) -> str:
            block = read_block(text, BLOCK_KEY, name=target)
            ledger = merge(parse(block or ""), found)
            return upsert_block(text, BLOCK_KEY, render(ledger), name=target)

        label = f"review decisions: {len(found)} into {target}"
        with vault.change_batch(ChangeContext(label, source="cli"), "review-decisions") as batch:
            if os.path.lexists(vault.path / target):
                batch.rewrite(target, merged)
            else:
                batch.create(target, merged(HEADING + "\n\n"))
        assert batch.change is not None
        result.record_id = batch.change.record_id
        result.paths = batch.change.paths
        result.notices = batch.change.notices
        return result


def validated(items: list[Any], paths: list[str], notices: list[str]) -> list[Decision]:
    """The entries of a model's answer that hold up, in order, one per decision."""
    known = {path: path for path in paths}
    known.update({path[:-3]: path for path in paths if path.endswith(".md")})
    entries: dict[str, Decision] = {}
    dropped = 0
    for item in items[:MAX_ENTRIES]:
        if not isinstance(item, dict):
            dropped += 1
            continue
        decision = _text(item.get("decision"))
        raw_sources = item.get("sources")
        sources = tuple(
            dict.fromkeys(
                known[s.strip()]
                for s in (raw_sources if isinstance(raw_sources, list) else [])
                if isinstance(s, str) and s.strip() in known
            )
        )
        if not decision or not sources:
            dropped += 1
            continue
        status = _text(item.get("status")).lower()
        entry = Decision(
            decision=decision,
            rationale=_text(item.get("rationale")),
            owner=_text(item.get("owner")),
            due=_date(item.get("due")),
            superseded_by=_text(item.get("supersededBy")),
            status=status if status in STATUSES else "open",
            sources=sources,
            decided_on=_date(item.get("decidedOn")),
        )
        if entry.key not in entries:
            entries[entry.key] = entry
    if dropped:
        notices.append(
            f"{dropped} entries of the model's answer dropped: each needs a decision and a "
            "source among the notes this search found"
        )
    return list(entries.values())


def _text(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())[:MAX_FIELD_CHARS]


def _date(value: object) -> str:
    text = _text(value)
    if not _DATE.match(text):
        return ""
    try:
        date.fromisoformat(text)
    except ValueError:
        return ""
    return text


def _from_data(data: dict[str, Any]) -> Decision | None:
    """A proposal's entry, re-validated (a saved list is a file on disk)."""
    decision = _text(data.get("decision"))
    raw = data.get("sources")
    sources = tuple(s for s in (raw if isinstance(raw, list) else []) if isinstance(s, str))
    if not decision or not normalised(decision):
        return None
    status = _text(data.get("status"))
    return Decision(
        decision=decision,
        rationale=_text(data.get("rationale")),
        owner=_text(data.get("owner")),
        due=_date(data.get("due")),
        superseded_by=_text(data.get("superseded_by")),
        status=status if status in STATUSES else "open",
        sources=sources,
        decided_on=_date(data.get("decided_on")),
    )


def _note_exists(vault: Vault, relative: str) -> bool:
    from vaultctx.vault.paths import UnsafePathError, normalize_vault_path

    try:
        clean = normalize_vault_path(relative)
    except UnsafePathError:
        return False
    absolute = vault.path / clean
    return absolute.is_file() and not any(
        os.path.islink(vault.path.joinpath(*clean.split("/")[: depth + 1]))
        for depth in range(clean.count("/") + 1)
    )


__all__ = ["DecisionsFlow", "validated"]
