"""What a synthesis note was written from, recorded in the note itself.

The ``synthesis-provenance`` block holds a callout for people (current, or outdated with the
changed sources) and the record for machines: ``{version, topic, generatedAt, sources: [{path,
heading, hash}], changedPaths}`` as URI-encoded JSON inside an HTML comment, so it survives any
markdown editor and cannot close the comment. ``hash`` is the index's own chunk hash (hex).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from urllib.parse import quote, unquote

from vaultctx.brain.wiki import note_link, note_title, one_line

PROVENANCE_KEY = "synthesis-provenance"
SYNTHESIS_KEY = "synthesis"
VERSION = 1
_COMMENT = "vaultctx-synthesis-provenance"
# The plugin this follows writes the same record under its own name; read both.
_RECORD = re.compile(r"<!--\s*(?:vaultctx|agent-llms)-synthesis-provenance:(\S{1,200000})\s*-->")
_MAX_SOURCES = 500


@dataclass(frozen=True)
class Source:
    path: str
    heading: str
    hash: str


@dataclass(frozen=True)
class Provenance:
    topic: str
    generated_at: str
    sources: tuple[Source, ...]
    changed_paths: tuple[str, ...] = field(default=())

    @property
    def stale(self) -> bool:
        return bool(self.changed_paths)

    def with_changed(self, changed: tuple[str, ...]) -> Provenance:
        return replace(self, changed_paths=changed)

    def as_record(self) -> dict[str, object]:
        return {
            "version": VERSION,
            "topic": self.topic,
            "generatedAt": self.generated_at,
            "sources": [
                {"path": s.path, "heading": s.heading, "hash": s.hash} for s in self.sources
            ],
            "changedPaths": list(self.changed_paths),
        }


def render(provenance: Provenance) -> str:
    """The block's content: the callout, then the record's comment."""
    record = json.dumps(provenance.as_record(), ensure_ascii=False, separators=(",", ":"))
    record = quote(record, safe="")
    return f"{callout(provenance)}\n<!-- {_COMMENT}:{record} -->"


def callout(provenance: Provenance) -> str:
    if not provenance.stale:
        return f"> [!info] Source check: current ({len(provenance.sources)} source chunk(s))"
    links = [f"> - {note_link(path, note_title(path))}" for path in provenance.changed_paths]
    topic = one_line(provenance.topic).replace("`", "'")
    return "\n".join(
        [
            "> [!warning] Outdated synthesis",
            "> Changed source chunks:",
            *links,
            f'> Run `vaultctx brain synthesize "{topic}"` again to regenerate it and review '
            "the diff.",
        ]
    )


def parse(block: str) -> Provenance | None:
    """The record in a ``synthesis-provenance`` block's content, or None when there is none or
    it is not one (a user's edit, a damaged note): such a note is left alone."""
    found = _RECORD.search(block)
    if found is None:
        return None
    try:
        record = json.loads(unquote(found.group(1)))
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("version") != VERSION:
        return None
    raw_sources = record.get("sources")
    if not isinstance(raw_sources, list) or len(raw_sources) > _MAX_SOURCES:
        return None
    sources: list[Source] = []
    for item in raw_sources:
        if not isinstance(item, dict):
            return None
        path, heading, digest = item.get("path"), item.get("heading", ""), item.get("hash")
        if not isinstance(path, str) or not isinstance(digest, str):
            return None
        sources.append(Source(path, heading if isinstance(heading, str) else "", digest))
    changed = record.get("changedPaths") or []
    if not isinstance(changed, list):
        return None
    topic, generated = record.get("topic"), record.get("generatedAt")
    return Provenance(
        topic if isinstance(topic, str) else "",
        generated if isinstance(generated, str) else "",
        tuple(sources),
        tuple(path for path in changed if isinstance(path, str)),
    )


def changed_paths(sources: tuple[Source, ...], current: dict[str, set[str]]) -> tuple[str, ...]:
    """The source paths, in record order, of which some recorded chunk hash is no longer among
    the index's hashes for that path (a path the index no longer holds has none)."""
    changed: dict[str, None] = {}
    for source in sources:
        if source.hash not in current.get(source.path, set()):
            changed[source.path] = None
    return tuple(changed)
