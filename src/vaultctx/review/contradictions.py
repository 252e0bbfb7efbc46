"""``vaultctx review contradictions TOPIC``: the contradictions ``reconcile_topic`` finds, as
proposals; an accepted one puts its suggestion into each of its notes (docs/second-brain.md).

Applying is grouped per note, so two accepted items about the same note both land in it: the
note's ``reconcile`` block gains each suggestion (with the statements that conflict), entries
already there are kept, and ``learned_at`` in the front matter becomes today (one line edited,
or a front matter prepended when the note has none). A note that no longer exists is skipped,
never created. All of it is one ledger record, labelled "review contradictions: TOPIC".
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultctx.brain.markers import neutralise, read_block, upsert_block
from vaultctx.brain.passages import one_line
from vaultctx.brain.reconcile import Contradiction, reconcile_topic
from vaultctx.brain.settings import load_second_brain_settings
from vaultctx.errors import VaultctxError
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.vault.front_matter_edit import set_value

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

BLOCK = "reconcile"
BLOCK_HEADING = "**Contradictions to reconcile** (from `vaultctx review contradictions`)"
_TITLE_CHARS = 120


class UnreadableReconcileError(VaultctxError):
    """The model's answer named no usable contradictions: not the same as none."""


class ContradictionsFlow:
    name = "contradictions"

    def __init__(
        self,
        topic: str,
        model: TextModel,
        *,
        source: str = "cli",
        today: dt.date | None = None,
    ) -> None:
        self.topic = topic
        self.model = model
        self.source = source
        self.today = today
        # What the list cannot say by itself (read by the review command when it shows them):
        # why it is empty, items left out, the search's own notices.
        self.notices: list[str] = []

    async def propose(self, vault: Vault) -> list[Proposal]:
        report = await reconcile_topic(vault, self.model, self.topic)
        if report.status in ("unreadable", "unusable"):
            raise UnreadableReconcileError(report.text.rstrip("."), "nothing was proposed")
        self.notices = list(report.notices)
        if report.status in ("none", "no-notes"):
            self.notices.append(report.text)
        if report.dropped:
            self.notices.append(
                f"{report.dropped} more item(s) of the model's answer were left out: "
                "not citing a note of the search"
            )
        return [
            Proposal(number, _title(item), _detail(item), {"contradiction": item.as_dict()})
            for number, item in enumerate(report.items, start=1)
        ]

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        from vaultctx.ledger.context import ChangeContext

        load_second_brain_settings(vault.path).require_enabled()
        today = (self.today or dt.date.today()).isoformat()
        by_note: dict[str, list[tuple[int, Contradiction]]] = {}
        for proposal in accepted:
            item = _contradiction(proposal)
            for path in item.note_paths:
                by_note.setdefault(path, []).append((proposal.number, item))
        result = ReviewResult(None)
        label = f"review contradictions: {one_line(self.topic, 80)}"
        change = ChangeContext(label=label, source=self.source)
        with vault.change_batch(change, "review-contradictions") as batch:
            for path, items in by_note.items():
                numbers = ",".join(str(number) for number, _ in items)
                if not os.path.isfile(vault.path.joinpath(*path.split("/"))):
                    result.skipped.append(f"{numbers}: {path} no longer exists (not created)")
                    continue
                try:
                    wrote = batch.rewrite(path, _applier(path, [i for _, i in items], today))
                except VaultctxError as exc:  # a broken marker or front matter, a refused path
                    result.skipped.append(f"{numbers}: {path}: {exc.message}")
                    continue
                if wrote:
                    result.paths.append(path)
                    result.applied += [n for n, _ in items if n not in result.applied]
                else:
                    result.notices.append(f"{path} already held these suggestions")
        if batch.change is not None:
            result.record_id = batch.change.record_id
            result.notices += batch.change.notices
        result.applied.sort()
        return result


def _contradiction(proposal: Proposal) -> Contradiction:
    """The item a proposal carries (its data may have been saved and read back: checked)."""
    raw = proposal.data.get("contradiction")
    if isinstance(raw, dict):
        paths, statements, suggestion = (
            raw.get("notePaths"),
            raw.get("statements"),
            raw.get("suggestion"),
        )
        if (
            isinstance(paths, list)
            and isinstance(statements, list)
            and isinstance(suggestion, str)
            and all(isinstance(item, str) for item in [*paths, *statements])
        ):
            return Contradiction(paths, statements, suggestion)
    raise VaultctxError(
        f"proposal {proposal.number} is not a contradiction proposal; nothing was written",
        "run `vaultctx review contradictions TOPIC` again for a fresh list",
    )


def _title(item: Contradiction) -> str:
    return f"{', '.join(item.note_paths)}: {one_line(item.suggestion, _TITLE_CHARS)}"


def _detail(item: Contradiction) -> str:
    lines = [f'conflicting: "{statement}"' for statement in item.statements]
    lines.append(f"suggestion: {item.suggestion}")
    return "\n".join(lines)


def _entry(item: Contradiction, today: str) -> str:
    lines = [f"- {today}: {item.suggestion}"]
    lines += [f'  - conflicting: "{statement}"' for statement in item.statements]
    return "\n".join(lines)


def _applier(path: str, items: list[Contradiction], today: str) -> Callable[[str], str]:
    def apply(text: str) -> str:
        existing = read_block(text, BLOCK, name=path)
        content = existing if existing is not None and existing.strip() else BLOCK_HEADING
        for item in items:
            if neutralise(f": {item.suggestion}") not in content:
                content += "\n" + _entry(item, today)
        edited = set_value(text, "learned_at", dt.date.fromisoformat(today), name=path)
        return upsert_block(edited, BLOCK, content, name=path)

    return apply


__all__ = ["ContradictionsFlow", "UnreadableReconcileError"]
