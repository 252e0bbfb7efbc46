"""Who asks for a change to the vault, and what the change did: the values the change methods of
``Vault`` take and return (kept apart, and free of imports, so ``vaultctx.api`` stays cheap to
import)."""

from __future__ import annotations

from dataclasses import dataclass, field

SOURCES = ("agent", "mcp", "cli")  # "cli": a vaultctx command of its own (vaultctx todo)


@dataclass(frozen=True)
class ChangeContext:
    """Who asks for a change: goes into its ledger record."""

    label: str  # e.g. "edit_note 10-projects/Plan.md"
    conversation_id: str | None = None
    source: str = "agent"  # "agent" | "mcp" | "cli"


@dataclass(frozen=True)
class Change:
    """What a change did. ``record_id`` is None when nothing changed (nothing was recorded)."""

    record_id: str | None
    kind: str  # "create" | "replace" | "edit" | "append" | "move" | "trash"
    paths: list[str]  # vault-relative paths written, link rewrites included
    replaced: int = 0  # edit: occurrences replaced
    rewritten: list[str] = field(default_factory=list)  # move: other notes whose links changed
    is_folder: bool = False
    notices: list[str] = field(default_factory=list)  # e.g. the index could not be updated
