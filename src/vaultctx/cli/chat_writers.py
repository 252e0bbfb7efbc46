"""What ``vaultctx chat`` writes into the vault on request, outside the model's tool loop: the
conversation harvested into a wiki note (``/harvest``) and the day's retrospective (a message
that is only "retrospective", "회고" or "振り返り"). Each asks the chat's model once, on the
chat's own event loop, and is one ledger record the agent is named in."""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from datetime import date
from typing import TYPE_CHECKING, Any

from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.agent.session import ChatSession

# The chat's ``runner.run``: the coroutine runs on the chat's own event loop.
Run = Callable[[Coroutine[Any, Any, Any]], Any]


def harvest_in_chat(session: ChatSession, run: Run) -> None:
    """Save the conversation as it stands, then harvest it."""
    from vaultctx.agent.complete import BackendTextModel
    from vaultctx.brain.harvest import harvest_saved
    from vaultctx.brain.wiki import enabled_settings

    enabled_settings(session.vault)
    saved = session.save()
    if saved is None:
        raise VaultctxError("nothing to harvest yet", "ask a question first, then /harvest")
    model = BackendTextModel(session.settings, session.backend)
    result = run(harvest_saved(session.vault, model, saved, source="agent"))
    print(printable(result.message), file=sys.stderr)


def retrospective_in_chat(session: ChatSession, run: Run, line: str) -> None:
    from vaultctx.agent.complete import BackendTextModel
    from vaultctx.organize.retrospective import request_language, write_retrospective

    model = BackendTextModel(session.settings, session.backend)
    language = request_language(line)
    done = run(
        write_retrospective(session.vault, model, date.today(), language=language, source="agent")
    )
    print(printable(done.message), file=sys.stderr)
