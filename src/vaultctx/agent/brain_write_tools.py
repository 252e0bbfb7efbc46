"""The Second Brain's writing tools: create_wiki_note, update_index, synthesize_topic, architect
(docs/second-brain.md). They write only inside the wiki folder, through the change ledger.

The work is ``vaultctx.brain`` (which ``vaultctx brain ...`` runs too); this module words the
results for the model. Each tool refuses while ``[second_brain] enabled`` is not true, even if a
model names it without having been offered it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.agent.tool_contract import ToolSpec
from vaultctx.brain.settings import load_second_brain_settings

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext

BRAIN_OFF = (
    "Second Brain is turned off. Enable it (enabled = true under [second_brain] in the vault's "
    "vaultctx.toml) and try again."
)
NO_MODEL = "No AI client is available, so {what} cannot run."


def _off(context: ToolContext) -> bool:
    return not load_second_brain_settings(context.vault.path).enabled


async def create_wiki_note(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.wiki_note import create_wiki_note as create

    if _off(context):
        return texts.tool_error(BRAIN_OFF)
    meta = args.get("meta")
    if meta is not None and not isinstance(meta, dict):
        return texts.failed("create_wiki_note", "`meta` must be an object", "")
    title = args["title"]
    result = create(
        context.vault,
        title,
        args["body"],
        args.get("category"),
        meta,
        change=context.change("create_wiki_note", title),
    )
    return result.message


async def update_index(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.catalog import update_index as update

    if _off(context):
        return texts.tool_error(BRAIN_OFF)
    return update(context.vault, change=context.change("update_index", "index.md")).message


async def synthesize_topic(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.brain.synthesis import synthesize_topic as synthesize

    if _off(context):
        return texts.tool_error(BRAIN_OFF)
    if context.text_model is None:
        return texts.tool_error(NO_MODEL.format(what="synthesize_topic"))
    topic = args["topic"]
    result = await synthesize(
        context.vault,
        context.text_model,
        topic,
        change=context.change("synthesize_topic", topic),
    )
    return result.message


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_META = {
    "type": "object",
    "description": (
        "Front matter: recency (evergreen or dated), confidence (0-1, or low/medium/high), "
        "valid_from and learned_at (YYYY-MM-DD), source, tags (list)."
    ),
    "properties": {
        "recency": {"type": "string", "enum": ["evergreen", "dated"]},
        "confidence": {"type": "string", "description": "0 to 1, or low, medium, high"},
        "valid_from": {"type": "string"},
        "learned_at": {"type": "string"},
        "source": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}

BRAIN_WRITE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "create_wiki_note",
        "Create a new AI-first note in the Second Brain's wiki folder (front matter saying how "
        "far to trust it, then the body). Fails if the note exists.",
        _object(
            {
                "title": _text("The note's title; also its file name."),
                "body": _text("The note's markdown text."),
                "category": _text(
                    "entities, concepts or projects (its subfolder); anything else: the wiki's "
                    "top level."
                ),
                "meta": _META,
            },
            ["title", "body"],
        ),
        create_wiki_note,
        writes=True,
    ),
    ToolSpec(
        "update_index",
        "Rebuild the catalogue of the wiki's notes in the wiki folder's index.md (text outside "
        "its generated block is kept).",
        _object({}, []),
        update_index,
        writes=True,
    ),
    ToolSpec(
        "synthesize_topic",
        "Search the user's notes for a topic and write (or regenerate) the wiki note "
        "summarising what they say, with the sources it used; the user's own text in that note "
        "is kept. Returns what changed.",
        _object({"topic": _text("The topic, e.g. `sync conflicts`.")}, ["topic"]),
        synthesize_topic,
        writes=True,
    ),
)
