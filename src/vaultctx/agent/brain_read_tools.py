"""The Second Brain's thinking tools: challenge, connect, emerge, reconcile_topic (read-only), and
architect, which writes ``Architecture.md`` in the wiki folder (docs/second-brain.md).

Each asks the session's model one question over the user's notes (``ToolContext.text_model``);
the work is in ``vaultctx.brain``, which ``vaultctx brain …`` runs too. Every tool refuses while
Second Brain is off, even if a model names it without being offered it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.agent.tool_contract import ToolSpec

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext
    from vaultctx.text_model import TextModel


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


def _model(context: ToolContext, what: str) -> TextModel:
    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.errors import VaultctxError

    load_second_brain_settings(context.vault.path).require_enabled()
    if context.text_model is None:
        raise VaultctxError(f"No AI client is available, so {what} cannot run.", "")
    return context.text_model


def _consulted(paths: list[str]) -> str:
    return "\n\nNotes consulted: " + ", ".join(dict.fromkeys(paths)) if paths else ""


async def challenge(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.thinking import challenge as run

    result = await run(context.vault, _model(context, "challenge"), args["claim"])
    return result.text + _consulted([source.path for source in result.sources])


async def connect(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.thinking import connect as run

    model = _model(context, "connect")
    result = await run(context.vault, model, args["topicA"], args["topicB"])
    return result.text + _consulted([source.path for source in result.sources])


async def emerge(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.thinking import emerge as run

    result = await run(context.vault, _model(context, "emerge"), args.get("days"))
    return result.text


async def reconcile_topic(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.reconcile import reconcile_topic as run

    report = await run(context.vault, _model(context, "reconcile_topic"), args["topic"])
    if report.status in ("unreadable", "unusable"):
        return texts.failed("reconcile_topic", report.text)
    if report.status == "found":
        return report.text + "\nThis is a report: no notes were changed."
    return report.text


async def architect(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.architect import architect as run

    path = args.get("path")
    model = _model(context, "architect")
    change = context.change("architect", path or "(vault)")
    result = await run(context.vault, model, path, change=change)
    return result.text


BRAIN_READ_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "challenge",
        "Test a claim against the user's own notes: the model is shown the notes that match "
        "it and lists gaps, counterexamples and hidden assumptions. Read-only.",
        _object({"claim": _text("The claim to challenge.")}, ["claim"]),
        challenge,
    ),
    ToolSpec(
        "connect",
        "Find connections between two topics of the user's notes (shared causes, "
        "transferable ideas, tensions). Read-only.",
        _object(
            {"topicA": _text("The first topic."), "topicB": _text("The second topic.")},
            ["topicA", "topicB"],
        ),
        connect,
    ),
    ToolSpec(
        "emerge",
        "Name patterns the user has not named yet in the notes modified in the last `days` "
        "days (the 60 most recent at most). Read-only.",
        _object(
            {"days": {"type": "number", "description": "How many days back to look, e.g. 7."}},
            ["days"],
        ),
        emerge,
    ),
    ToolSpec(
        "reconcile_topic",
        "Find statements in the user's notes about a topic that contradict each other, with "
        "a suggestion for each. A report: nothing is changed (the user applies suggestions "
        "with `vaultctx review contradictions`).",
        _object({"topic": _text("The topic to check.")}, ["topic"]),
        reconcile_topic,
    ),
    # Not read-only: it writes {wiki}/Architecture.md (ledger, confirmation: agent/confirm.py).
    ToolSpec(
        "architect",
        "Write or refresh the architecture note (Architecture.md in the Second Brain's wiki "
        "folder) for a codebase folder of the vault: overview, modules, decisions. Only the "
        "generated sections change; the user's own text in the note is kept.",
        _object(
            {"path": _text("Vault-relative folder of the codebase; omit for the whole vault.")},
            [],
        ),
        architect,
        writes=True,
    ),
)
