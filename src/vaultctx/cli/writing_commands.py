"""The commands that write into the vault, and what each writes.

Every one of them writes through ``Vault``'s change methods (``create_note`` … ``trash_path``,
``change_batch``), so each change is confined to the vault, atomic, recorded in the ledger, and
reverted by ``vaultctx undo`` (docs/changes.md). No other command changes a note. The README lists
exactly these (a test compares the two), ``vaultctx ledger --help`` shows them, and
tests/security/test_every_write_is_recorded.py runs each one and undoes it.

``vaultctx undo`` writes too: it puts back what a record holds, and drops the record.
"""

from __future__ import annotations

WRITING_COMMANDS: dict[str, str] = {
    "capture": "a new note in the inbox",
    "todo": "today's to-do note; old ones archived; with --retro: the day's retrospective; "
    "with --clean-archive: archived ones past archive_clean_days to .trash/",
    "triage": "signals scored, marked and filed under 05-signals/",
    "signals fetch": "new feed entries as notes in the inbox",
    "clip": "a web page saved as a note",
    "tags --apply": "the suggested tags in a note's front matter",
    "para": "the accepted P.A.R.A moves (links follow)",
    "template save": "a template note",
    "template apply": "a new note from a template",
    "review links": "accepted links in each note's Related notes",
    "review duplicates": "accepted duplicates recorded on their canonical note",
    "review contradictions": "accepted resolutions into the notes",
    "review inbox": "accepted folders, names and tags for inbox notes",
    "review decisions": "accepted decisions into the decision ledger note",
    "review triage": "the accepted signals, as triage does",
    "brain synthesize": "a synthesis note in the wiki folder",
    "brain wiki-note": "a new note in the wiki folder",
    "brain update-index": "the wiki's index.md",
    "brain architect": "Architecture.md in the wiki folder",
    "brain stale --mark": "the outdated callout into synthesis notes",
    "brain gaps --write": "the report into its note in the wiki folder",
    "brain links --write": "the report into its note in the wiki folder",
    "brain duplicates --write": "the report into its note in the wiki folder",
    "brain review-queue --write": "the report into its note in the wiki folder",
    "brain run": "the upkeep: wiki folders, index.md, Knowledge Gaps.md, the dashboard, log.md",
    "brain dashboard": "the Bases dashboard and its item notes in the wiki folder",
    "index": "with the Second Brain on: the outdated callout into synthesis notes",
    "watch": "with the Second Brain on: the outdated callout into synthesis notes",
    "serve": "with --allow-writes: an MCP client's changes; with --http --watch and the "
    "Second Brain on: the outdated callout",
    "ask": "the model's changes you confirm, or all of them with --allow-changes",
    "chat": "the model's changes you confirm; /harvest and the retrospective word",
    "ui": "the model's changes you confirm in Chat; accepted review items; a harvest",
    "conversations export": "with --out inside the vault: the exported conversation",
    "conversations harvest": "a note of the conversation's conclusions in the wiki folder",
}


def ledger_help() -> str:
    """The ``vaultctx ledger`` group's help: what it lists, and which commands write there."""
    names = ", ".join(name.split(" --")[0] for name in WRITING_COMMANDS)
    return (
        "The recorded changes to the vault: list, show, drop.\n\nEvery command that writes "
        f"records here, and `vaultctx undo` reverts the newest: {names}."
    )


__all__ = ["WRITING_COMMANDS", "ledger_help"]
