"""``vaultctx triage`` (docs/signals.md): score each new signal, write the scores into its front
matter, and file those at or above the threshold under ``<signals folder>/<domain>/``.

Planning reads and scores (with a model, or the offline heuristic) and writes nothing; applying
writes the whole run inside one ``Vault.change_batch``, so one ledger record holds every front
matter edit and every move and one ``vaultctx undo`` takes the run back.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.capture import inbox_folder
from vaultctx.errors import VaultctxError
from vaultctx.index.db import index_exists
from vaultctx.ledger.context import ChangeContext
from vaultctx.proposals import parse_accept
from vaultctx.signals.heuristic import heuristic_scores
from vaultctx.signals.inbox import TRIAGE_KEY, Signal, scan_inbox
from vaultctx.signals.model_scoring import model_scores
from vaultctx.signals.relevance import (
    ActiveProjects,
    best_similarity,
    load_active_projects,
    project_folders,
)
from vaultctx.signals.scores import INBOX_ROUTE, Scores
from vaultctx.signals.settings import SignalSettings, load_signal_settings
from vaultctx.vault.front_matter_edit import FrontMatterEditError, read_front_matter, set_value

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

MAX_NAME_ATTEMPTS = 1000


@dataclass
class TriageItem:
    number: int  # 1-based, what --accept names
    path: str
    title: str
    scores: Scores
    route: str  # "inbox", or the folder it is filed in
    destination: str | None = None  # the new path of a filed signal
    notice: str | None = None  # e.g. the model's reply was garbled: scored offline
    source: str | None = None  # the signal's ``source`` (a web address, as the feed gave it)

    def triage_value(self, at: dt.datetime) -> dict[str, Any]:
        """The ``triage`` front matter mapping."""
        return {
            "relevance": self.scores.relevance,
            "actionability": self.scores.actionability,
            "depth": self.scores.depth,
            "authority": self.scores.authority,
            "composite": self.scores.composite,
            "domain": self.scores.domain,
            "route": self.route,
            "scored_by": self.scores.scored_by,
            "triaged_at": at.isoformat(timespec="seconds"),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.number,
            "path": self.path,
            "title": self.title,
            **self.scores.as_dict(),
            "route": self.route,
            "destination": self.destination,
            "notice": self.notice,
        }


@dataclass
class TriagePlan:
    inbox: str
    folder: str
    items: list[TriageItem] = field(default_factory=list)
    already_triaged: int = 0
    skipped: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


@dataclass
class TriageRun:
    plan: TriagePlan
    dry_run: bool
    record_id: str | None = None
    written: list[str] = field(default_factory=list)  # signals triaged (their final paths)
    applied: list[int] = field(default_factory=list)  # their item numbers
    skipped: list[str] = field(default_factory=list)  # at apply time: "path: why"
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "dry_run": self.dry_run,
            "inbox": plan.inbox,
            "folder": plan.folder,
            "signals": [item.as_dict() for item in plan.items],
            "already_triaged": plan.already_triaged,
            "filed": sum(1 for item in plan.items if item.destination),
            "kept": sum(1 for item in plan.items if not item.destination),
            "record_id": self.record_id,
            "written": self.written,
            "skipped": [*plan.skipped, *self.skipped],
            "notices": [*plan.notices, *self.notices],
        }


def signal_inbox(vault: Vault, settings: SignalSettings) -> str:
    return settings.inbox or inbox_folder(vault.path, vault.config.settings.inbox_folder)


async def plan_triage(
    vault: Vault, settings: SignalSettings, model: TextModel | None = None
) -> TriagePlan:
    """Score every new signal and choose its route; nothing is written. A backend failure
    (``BackendFailure``) propagates: the run stops before anything is written."""
    inbox = signal_inbox(vault, settings)
    _check_folder(vault, settings.folder)
    scan = scan_inbox(vault.path, inbox)
    plan = TriagePlan(inbox, settings.folder, already_triaged=scan.triaged)
    plan.skipped += scan.skipped
    plan.notices += scan.notices
    if not scan.signals:
        return plan
    projects = load_active_projects(
        vault,
        folders=project_folders(vault, settings.project_folders),
        exclude=(inbox, settings.folder),
    )
    if projects.notice:
        plan.notices.append(projects.notice)
    reserved: set[str] = set()
    for signal in scan.signals:
        scores, notice = await _score(vault, projects, signal, model)
        number = len(plan.items) + 1
        item = TriageItem(
            number,
            signal.path,
            signal.title,
            scores,
            INBOX_ROUTE,
            notice=notice,
            source=signal.source,
        )
        if scores.filed:
            item.route = f"{settings.folder}/{scores.domain}"
            item.destination = _free_path(vault, item.route, signal.path, reserved)
            reserved.add(item.destination)
        plan.items.append(item)
    return plan


async def _score(
    vault: Vault, projects: ActiveProjects, signal: Signal, model: TextModel | None
) -> tuple[Scores, str | None]:
    if model is not None:
        scores, garbled = await model_scores(model, signal, projects.titles)
        if scores is not None:
            return scores, None
        notice = f"{signal.path}: the model's reply was garbled ({garbled}); scored offline"
        return heuristic_scores(signal, best_similarity(vault, projects, signal)), notice
    return heuristic_scores(signal, best_similarity(vault, projects, signal)), None


def _check_folder(vault: Vault, folder: str) -> None:
    """The signals folder must be real folders in the vault, or not exist yet: filing into a
    file or through a link would fail at every move, after the scores were written."""
    current = vault.path
    for part in folder.split("/"):
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise VaultctxError(
                f"{current} is not a folder (a file or a link), so no signal can be filed in "
                f"{folder}/; nothing was written",
                "move it away, or choose another [signals] folder in vaultctx.toml",
            )


def _free_path(vault: Vault, folder: str, source: str, reserved: set[str]) -> str:
    """``folder/<name>``, or ``<stem> 2.md``, ``<stem> 3.md``… when the name is taken (on disk
    or by another signal of this run)."""
    name = posixpath.basename(source)
    stem = name[: -len(".md")] if name.endswith(".md") else name
    for attempt in range(1, MAX_NAME_ATTEMPTS + 1):
        candidate = f"{folder}/{name}" if attempt == 1 else f"{folder}/{stem} {attempt}.md"
        taken = candidate in reserved or os.path.lexists(vault.path / candidate)
        if not taken:
            return candidate
    raise VaultctxError(
        f"{MAX_NAME_ATTEMPTS} notes named {stem!r} already exist in {folder}",
        "rename the signal, or move some of those notes",
    )


def apply_triage(vault: Vault, plan: TriagePlan, *, now: dt.datetime | None = None) -> TriageRun:
    """Write the plan as one ledger record; a signal changed or moved since it was planned is
    skipped with the reason, the others are still written."""
    run = TriageRun(plan, dry_run=False)
    if not plan.items:
        return run
    at = now or dt.datetime.now().astimezone()
    filed = sum(1 for item in plan.items if item.destination)
    label = f"triage {len(plan.items)} signals ({filed} filed)"
    reserved: set[str] = set()
    with vault.change_batch(ChangeContext(label, source="cli"), "triage") as batch:
        for item in plan.items:
            failed: list[str] = []
            original: list[str] = []

            def add_triage(
                text: str,
                item: TriageItem = item,
                failed: list[str] = failed,
                original: list[str] = original,
            ) -> str:
                updated = with_triage(text, item.triage_value(at), name=item.path)
                if updated is None:
                    failed.append("its front matter changed or cannot take a triage key")
                    return text
                original[:] = [text]
                return updated

            try:
                wrote = batch.rewrite(item.path, add_triage)
            except VaultctxError as exc:
                run.skipped.append(f"{item.path}: {exc.message}")
                continue
            if not wrote:
                reason = failed[0] if failed else "nothing to change"
                run.skipped.append(f"{item.path}: {reason}; left as it is")
                continue
            final = item.path
            if item.destination:
                destination = item.destination
                if os.path.lexists(vault.path / destination):  # taken since the plan was made
                    destination = _free_path(vault, item.route, item.path, reserved)
                reserved.add(destination)
                try:
                    batch.move(item.path, destination)
                    final = destination
                except VaultctxError as exc:
                    # Put the note back as it was: marked triaged but not filed, it would never
                    # be looked at again. It stays new, for the next run.
                    batch.rewrite(item.path, _replaced_by(original[0]))
                    run.skipped.append(f"{item.path}: not filed ({exc.message}); left new")
                    continue
            run.written.append(final)
            run.applied.append(item.number)
    change = batch.change
    if change is not None:
        run.record_id = change.record_id
        run.notices += change.notices
    return run


def refresh_index(vault: Vault) -> str | None:
    """The index's fast pass, so a project note written a minute ago counts for relevance;
    nothing when the vault has no index yet (building one is `vaultctx index`'s job)."""
    if not index_exists(vault.db_path):
        return None
    try:
        vault.index(fast=True)
    except VaultctxError as exc:  # another indexer is running, say: its index is nearly current
        return f"the index was not refreshed first ({exc.one_line()})"
    return None


def with_triage(text: str, triage: dict[str, Any], *, name: str = "the note") -> str | None:
    """``text`` with ``triage:`` added as its front matter's last key, or None when that cannot
    be done without touching anything else, or should not be: a note without front matter is no
    signal, and one triaged already keeps its scores."""
    try:
        front = read_front_matter(text, name=name)
        if front is None or TRIAGE_KEY in front:
            return None
        return set_value(text, TRIAGE_KEY, triage, name=name)
    except FrontMatterEditError:
        return None


def _replaced_by(text: str) -> Callable[[str], str]:
    return lambda _current: text


def run_triage(
    vault: Vault,
    *,
    model: TextModel | None = None,
    dry_run: bool = False,
    accept: str | None = None,
    settings: SignalSettings | None = None,
    now: dt.datetime | None = None,
) -> TriageRun:
    """Plan, then apply unless ``dry_run``. ``accept`` ("1,3", "2-4", "all") applies only those
    signals of the plan; the others stay new, for a later run."""
    settings = settings or load_signal_settings(vault.path)
    notice = refresh_index(vault)
    plan = asyncio.run(plan_triage(vault, settings, model))
    if notice:
        plan.notices.insert(0, notice)
    if accept is not None and plan.items:
        chosen = set(parse_accept(accept, len(plan.items)))
        left = [item for item in plan.items if item.number not in chosen]
        if left:
            numbers = ", ".join(str(item.number) for item in left)
            plan.notices.append(f"not accepted, left new for a later run: {numbers}")
        plan.items = [item for item in plan.items if item.number in chosen]
    if dry_run:
        return TriageRun(plan, dry_run=True)
    return apply_triage(vault, plan, now=now)


__all__ = [
    "TriageItem",
    "TriagePlan",
    "TriageRun",
    "apply_triage",
    "plan_triage",
    "refresh_index",
    "run_triage",
    "signal_inbox",
]
