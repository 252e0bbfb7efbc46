"""``vaultctx triage`` (score and file new signals) and ``vaultctx signals fetch`` (feeds into
the inbox); docs/signals.md."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli.common import DbOption, DryRunOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags, OfflineOption
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.signals.intake import IntakeRun
    from vaultctx.signals.triage import TriageItem, TriageRun

signals_app = typer.Typer(
    help="Signal intake: feeds into the inbox (docs/signals.md).", no_args_is_help=True
)

AllowHostOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        metavar="HOST:PORT",
        help="Let feeds on this host:port through although its address is private "
        "(repeatable; e.g. a feed server on your own network).",
        show_default=False,
    ),
]
AllowPrivateOption = Annotated[
    bool,
    typer.Option(
        "--allow-private",
        help="Also fetch feeds from private, loopback and link-local addresses (your own network).",
    ),
]


@takes_option_groups
def triage(
    vault: VaultOption = None,
    db: DbOption = None,
    dry_run: DryRunOption = False,
    fetch: Annotated[
        bool, typer.Option("--fetch", help="Fetch the \\[signals] feeds into the inbox first.")
    ] = False,
    allow_host: AllowHostOption = None,
    allow_private: AllowPrivateOption = False,
    accept: Annotated[
        str | None,
        typer.Option(
            "--accept",
            metavar="IDS",
            help="Write only these signals of the plan (1,3 or 2-4 or all); see --dry-run.",
            show_default=False,
        ),
    ] = None,
    offline: OfflineOption = False,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Score each new signal in the inbox; file those scoring 0.55 or more under
    05-signals/<domain>/, mark the rest as triaged. One `vaultctx undo` reverts the run."""
    from vaultctx.cli.text_model_flags import triage_model
    from vaultctx.signals.settings import load_signal_settings
    from vaultctx.signals.triage import run_triage

    handle = open_vault(vault, db)
    settings = load_signal_settings(handle.path)
    intake = None
    if fetch:
        from vaultctx.signals.intake import fetch_feeds

        intake = fetch_feeds(
            handle,
            settings,
            allow_hosts=allow_host or (),
            allow_private=allow_private,
            dry_run=dry_run,
        )
    text_model = triage_model(handle, model_flags, offline=offline)
    run = run_triage(handle, model=text_model, dry_run=dry_run, accept=accept, settings=settings)
    if as_json:
        payload = run.as_dict()
        if intake is not None:
            payload["fetch"] = intake.as_dict()
        print(json.dumps(payload, ensure_ascii=False))
        return
    if intake is not None:
        _print_intake(intake)
    _print_triage(run)


def _scores_line(item: TriageItem) -> str:
    s = item.scores
    return (
        f"{s.composite:g}: relevance {s.relevance:.2f}, actionability {s.actionability:.2f}, "
        f"depth {s.depth:.2f}, authority {s.authority:.2f}; {s.domain}; {s.scored_by}"
    )


def _print_triage(run: TriageRun) -> None:
    plan = run.plan
    would = "would " if run.dry_run else ""
    for item in plan.items:
        if item.destination:
            action = f"{would}file {item.path} -> {item.destination}"
        else:
            action = f"{would}keep {item.path} in the inbox"
        print(printable(f"[{item.number}] {action} ({_scores_line(item)})"))
    for skipped in [*plan.skipped, *run.skipped]:
        print(printable(f"skipped {skipped}"))
    for notice in [*plan.notices, *(item.notice for item in plan.items if item.notice)]:
        print(printable(f"note: {notice}"))
    for notice in run.notices:
        print(printable(f"note: {notice}"))
    if not plan.items:
        already = f" ({plan.already_triaged} already triaged)" if plan.already_triaged else ""
        print(printable(f"no new signals in {plan.inbox}/{already}"))
        return
    filed = sum(1 for item in plan.items if item.destination)
    if run.dry_run:
        print(
            f"{len(plan.items)} new signals: {filed} would be filed, "
            f"{len(plan.items) - filed} kept in the inbox; nothing was written"
        )
        return
    print(f"triaged {len(run.written)} signals ({filed} filed)")
    if run.record_id:
        print(f"ledger record {run.record_id}; `vaultctx undo` reverts the whole run")


def _print_intake(run: IntakeRun) -> None:
    would = "would " if run.dry_run else ""
    for feed in run.feeds:
        if feed.error:
            print(printable(f"feed {feed.url}: {feed.error}"))
            continue
        left = f", {feed.left} left for the next run" if feed.left else ""
        print(
            printable(
                f"feed {feed.title or feed.url}: {would}take {len(feed.new)} new entries "
                f"({feed.already} taken before{left})"
            )
        )
        if feed.notice:
            print(printable(f"note: {feed.notice}"))
        for path in feed.new:
            print(printable(f"  {would}create {path}"))
    for notice in run.notices:
        print(printable(f"note: {notice}"))
    if run.record_id:
        print(f"ledger record {run.record_id} (the new signals)")


def fetch(
    vault: VaultOption = None,
    db: DbOption = None,
    dry_run: DryRunOption = False,
    allow_host: AllowHostOption = None,
    allow_private: AllowPrivateOption = False,
    as_json: JsonOption = False,
) -> None:
    """Fetch the \\[signals] feeds and write each new entry into the inbox as a signal note."""
    from vaultctx.signals.intake import fetch_feeds
    from vaultctx.signals.settings import load_signal_settings

    handle = open_vault(vault, db)
    run = fetch_feeds(
        handle,
        load_signal_settings(handle.path),
        allow_hosts=allow_host or (),
        allow_private=allow_private,
        dry_run=dry_run,
    )
    if as_json:
        print(json.dumps(run.as_dict(), ensure_ascii=False))
    else:
        _print_intake(run)
    if run.feeds and all(feed.error for feed in run.feeds):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("triage")(triage)
    signals_app.command("fetch")(fetch)
    app.add_typer(signals_app, name="signals")
