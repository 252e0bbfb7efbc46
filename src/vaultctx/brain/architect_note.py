"""Where architect's note lives and how a new one starts: an AI-first note in the wiki folder.

A stand-in for the wiki module's own AI-first format (front matter ``title``, ``recency``,
``confidence``, ``learned_at``, ``source``, ``tags``, then a fixed paragraph for future AI
readers), kept minimal and private to architect until that module exists.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from vaultctx.errors import VaultctxError

FOR_FUTURE_AI = (
    "## For future AI\n\n"
    "This note was generated from the vault by vaultctx's Second Brain. Text between "
    "`<!-- @generated:… -->` and `<!-- @end:… -->` is regenerated; everything else was written "
    "by the user and is authoritative."
)


class WikiFolderError(VaultctxError):
    """The wiki folder cannot hold notes."""


def wiki_note_path(vault: Path, wiki_folder: str, name: str) -> str:
    """``{wiki}/{name}``, after checking the wiki folder is a folder (or not there yet)."""
    folder = Path(vault).joinpath(*wiki_folder.split("/"))
    if os.path.lexists(folder) and not folder.is_dir():
        raise WikiFolderError(
            f"the wiki folder {wiki_folder} is a file, not a folder; nothing was written",
            "rename that file, or set another wiki_folder under [second_brain] in vaultctx.toml",
        )
    return f"{wiki_folder}/{name}"


def ai_first_note(
    title: str,
    body: str,
    *,
    recency: str,
    source: str,
    confidence: str = "medium",
    today: dt.date | None = None,
) -> str:
    learned = (today or dt.date.today()).isoformat()
    front = (
        f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\nrecency: {recency}\n"
        f"confidence: {confidence}\nlearned_at: {learned}\n"
        f"source: {json.dumps(source, ensure_ascii=False)}\ntags: []\n---\n"
    )
    return f"{front}\n{FOR_FUTURE_AI}\n\n{body}"


__all__ = ["WikiFolderError", "ai_first_note", "wiki_note_path"]
