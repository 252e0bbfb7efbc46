"""What the MCP tools return: a typed structure for programs and the same facts as readable text.

Clients that understand ``structuredContent`` validate it against these models' JSON schemas; the
text is what a model reads in clients that do not. Both are built from the API's own result objects
so the CLI and MCP never disagree about a search.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from vaultctx.text.counting import counted

if TYPE_CHECKING:
    from vaultctx.notes import NoteList, NoteText
    from vaultctx.search.context import ContextBlock
    from vaultctx.search.retriever import SearchResponse


class ErrorOutput(BaseModel):
    """Every tool error, sent as this object's JSON text: what went wrong, what to do instead."""

    error: str
    suggestion: str


class GraphWhy(BaseModel):
    role: str = Field(description="`seed` (a vector hit) or `neighbor` (a note linked to one).")
    hop: int = Field(description="Links between it and its seed (0 for a seed).")
    relevance: float = Field(description="Normalised similarity, 0–1, before the per-hop decay.")
    score: float = Field(description="Relevance × 0.5 per hop: its place in the graph ranking.")
    via: str | None = Field(None, description="The note whose link led here.")
    seed: str | None = Field(None, description="The vector hit the path started from.")


class SearchHit(BaseModel):
    path: str = Field(description="Vault-relative path; pass it to obsidian_read_note.")
    title: str
    section: str = Field(description="The H2 heading the passage is under ('' before the first).")
    citation: str = Field(description="`path#Section`, to cite the source.")
    text: str = Field(description="The passage, credential-scrubbed, within the token budget.")
    score: float = Field(
        description="Fused score (weighted min-max sum, or reciprocal rank fusion in a graph "
        "search); higher is better, comparable within one response only."
    )
    bm25_rank: int | None = Field(description="Rank in the keyword list, if there.")
    vec_rank: int | None = Field(description="Rank in the vector list, if there.")
    graph: GraphWhy | None = Field(
        None, description="With graph=true: why the passage is here (null: a keyword hit)."
    )


class RelatedMocOutput(BaseModel):
    path: str
    title: str
    links_to: list[str] = Field(description="The result notes this map of content links to.")


class SearchOutput(BaseModel):
    query: str
    mode: str
    count: int
    results: list[SearchHit]
    notices: list[str] = Field(description="How the search degraded, if it did.")
    message: str | None = Field(None, description="Advice when nothing matched.")
    related_mocs: list[RelatedMocOutput] = Field(
        default_factory=list,
        description="With graph=true: maps of content (type: moc) linking to the results.",
    )


class NoteOutput(BaseModel):
    path: str
    title: str
    section: str | None = Field(description="The heading read, or null for the whole note.")
    text: str
    headings: list[str] = Field(description="The note's headings, for reading one section.")
    truncated: bool
    tokens: int = Field(description="Estimated tokens of `text` (4 characters a token).")
    total_tokens: int = Field(description="Estimated tokens of the whole note or section.")
    redactions: int = Field(description="Credentials replaced by [REDACTED:…] markers.")
    notice: str | None = None


class NoteListItem(BaseModel):
    path: str
    title: str
    type: str | None
    status: str | None
    tags: list[str]
    modified: str = Field(description="Last modification, ISO 8601 with UTC offset.")


class NoteListOutput(BaseModel):
    notes: list[NoteListItem]
    count: int
    total: int = Field(description="All matching notes; raise `limit` to see more.")
    filters: dict[str, str]
    message: str | None = None


class ContextOutput(BaseModel):
    topic: str
    markdown: str = Field(description="The passages as one markdown block with a Sources list.")
    sources: list[str]
    count: int
    message: str | None = None


NO_RESULTS_ADVICE = (
    "Try broader or different terms (fewer words, synonyms, the note's own vocabulary), "
    "mode='bm25' for exact identifiers, or obsidian_list_notes to browse by folder or tag."
)


# The fields a hit takes over from a search result under the same name.
_SAME_NAMED = ("title", "section", "citation", "text", "score", "bm25_rank", "vec_rank")


def search_output(response: SearchResponse) -> SearchOutput:
    hits = [
        SearchHit(
            path=r.file_path,
            graph=GraphWhy(**asdict(r.graph)) if r.graph else None,
            **{name: getattr(r, name) for name in _SAME_NAMED},
        )
        for r in response.results
    ]
    message = None if hits else f"No notes match {response.query!r}. {NO_RESULTS_ADVICE}"
    return SearchOutput(
        query=response.query,
        mode=response.mode,
        count=len(hits),
        results=hits,
        notices=response.notices,
        message=message,
        related_mocs=[RelatedMocOutput(**asdict(moc)) for moc in response.related_mocs],
    )


def search_text(output: SearchOutput) -> str:
    lines = [f"note: {notice}" for notice in output.notices]
    if output.message:
        return "\n".join([*lines, output.message])
    lines.append(f"{counted(output.count, 'result')} for {output.query!r} ({output.mode}):")
    for rank, hit in enumerate(output.results, start=1):
        lines += ["", f"{rank}. {hit.title} — {hit.citation}{_why(hit.graph)}", hit.text]
    if output.related_mocs:
        lines += ["", "Maps of content linking to these notes (read them for wider context):"]
        lines += [f"- {moc.path} ({moc.title})" for moc in output.related_mocs]
    return "\n".join(lines)


def _why(graph: GraphWhy | None) -> str:
    if graph is None or graph.role == "seed":
        return ""
    return f" (linked from {graph.via}, {counted(graph.hop, 'link')} away)"


def note_output(note: NoteText) -> NoteOutput:
    return NoteOutput(**note.as_dict())


def note_text(output: NoteOutput) -> str:
    where = f"{output.path}#{output.section}" if output.section else output.path
    parts = [f"{output.title} ({where})", "", output.text]
    if output.notice:
        parts += ["", f"[{output.notice}]"]
    return "\n".join(parts)


def note_list_output(listing: NoteList) -> NoteListOutput:
    items = [NoteListItem(**vars(info)) for info in listing.notes]
    message = None
    if not items:
        message = "No notes match these filters" + (
            f": {listing.suggestion}." if listing.suggestion else "."
        )
    return NoteListOutput(
        notes=items,
        count=len(items),
        total=listing.total,
        filters=listing.filters,
        message=message,
    )


def note_list_text(output: NoteListOutput) -> str:
    if output.message:
        return output.message
    filters = ", ".join(f"{key}={value}" for key, value in output.filters.items())
    header = f"{output.count} of {counted(output.total, 'note')}" + (
        f" ({filters})" if filters else ""
    )
    lines = [header + ", newest first:"]
    for note in output.notes:
        kind = ", ".join(v for v in (note.type, note.status) if v)
        tags = " ".join(f"#{tag}" for tag in note.tags)
        details = " ".join(part for part in (f"[{kind}]" if kind else "", tags) if part)
        lines.append(
            f"- {note.path} — {note.title}"
            + (f" {details}" if details else "")
            + f" · modified {note.modified}"
        )
    return "\n".join(lines)


def context_output(block: ContextBlock) -> ContextOutput:
    return ContextOutput(
        topic=block.topic,
        markdown=block.markdown,
        sources=block.sources,
        count=len(block.results),
        message=None if block.results else f"Nothing about {block.topic!r}. {NO_RESULTS_ADVICE}",
    )


def context_text(output: ContextOutput) -> str:
    return output.markdown + (f"\n{output.message}" if output.message else "")


class ChangeOutput(BaseModel):
    """What a writing tool did (``serve --allow-writes``)."""

    message: str = Field(description="What changed, in one line.")
    record_id: str | None = Field(
        description="The change's id in the ledger (`vaultctx undo` reverts the newest); null "
        "when nothing changed."
    )
    kind: str = Field(description="create, replace, edit, append, move or trash.")
    paths: list[str] = Field(description="Vault-relative paths written, link rewrites included.")
    replaced: int = Field(0, description="edit with find/replace: occurrences replaced.")
    rewritten: list[str] = Field(
        default_factory=list, description="move: other notes whose links were rewritten."
    )
    notices: list[str] = Field(default_factory=list)


def change_text(output: ChangeOutput) -> str:
    lines = [output.message, *output.notices]
    if output.record_id:
        lines.append(
            f"(recorded as change {output.record_id}: the user can revert it with `vaultctx undo`)"
        )
    return "\n".join(lines)
