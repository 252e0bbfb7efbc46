"""Triage as an approval flow (``ReviewFlow``): the Review page's list of new signals.

``vaultctx triage`` plans and applies in one go (or with ``--accept``); here the plan is the list
of proposals, one per untriaged signal with its scores, domain and destination, and ``apply``
writes the ticked ones with ``apply_triage``, the same code and the same single ledger record.
Scoring is ``plan_triage``'s: the model when one is given, else the offline heuristic.

The saved list (``vaultctx.review.saved_plans``) is read back as it was written, but it is still
a file: each accepted item is checked again here (a signal directly in the inbox, known scores,
a destination inside its domain's folder) and one that is not is skipped, never written.
"""

from __future__ import annotations

import math
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.signals.scores import DOMAINS, INBOX_ROUTE, Scores
from vaultctx.signals.settings import SignalSettings, load_signal_settings
from vaultctx.signals.triage import (
    TriageItem,
    TriagePlan,
    apply_triage,
    plan_triage,
    refresh_index,
    signal_inbox,
)

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

MAX_URL_CHARS = 2000
SCORE_KEYS = ("relevance", "actionability", "depth", "authority")
DAMAGED = "the saved list is damaged; propose again"


def web_address(source: str | None) -> str | None:
    """The signal's source when it is a plain http(s) address, else None: a feed or a note
    writes this field, so ``javascript:`` and the like never become a link."""
    if not source or len(source) > MAX_URL_CHARS or any(c.isspace() for c in source):
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in source):
        return None
    try:
        parts = urlsplit(source)
    except ValueError:
        return None
    return source if parts.scheme in ("http", "https") and parts.netloc else None


def proposal_of(item: TriageItem) -> Proposal:
    s = item.scores
    if item.destination:
        title = f"{item.title}: file {item.path} -> {item.destination}"
    else:
        title = f"{item.title}: keep {item.path} in the inbox, marked triaged"
    detail = (
        f"composite {s.composite:g} (relevance {s.relevance:.2f}, actionability "
        f"{s.actionability:.2f}, depth {s.depth:.2f}, authority {s.authority:.2f}); "
        f"domain {s.domain}; scored by {s.scored_by}"
    )
    link = web_address(item.source)
    if item.source and not link:  # a web address is shown as its link instead
        detail += f"\nsource: {item.source}"
    data: dict[str, Any] = {
        "path": item.path,
        "signal_title": item.title,
        "scores": {key: getattr(s, key) for key in SCORE_KEYS},
        "domain": s.domain,
        "scored_by": s.scored_by,
        "destination": item.destination,
    }
    if link:
        data["link"] = link
    return Proposal(item.number, title, detail, data)


@dataclass
class TriageFlow:
    """``vaultctx triage`` one signal at a time. ``model`` None scores offline."""

    model: TextModel | None = None
    settings: SignalSettings | None = None
    name: str = "triage"
    notices: list[str] = field(default_factory=list)

    def _settings(self, vault: Vault) -> SignalSettings:
        if self.settings is None:
            self.settings = load_signal_settings(vault.path)
        return self.settings

    async def propose(self, vault: Vault) -> list[Proposal]:
        self.notices.clear()
        settings = self._settings(vault)
        refreshed = refresh_index(vault)
        plan = await plan_triage(vault, settings, self.model)
        if refreshed:
            self.notices.append(refreshed)
        self.notices += [f"skipped {skipped}" for skipped in plan.skipped]
        self.notices += plan.notices
        self.notices += [item.notice for item in plan.items if item.notice]
        if not plan.items and plan.already_triaged:
            self.notices.append(
                f"no new signals in {plan.inbox}/ ({plan.already_triaged} already triaged)"
            )
        return [proposal_of(item) for item in plan.items]

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        settings = self._settings(vault)
        inbox = signal_inbox(vault, settings)
        result = ReviewResult(None)
        items: list[TriageItem] = []
        for proposal in accepted:
            item = _item(proposal, inbox, settings.folder)
            if item is None:
                result.skipped.append(f"{proposal.number}: {DAMAGED}")
            else:
                items.append(item)
        run = apply_triage(vault, TriagePlan(inbox, settings.folder, items))
        result.record_id = run.record_id
        result.applied = sorted(run.applied)
        numbers = {item.path: item.number for item in items}
        for skipped in run.skipped:
            path = skipped.split(": ", 1)[0]
            number = numbers.get(path)
            result.skipped.append(f"{number}: {skipped}" if number else skipped)
        result.paths = run.written
        result.notices = run.notices
        return result


def _item(proposal: Proposal, inbox: str, folder: str) -> TriageItem | None:
    """The saved proposal as the item ``apply_triage`` writes, or None when it is not one the
    flow could have proposed. The route is worked out again from the scores."""
    data = proposal.data
    path, title = data.get("path"), data.get("signal_title")
    domain, scored_by = data.get("domain"), data.get("scored_by")
    raw = data.get("scores")
    if not (
        isinstance(path, str)
        and isinstance(title, str)
        and isinstance(scored_by, str)
        and domain in DOMAINS
        and isinstance(raw, dict)
        and path.endswith(".md")
        and posixpath.dirname(path) == inbox.strip("/")
        and ".." not in path.split("/")
    ):
        return None
    values = [raw.get(key) for key in SCORE_KEYS]
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) != len(SCORE_KEYS) or not all(
        math.isfinite(v) and 0 <= v <= 1 for v in numbers
    ):
        return None
    relevance, actionability, depth, authority = (float(v) for v in numbers)
    scores = Scores(relevance, actionability, depth, authority, str(domain), scored_by)
    item = TriageItem(proposal.number, path, title, scores, INBOX_ROUTE)
    if scores.filed:
        item.route = f"{folder}/{domain}"
        destination = data.get("destination")
        if (
            not isinstance(destination, str)
            or posixpath.dirname(destination) != item.route
            or not destination.endswith(".md")
            or posixpath.basename(destination) in ("", ".md")
        ):
            return None
        item.destination = destination
    return item


__all__ = ["TriageFlow", "proposal_of", "web_address"]
