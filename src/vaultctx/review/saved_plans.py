"""The list a review showed, kept so that ``--accept 1,3`` applies exactly the items listed.

A flow that asks a model proposes something different each time it runs: if ``--accept`` ran
the flow again, "3" could name another note than the one the user read. So a listing is saved
(per vault, flow and scope, e.g. the inbox folder or the decision topic), and a later
``--accept`` applies that saved list instead of proposing again, for ``MAX_AGE_SECONDS``; after
that, or when no list was saved, it proposes afresh. ``apply`` re-checks every item against the
vault as it is then, so an item applied twice, or overtaken by an edit, is skipped with a reason.

Plans live in the user's data folder (beside the index and the ledger, never in the vault),
readable by the user only: they may quote notes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultctx.atomic_write import write_atomically
from vaultctx.config import default_db_path
from vaultctx.proposals import Proposal

MAX_AGE_SECONDS = 24 * 3600
MAX_PLAN_BYTES = 20_000_000
FOLDER_NAME = "review"


@dataclass(frozen=True)
class SavedPlan:
    proposals: list[Proposal]
    saved_at: float  # seconds since the epoch


def plan_file(vault: Path, flow: str, scope: str) -> Path:
    """``<user data dir>/review/<vault name>-<digest>/<flow>-<digest of scope>.json``."""
    index = default_db_path(vault)
    safe_flow = "".join(c if c.isalnum() or c in "-_" else "-" for c in flow)[:40] or "flow"
    digest = hashlib.sha256(scope.encode("utf-8")).hexdigest()[:12]
    return index.parent / FOLDER_NAME / index.stem / f"{safe_flow}-{digest}.json"


def save_plan(vault: Path, flow: str, scope: str, proposals: list[Proposal]) -> None:
    payload = {
        "flow": flow,
        "scope": scope,
        "saved_at": time.time(),
        "proposals": [
            {"number": p.number, "title": p.title, "detail": p.detail, "data": p.data}
            for p in proposals
        ],
    }
    path = plan_file(vault, flow, scope)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(path, json.dumps(payload, ensure_ascii=False), mode=0o600)


def load_plan(vault: Path, flow: str, scope: str, *, now: float | None = None) -> SavedPlan | None:
    """The saved list, or None when there is none, it is too old, or it cannot be read (a
    damaged file is as good as none: the flow proposes again)."""
    path = plan_file(vault, flow, scope)
    try:
        if path.stat().st_size > MAX_PLAN_BYTES:
            return None
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    plan = _parsed(raw, flow, scope)
    if plan is None:
        return None
    age = (time.time() if now is None else now) - plan.saved_at
    return plan if 0 <= age <= MAX_AGE_SECONDS else None


def forget_plan(vault: Path, flow: str, scope: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(plan_file(vault, flow, scope))


def _parsed(raw: Any, flow: str, scope: str) -> SavedPlan | None:
    if not isinstance(raw, dict) or raw.get("flow") != flow or raw.get("scope") != scope:
        return None
    saved_at, items = raw.get("saved_at"), raw.get("proposals")
    if not isinstance(saved_at, (int, float)) or not isinstance(items, list):
        return None
    proposals = []
    for item in items:
        if not isinstance(item, dict):
            return None
        number, title = item.get("number"), item.get("title")
        detail, data = item.get("detail", ""), item.get("data", {})
        if not (
            isinstance(number, int)
            and isinstance(title, str)
            and isinstance(detail, str)
            and isinstance(data, dict)
        ):
            return None
        proposals.append(Proposal(number, title, detail, data))
    if [p.number for p in proposals] != list(range(1, len(proposals) + 1)):
        return None
    return SavedPlan(proposals, float(saved_at))


__all__ = ["MAX_AGE_SECONDS", "SavedPlan", "forget_plan", "load_plan", "plan_file", "save_plan"]
