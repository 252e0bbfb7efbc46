"""``vaultctx review …``: approval flows (docs/review.md). Each flow proposes numbered changes;
nothing is written until items are accepted, at a terminal one by one or with ``--accept``.

A flow module adds its command to ``review_app`` in its own ``register_review`` function
(``build_app`` calls it) and calls ``run_review``. This module owns how proposals are shown,
chosen, saved between listing and accepting, and reported.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.proposals import Proposal, ReviewFlow, ReviewResult

review_app = typer.Typer(
    help="Approve proposed changes item by item (links, duplicates, contradictions, …).",
    no_args_is_help=True,
)

AcceptOption = Annotated[
    str | None,
    typer.Option(
        "--accept",
        metavar="IDS",
        help="Apply these items of the list last shown (24 h), without asking: 1,3 or 2-4 or all.",
        show_default=False,
    ),
]


def run_review(
    flow: ReviewFlow,
    vault: Vault,
    *,
    accept: str | None,
    as_json: bool,
    scope: str | None = None,
    command: str | None = None,
) -> None:
    """Propose, choose, apply, report. Without ``--accept`` and without a terminal to ask at,
    the proposals are listed (and saved, see ``vaultctx.review.saved_plans``) and nothing is
    written; ``--accept`` then applies from that saved list. ``scope`` tells lists of the same
    flow apart (the inbox folder, the decision topic; by default the command line without
    ``--accept`` and ``--json``, so a list for one topic is never applied to another);
    ``command`` is how the user runs the flow again (default ``vaultctx review NAME``)."""
    from vaultctx.proposals import parse_accept
    from vaultctx.review.saved_plans import forget_plan, load_plan, save_plan

    command = command or f"vaultctx review {flow.name}"
    scope = _command_line_scope(sys.argv[1:]) if scope is None else scope
    notices: list[str] = []
    if accept is not None:
        saved = load_plan(vault.path, flow.name, scope)
        if saved is not None:
            proposals = saved.proposals
            when = time.strftime("%H:%M", time.localtime(saved.saved_at))
            notices.append(
                f"applying the list `{command}` showed at {when} (run it again without "
                "--accept for a fresh list)"
            )
        else:
            proposals = asyncio.run(flow.propose(vault))
            notices += _flow_notices(flow)
        if not proposals:
            _nothing(flow, notices, as_json)
            return
        chosen = parse_accept(accept, len(proposals))
    else:
        proposals = asyncio.run(flow.propose(vault))
        notices += _flow_notices(flow)
        if as_json or not sys.stdin.isatty():
            if proposals:
                save_plan(vault.path, flow.name, scope, proposals)
            else:
                forget_plan(vault.path, flow.name, scope)
            _list(flow, proposals, notices, as_json, command)
            return
        if not proposals:
            _nothing(flow, notices, as_json)
            return
        _print_notices(notices)
        notices = []
        chosen = _ask_each(proposals)
    accepted = [p for p in proposals if p.number in chosen]
    result = flow.apply(vault, accepted) if accepted else None
    if as_json:
        payload = {
            "flow": flow.name,
            "proposals": [p.as_dict() for p in proposals],
            "notices": notices,
            "accepted": chosen,
            "result": result.as_dict() if result else None,
        }
        print(json.dumps(payload, ensure_ascii=False))
        return
    _print_notices(notices)
    _report(result)


def _command_line_scope(argv: list[str]) -> str:
    """The arguments that chose what was proposed: all but ``--accept IDS`` and ``--json``."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--accept":
            skip = True
        elif not arg.startswith("--accept=") and arg != "--json":
            kept.append(arg)
    return "\0".join(kept)


def _flow_notices(flow: ReviewFlow) -> list[str]:
    found = getattr(flow, "notices", [])
    return [str(notice) for notice in found] if isinstance(found, list) else []


def _print_notices(notices: list[str]) -> None:
    for notice in notices:
        print(printable(f"note: {notice}"))


def _nothing(flow: ReviewFlow, notices: list[str], as_json: bool) -> None:
    if as_json:
        payload = {"flow": flow.name, "proposals": [], "notices": notices, "result": None}
        print(json.dumps(payload, ensure_ascii=False))
        return
    print(f"nothing to review: no {flow.name} proposals")
    _print_notices(notices)


def _list(
    flow: ReviewFlow, proposals: list[Proposal], notices: list[str], as_json: bool, command: str
) -> None:
    if as_json:
        payload = {
            "flow": flow.name,
            "proposals": [p.as_dict() for p in proposals],
            "notices": notices,
        }
        print(json.dumps(payload, ensure_ascii=False))
        return
    if not proposals:
        _nothing(flow, notices, as_json)
        return
    for proposal in proposals:
        _show(proposal)
    _print_notices(notices)
    print(
        f"nothing was written; accept items with `{command} --accept 1,3` (or --accept all), "
        "or run it at a terminal to choose one by one"
    )


def _show(proposal: Proposal) -> None:
    print(printable(f"[{proposal.number}] {proposal.title}"))
    for line in proposal.detail.splitlines():
        print(printable(f"    {line}"))


def _ask_each(proposals: list[Proposal]) -> list[int]:
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
    """The ``vaultctx review`` group. Each flow module adds its commands with
    ``register_review(review_app)``, called from ``build_app``, not from here: the flow modules
    import ``run_review`` and ``AcceptOption`` from this module, so importing them back here
    would be an import cycle."""
    app.add_typer(review_app, name="review")
