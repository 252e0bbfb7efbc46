"""The Review page: a browser face on the approval flows of ``vaultctx review`` (docs/review.md).

Nothing here proposes or writes by itself: each flow's ``propose`` makes the list and its
``apply`` writes the accepted items as one ledger record. What this module adds is what the CLI's
``run_review`` adds at a terminal: the list shown is saved (``vaultctx.review.saved_plans``) and
"Apply selected" applies that saved list, never a fresh proposal, so the numbers the user ticked
name the items the user read. The form carries the list's save time: a list replaced since (the
page proposed again in another tab) is refused rather than applied in its place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.proposals import Proposal, ReviewFlow
    from vaultctx.text_model import TextModel
    from vaultctx.ui.pages import Pages

T = TypeVar("T")
FLOWS = ("links", "duplicates", "contradictions", "decisions", "inbox", "triage", "para")
TOPIC_FLOWS = frozenset({"contradictions", "decisions"})
# The flows that may wait for a model (triage only when one is set up) or re-index first.
MODEL_FLOWS = frozenset({"contradictions", "decisions", "inbox", "triage", "para"})
MAX_FIELD_CHARS = 500


@dataclass(frozen=True)
class ReviewForm:
    """Which list: the flow, and the topic or inbox folder the model flows need."""

    flow: str = "links"
    topic: str = ""
    folder: str = ""

    @classmethod
    def from_values(cls, values: Any) -> ReviewForm:
        flow = str(values.get("flow", "links"))
        return cls(
            flow=flow if flow in FLOWS else "links",
            topic=str(values.get("topic", "")).strip()[:MAX_FIELD_CHARS],
            folder=str(values.get("folder", "")).strip()[:MAX_FIELD_CHARS],
        )

    def scope(self) -> str:
        """Tells saved lists apart: one per topic or folder, and never the CLI's own lists."""
        if self.flow in TOPIC_FLOWS:
            return "ui\0" + " ".join(self.topic.split()).casefold()
        if self.flow == "inbox":
            return "ui\0" + self.folder.strip("/")
        return "ui"


def configured_model(vault: Vault) -> TextModel:
    """The model of the Chat page (the vault's ``[agent]`` settings); none is a clear refusal."""
    from vaultctx.agent.settings import load_agent_settings

    settings = load_agent_settings(vault.path, {})
    if not settings.model:
        raise VaultctxError(
            "this review's proposals come from a model, and none is configured",
            "set [agent] model in your own vaultctx.toml (the user config folder; docs/agent.md), "
            "then reload",
        )
    from vaultctx.agent.backends import require_agent_extra

    require_agent_extra()
    from vaultctx.agent.complete import BackendTextModel

    return BackendTextModel(settings)


def optional_model(vault: Vault) -> TextModel | None:
    """Triage's model: the configured one, or None (the offline heuristic) when there is none,
    as ``vaultctx triage`` does without ``--model``."""
    from vaultctx.agent.settings import load_agent_settings

    if not load_agent_settings(vault.path, {}).model:
        return None
    return configured_model(vault)


def para_flow(vault: Vault, scope: str) -> ReviewFlow:
    """``vaultctx para`` as its command builds it: templates, to-do notes and the Second
    Brain's wiki keep their folders; notes this page's last list offered are classified last."""
    from vaultctx.agent.settings import load_agent_settings
    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.organize.para import ParaFlow
    from vaultctx.organize.todo import load_todo_settings
    from vaultctx.review.saved_plans import load_plan

    model = configured_model(vault)
    todo = load_todo_settings(vault.config)
    left_alone = [
        load_agent_settings(vault.path, {}).template_folder,
        todo.folder,
        todo.archive_folder,
        load_second_brain_settings(vault.path).wiki_folder,
    ]
    previous = load_plan(vault.path, "para", scope)
    offered = [str(p.data.get("source")) for p in previous.proposals] if previous else []
    return ParaFlow(model, left_alone=list(dict.fromkeys(left_alone)), offered=offered)


def build_flow(vault: Vault, form: ReviewForm) -> ReviewFlow:
    """Each flow as its ``vaultctx review`` command builds it (src/vaultctx/cli/*review*,
    ``vaultctx triage``, ``vaultctx para``)."""
    from vaultctx.brain.reports import enabled_settings

    if form.flow == "triage":
        from vaultctx.signals.triage_flow import TriageFlow

        return TriageFlow(optional_model(vault))
    if form.flow == "para":
        return para_flow(vault, form.scope())
    if form.flow == "links":
        from vaultctx.review.links_flow import LinksFlow

        enabled_settings(vault)
        return LinksFlow()
    if form.flow == "duplicates":
        from vaultctx.review.duplicates_flow import DuplicatesFlow

        enabled_settings(vault)
        return DuplicatesFlow()
    if form.flow == "inbox":
        from vaultctx.capture import inbox_folder as capture_inbox
        from vaultctx.review.inbox import InboxFlow, inbox_folder

        folder = form.folder or capture_inbox(vault.path, vault.config.settings.inbox_folder)
        return InboxFlow(configured_model(vault), inbox_folder(vault, folder))
    if not form.topic:
        raise VaultctxError("the topic is empty", "name what the notes are about, e.g. database")
    enabled_settings(vault)
    if form.flow == "decisions":
        from vaultctx.review.decisions import DecisionsFlow

        return DecisionsFlow(configured_model(vault), form.topic)
    from vaultctx.review.contradictions import ContradictionsFlow

    return ContradictionsFlow(form.topic, configured_model(vault))


def _with_vault(pages: Pages, form: ReviewForm, action: Callable[[Vault], T]) -> T:
    """A model's answer can take minutes: a model flow gets a ``Vault`` of its own (as each
    chat does) instead of holding the one the other pages share; the ledger's own lock keeps
    writes apart. The offline flows are quick and share it."""
    if form.flow not in MODEL_FLOWS:
        return pages.call(action)
    from vaultctx.api import Vault

    with Vault(config=pages.vault.config) as own:
        return action(own)


def _notices(flow: ReviewFlow) -> list[str]:
    found = getattr(flow, "notices", [])
    return [str(notice) for notice in found] if isinstance(found, list) else []


def _chosen(values: list[str], count: int) -> list[int]:
    """The ticked numbers; one that is not on the list is the form tampered with: refused."""
    chosen: list[int] = []
    for value in values:
        if not value.isdigit() or not 1 <= int(value) <= count:
            raise VaultctxError(f"item {value[:20]!r} is not on the list", "propose again")
        if int(value) not in chosen:
            chosen.append(int(value))
    return chosen


async def review(pages: Pages, request: Request) -> Response:
    form = ReviewForm.from_values(request.query_params)
    return pages.page(request, "review.html", form=form, flows=FLOWS)


async def propose(pages: Pages, request: Request) -> Response:
    form = ReviewForm.from_values(await request.form())
    return await run_in_threadpool(_propose, pages, request, form)


def _propose(pages: Pages, request: Request, form: ReviewForm) -> Response:
    from vaultctx.review.saved_plans import forget_plan, load_plan, save_plan

    def listing(vault: Vault) -> tuple[list[Proposal], list[str], float | None]:
        flow = build_flow(vault, form)
        proposals = asyncio.run(flow.propose(vault))
        if not proposals:
            forget_plan(vault.path, flow.name, form.scope())
            return proposals, _notices(flow), None
        save_plan(vault.path, flow.name, form.scope(), proposals)
        saved = load_plan(vault.path, flow.name, form.scope())
        return proposals, _notices(flow), saved.saved_at if saved else None

    try:
        proposals, notices, saved_at = _with_vault(pages, form, listing)
    except VaultctxError as exc:
        return pages.page(request, "review.html", 400, form=form, flows=FLOWS, problem=exc)
    return pages.page(
        request,
        "review.html",
        form=form,
        flows=FLOWS,
        proposals=proposals,
        notices=notices,
        saved_at=repr(saved_at) if saved_at is not None else "",
        proposed=True,
    )


async def apply(pages: Pages, request: Request) -> Response:
    values = await request.form()
    form = ReviewForm.from_values(values)
    accepted = [str(item) for item in values.getlist("accept")]
    return await run_in_threadpool(
        _apply, pages, request, form, str(values.get("saved", "")), accepted
    )


def _apply(
    pages: Pages, request: Request, form: ReviewForm, saved: str, ticked: list[str]
) -> Response:
    from vaultctx.review.saved_plans import load_plan

    def applying(vault: Vault) -> Any:
        flow = build_flow(vault, form)
        plan = load_plan(vault.path, flow.name, form.scope())
        if plan is None or repr(plan.saved_at) != saved:
            raise VaultctxError(
                "the list shown is no longer the one saved (proposed again, or older than a day)",
                "press Propose for a fresh list",
            )
        chosen = _chosen(ticked, len(plan.proposals))
        if not chosen:
            raise VaultctxError("no item is selected", "tick the items to apply")
        return flow.apply(vault, [p for p in plan.proposals if p.number in chosen])

    try:
        result = _with_vault(pages, form, applying)
    except VaultctxError as exc:
        return pages.page(request, "review.html", 400, form=form, flows=FLOWS, problem=exc)
    return pages.page(request, "review.html", form=form, flows=FLOWS, result=result)
