"""The Second Brain's Bases dashboard (docs/second-brain.md#the-bases-dashboard):
``{wiki}/vaultctx Dashboard.base``, four table views in Obsidian's Bases over one small note
per item in ``{wiki}/Dashboard/``: the decision ledger, open questions (the knowledge gaps'
missing notes), outdated syntheses, and the review queue.

Bases shows notes by their properties, so each item is a note whose front matter says what it
is (``vaultctx_dashboard: true``, ``dashboard_type``, ``dashboard_active`` and its own fields),
named by a hash of what it is about, so the same decision stays the same note from one refresh
to the next (an active item's note is rewritten from the data at each refresh). An item that is
gone is kept with ``dashboard_active: false``, never deleted. The ``.base`` file starts with
``# vaultctx-dashboard: managed``; a file of that name without that first line is the user's
and is never overwritten: the refresh stops before writing anything. A refresh writes nothing
when nothing changed, and is one ledger record otherwise (run by the scheduler, it is one step
of the run's record).
It reads the index (gaps, review queue, stale syntheses): run ``vaultctx index`` first.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import yaml

from vaultctx.brain import reports
from vaultctx.brain.markers import MarkerError, read_block
from vaultctx.brain.settings import SecondBrainSettings
from vaultctx.brain.staleness import check_stale
from vaultctx.brain.wiki import (
    DASHBOARD_FOLDER,
    check_wiki_folder,
    enabled_settings,
    note_link,
    vault_root,
)
from vaultctx.errors import VaultctxError
from vaultctx.review import decision_ledger

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.batch import ChangeBatch
    from vaultctx.ledger.context import Change, ChangeContext

BASE_NAME = "vaultctx Dashboard.base"
MANAGED_LINE = "# vaultctx-dashboard: managed"
MARK = "vaultctx_dashboard: true"
VIEWS = (
    ("decision", "Decision ledger", ("title", "status", "owner", "due", "sources")),
    ("question", "Open questions", ("title", "references", "detail")),
    ("stale", "Outdated knowledge", ("note", "changed")),
    ("review", "Review queue", ("note", "score")),
)
_ACTIVE = re.compile(r"^dashboard_active: (?:true|false)$", re.MULTILINE)


class DashboardNotManagedError(VaultctxError):
    """A ``.base`` file of the dashboard's name that vaultctx did not write."""


@dataclass
class DashboardResult:
    base: str
    items: dict[str, int] = field(default_factory=dict)  # type -> active items
    deactivated: int = 0
    change: Change | None = None

    @property
    def message(self) -> str:
        counts = ", ".join(f"{n} {kind}" for kind, n in self.items.items())
        record = self.change.record_id if self.change else None
        if record is None:
            return f"Dashboard already current: {self.base} ({counts})"
        gone = f"; {self.deactivated} item(s) no longer active" if self.deactivated else ""
        return (
            f"Dashboard refreshed: {self.base} ({counts}{gone}; ledger record {record}, "
            "`vaultctx undo` reverts it)"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "base": self.base,
            "items": self.items,
            "deactivated": self.deactivated,
            "record_id": self.change.record_id if self.change else None,
        }


def base_file(folder: str) -> str:
    """The ``.base`` file's text: the managed line, then Bases YAML (written by a YAML library,
    so a folder name with quotes or colons stays one string)."""
    items = f"{folder}/{DASHBOARD_FOLDER}"
    views = [
        {
            "type": "table",
            "name": name,
            "filters": {"and": [f"dashboard_type == {json.dumps(kind)}"]},
            "order": list(columns),
        }
        for kind, name, columns in VIEWS
    ]
    document = {
        "filters": {
            "and": [
                f"file.inFolder({json.dumps(items, ensure_ascii=False)})",
                "vaultctx_dashboard == true",
                "dashboard_active == true",
            ]
        },
        "views": views,
    }
    body = yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=1_000_000)
    return f"{MANAGED_LINE}\n{body}"


def check_managed(root: os.PathLike[str], path: str) -> None:
    """Refuse a ``.base`` file at ``path`` that is not the dashboard vaultctx manages."""
    absolute = os.path.join(root, path)
    try:
        info = os.lstat(absolute)
    except FileNotFoundError:
        return
    first = ""
    if stat.S_ISREG(info.st_mode):
        with open(absolute, encoding="utf-8", errors="replace") as file:
            first = file.readline().rstrip("\r\n")
    if first != MANAGED_LINE:
        raise DashboardNotManagedError(
            f"{path} exists and is not the dashboard vaultctx manages (its first line is not "
            f"{MANAGED_LINE!r}); it was left as it is, and nothing was written",
            "rename your file to keep it, then refresh again; or add that first line to let "
            "vaultctx rewrite it",
        )


def _item(kind: str, identity: str, fields: dict[str, object], body: str) -> tuple[str, str]:
    """(file name, text) of one item note; the name hashes what the item is about."""
    digest = hashlib.sha256(f"{kind}\0{identity}".encode()).hexdigest()[:12]
    lines = ["---", MARK, "dashboard_active: true", f"dashboard_type: {kind}"]
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in fields.items()]
    return f"{kind}-{digest}.md", "\n".join([*lines, "---", "", body, ""])


def _decisions(vault: Vault, folder: str) -> list[tuple[str, str]]:
    path = vault_root(vault) / folder / decision_ledger.FILE_NAME
    if not path.is_file() or path.is_symlink():
        return []
    try:
        block = read_block(path.read_text(encoding="utf-8"), decision_ledger.BLOCK_KEY)
    except (MarkerError, OSError, UnicodeDecodeError):
        return []
    items = []
    for entry in decision_ledger.parse(block or "").entries:
        fields: dict[str, object] = {
            "title": entry.decision,
            "status": decision_ledger.effective_status(entry),
            "owner": entry.owner,
            "due": entry.due,
            "sources": list(entry.sources),
        }
        links = " · ".join(
            note_link(s, s.rsplit("/", 1)[-1].removesuffix(".md")) for s in entry.sources
        )
        items.append(_item("decision", entry.key, fields, links or entry.decision))
    return items


def wanted_items(vault: Vault, settings: SecondBrainSettings) -> dict[str, str]:
    """Every active item note: file name -> text."""
    items = _decisions(vault, settings.wiki_folder)
    for gap in reports.gaps(vault):
        if gap.kind == "missing":
            refs = round(gap.weight) - 3  # a missing note weighs 3 + the links to it
            fields = {"title": gap.name, "references": refs, "detail": gap.detail}
            items.append(_item("question", gap.name.casefold(), fields, f"[[{gap.name}]]"))
    for stale in check_stale(vault, write=False).stale:
        link = note_link(stale.path, stale.topic)
        fields = {"note": link, "changed": list(stale.changed)}
        items.append(_item("stale", stale.path, fields, link))
    for queued in reports.review_queue(vault, record=False).notes:
        link = note_link(queued.path, queued.title)
        fields = {"note": link, "score": round(queued.score, 1)}
        items.append(_item("review", queued.path, fields, link))
    return dict(items)


def refresh_in(batch: ChangeBatch, vault: Vault, settings: SecondBrainSettings) -> DashboardResult:
    """The dashboard refreshed as steps of ``batch``; ``DashboardNotManagedError`` (nothing
    written) when the ``.base`` file is the user's."""
    folder = settings.wiki_folder
    root = vault_root(vault)
    check_wiki_folder(root, folder)
    base = f"{folder}/{BASE_NAME}"
    check_managed(root, base)
    wanted = wanted_items(vault, settings)
    result = DashboardResult(base)
    for name in wanted:
        kind = name.split("-", 1)[0]
        result.items[kind] = result.items.get(kind, 0) + 1
    items = f"{folder}/{DASHBOARD_FOLDER}"
    batch.create_folder(items)
    for name, text in wanted.items():
        path = f"{items}/{name}"
        if os.path.lexists(root / path):
            batch.rewrite(path, _replaced_by(text))  # unchanged: nothing written
        else:
            batch.create(path, text)
    for name in sorted(os.listdir(root / items)):
        if name in wanted or not name.endswith(".md") or os.path.islink(root / items / name):
            continue
        if batch.rewrite(f"{items}/{name}", _deactivated):
            result.deactivated += 1
    content = base_file(folder)
    if not os.path.lexists(root / base):
        batch.create(base, content)
    else:
        batch.rewrite(base, _replaced_by(content))
    return result


def _replaced_by(new: str) -> Callable[[str], str]:
    return lambda _old: new


def _deactivated(text: str) -> str:
    """An item note of ours marked inactive; any other note as it is."""
    if not text.startswith(f"---\n{MARK}\n"):
        return text
    return _ACTIVE.sub("dashboard_active: false", text, count=1)


def refresh_dashboard(vault: Vault, *, change: ChangeContext) -> DashboardResult:
    """``vaultctx brain dashboard``: the refresh as one ledger record of its own."""
    settings = enabled_settings(vault)
    with vault.change_batch(change, "brain-dashboard") as batch:
        result = refresh_in(batch, vault, settings)
    result.change = batch.change
    return result
