"""``vaultctx review …``: approval flows (docs/review.md). Each flow proposes numbered changes;
nothing is written until items are accepted, at a terminal one by one or with ``--accept``.

A flow module adds its command to ``review_app`` in its own ``register_review`` function (called
from ``main.build_app``) and calls ``run_review``; this module owns how proposals are shown,
chosen and reported.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.review.proposals import Proposal, ReviewFlow, ReviewResult

review_app = typer.Typer(
    help="Approve proposed changes item by item (links, duplicates, contradictions, …).",
    no_args_is_help=True,
)

AcceptOption = Annotated[
    str | None,
    typer.Option(
        "--accept",
        metavar="IDS",
        help="Apply these proposals without asking: 1,3 or 2-4 or all.",
        show_default=False,
    ),
]


def run_review(flow: ReviewFlow, vault: Vault, *, accept: str | None, as_json: bool) -> None:
    """Propose, choose, apply, report. Without ``--accept`` and without a terminal to ask at,
    the proposals are listed and nothing is written."""
    from vaultctx.review.proposals import parse_accept

    proposals = asyncio.run(flow.propose(vault))
    if not proposals:  # `--accept all` on an empty list is not an error: there is nothing to do
        _list(flow, proposals, as_json)
        return
    if accept is not None:
        chosen = parse_accept(accept, len(proposals))
    elif as_json or not sys.stdin.isatty():
        _list(flow, proposals, as_json)
        return
    else:
        chosen = _ask_each(proposals)
    accepted = [p for p in proposals if p.number in chosen]
    result = flow.apply(vault, accepted) if accepted else None
    if as_json:
        print(
            json.dumps(
                {
                    "flow": flow.name,
                    "proposals": [p.as_dict() for p in proposals],
                    "accepted": chosen,
                    "result": result.as_dict() if result else None,
                },
                ensure_ascii=False,
            )
        )
        return
    _report(result)


def _list(flow: ReviewFlow, proposals: list[Proposal], as_json: bool) -> None:
    if as_json:
        payload = {"flow": flow.name, "proposals": [p.as_dict() for p in proposals]}
        print(json.dumps(payload, ensure_ascii=False))
        return
    if not proposals:
        print(f"nothing to review: no {flow.name} proposals")
        return
    for proposal in proposals:
        _show(proposal)
    print(
        f"nothing was written; accept items with --accept 1,3 (or --accept all), "
        f"or run `vaultctx review {flow.name}` at a terminal to choose one by one"
    )


def _show(proposal: Proposal) -> None:
    print(printable(f"[{proposal.number}] {proposal.title}"))
    for line in proposal.detail.splitlines():
        print(printable(f"    {line}"))


def _ask_each(proposals: list[Proposal]) -> list[int]:
    if not proposals:
        print("nothing to review")
        return []
    chosen: list[int] = []
    for proposal in proposals:
        _show(proposal)
        answer = typer.prompt("apply? [y]es / [n]o / [q]uit", default="n", show_default=False)
        answer = answer.strip().lower()
        if answer.startswith("q"):
            break
        if answer.startswith("y"):
            chosen.append(proposal.number)
    return chosen


def _report(result: ReviewResult | None) -> None:
    if result is None or not result.applied:
        print("nothing was written")
    else:
        print(printable(f"applied {len(result.applied)}: " + ", ".join(map(str, result.applied))))
        for path in result.paths:
            print(printable(f"  wrote {path}"))
        if result.record_id:
            print(f"ledger record {result.record_id}; `vaultctx undo` reverts the whole apply")
    for skipped in result.skipped if result else []:
        print(printable(f"skipped {skipped}"))
    for notice in result.notices if result else []:
        print(printable(f"note: {notice}"))


def register(app: typer.Typer) -> None:
    """Adds the group; each flow's module adds its command to ``review_app`` first, from
    ``main.build_app`` (a call from here would be an import cycle: the flows import this)."""
    app.add_typer(review_app, name="review")
