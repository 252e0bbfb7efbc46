"""``vaultctx todo --retro`` and ``vaultctx todo --clean-archive``: the day's retrospective
(docs/organize.md#daily-retrospective) and the archive cleanup (docs/organize.md#archive-cleanup),
the two to-do actions that are not "make today's note"."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import TYPE_CHECKING

from vaultctx.cli.change_output import print_change_result
from vaultctx.cli.model_options import NO_MODEL_FLAGS
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault


def run_extra(vault: Vault, day: date, retro: bool, *, dry_run: bool, as_json: bool) -> None:
    """``retro``: the retrospective; else the archive cleanup."""
    if retro:
        if dry_run:
            raise VaultctxError(
                "--retro asks the model and writes; it has no --dry-run",
                "leave out --dry-run (`vaultctx undo` reverts the retrospective)",
            )
        retrospective(vault, day, as_json=as_json)
    else:
        clean(vault, day, dry_run=dry_run, as_json=as_json)


def retrospective(vault: Vault, day: date, *, as_json: bool) -> None:
    from vaultctx.cli.text_model_flags import required_text_model
    from vaultctx.organize.retrospective import locale_language, write_retrospective

    model, _ = required_text_model(vault, NO_MODEL_FLAGS, "the retrospective is written by a model")
    done = asyncio.run(write_retrospective(vault, model, day, language=locale_language()))
    print_change_result(done, as_json=as_json)


def clean(vault: Vault, day: date, *, dry_run: bool, as_json: bool) -> None:
    from vaultctx.organize.todo_cleanup import clean_archive

    done = clean_archive(vault, day, dry_run=dry_run)
    if as_json:
        print(json.dumps(done.as_dict(), ensure_ascii=False))
        return
    would = "would move" if dry_run else "moved"
    for path in done.old:
        print(printable(f"{would} {path} -> .trash/"))
    if not done.old:
        print(printable(f"no archived to-do in {done.folder}/ is older than {done.days} days"))
    elif done.record_id:
        print(
            printable(
                f"{len(done.old)} archived to-do(s) moved to .trash/ (ledger record "
                f"{done.record_id}; `vaultctx undo` brings them back)"
            )
        )
    for notice in done.notices:
        print(printable(f"note: {notice}"))
