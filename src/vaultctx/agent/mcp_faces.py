"""The tools as an MCP client sees them: name, title, description, arguments, and what each runs
over ``Vault``.

Each face is one entry of a tool's declaration in agent/tool_list.py, beside the face the chat
model sees. A face's ``arguments`` function is the tool's input schema (its signature, as the MCP
SDK reads it: names, types, bounds, descriptions and defaults) and turns the client's arguments
into an ``McpCall``; the server (mcp/tool_binding.py) runs that call against the vault and
packages its value. No MCP SDK import here, so the declaration stays below the integrations:
the values are the API's own (``SearchResponse``, ``NoteText``, ``NoteList``, ``ContextBlock``,
or a ``ChangeDone`` for a change).

The writers call ``Vault``'s change methods with ``ChangeContext(source="mcp")``, so everything a
client changes is recorded in the AI change ledger under the agent tool's name and reverted by
``vaultctx undo``. Paths are confined exactly as for reading, and more (no symbolic links, no
control file such as ``.indexignore`` or ``vaultctx.toml``, nothing the ignore rules exclude, no
folder holding either).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import Field

from vaultctx.agent.note_tools import edit_or_replace
from vaultctx.api import CONTEXT_DEFAULTS, Vault
from vaultctx.ledger.context import Change, ChangeContext
from vaultctx.search.filters import Filters
from vaultctx.search.ranking_constants import DEFAULT_DEPTH as DEFAULT_GRAPH_DEPTH
from vaultctx.search.ranking_constants import MAX_DEPTH as MAX_GRAPH_DEPTH
from vaultctx.search.request import SearchRequest
from vaultctx.vault.writes import CONTENT_OR_FIND_REQUIRED, FIND_REPLACE_TOGETHER, NoteChangeError

if TYPE_CHECKING:
    from vaultctx.search.retriever import SearchResponse

MAX_LIMIT_SEARCH = 50
MAX_LIMIT_LIST = 200
MAX_TOKENS_CAP = 32_000

# What the server packages a face's value as (mcp/tool_binding.py), and the hints it declares.
McpOutput = Literal["search", "note", "note_list", "context", "change"]
McpHints = Literal["read", "adds", "changes"]


@dataclass(frozen=True)
class McpCall:
    """What one call runs. ``soon``: answered without waiting for the model warm-up (the tool
    needs no model); ``while_warming``: the answer while the models load, given the vault and a
    clock of the seconds since the warm-up began (a keyword-only search)."""

    run: Callable[[Vault], Any]
    soon: bool = False
    while_warming: Callable[[Vault, Callable[[], float]], Any] | None = None


class ChangeDone(NamedTuple):
    """A writer's value: the change the vault made, and the sentence saying so."""

    change: Change
    message: str


@dataclass(frozen=True)
class McpFace:
    """One tool as MCP clients see it; ``hints`` other than "read" make it a writer, offered only
    by ``vaultctx serve --allow-writes``."""

    name: str
    title: str
    description: str
    arguments: Callable[..., McpCall]
    output: McpOutput
    hints: McpHints = "read"

    @property
    def writes(self) -> bool:
        return self.hints != "read"


# Filter arguments shared by obsidian_search and obsidian_list_notes.
FolderArg = Annotated[
    str | None,
    Field(description="Only notes under this vault folder and its subfolders, e.g. `projects`."),
]
TagArg = Annotated[
    str | None,
    Field(description="Only notes with this tag (nested tags included), e.g. `project`."),
]
TagsArg = Annotated[
    list[str] | None,
    Field(
        description="Only notes with these tags (nested tags included), e.g. "
        '["project", "urgent"]; `tag_match` says whether one or all of them is needed.'
    ),
]
TagMatchArg = Annotated[
    Literal["any", "all"],
    Field(
        description="How `tags` (with `tag`) combine: `any` (default), a note with one of them "
        "passes, as in the vault assistant's search; `all`, a note needs every one."
    ),
]
SinceArg = Annotated[
    str | None,
    Field(description="Modified on or after: ISO date (2024-03-01), date-time, or age (7d, 12h)."),
]
UntilArg = Annotated[
    str | None, Field(description="Modified on or before: ISO date (that whole day) or date-time.")
]
WhereArg = Annotated[
    list[str] | None,
    Field(
        description="Front matter conditions, all must hold: `KEY OP VALUE`, OP one of = != > >= "
        '< <= ~ (contains); dotted keys reach nested values. E.g. ["status = active", '
        '"project.priority >= 2", "due < 2026-01-31"]. Dates compare as dates, numbers as '
        "numbers; a list matches when any item does."
    ),
]
PathArg = Annotated[
    str, Field(min_length=1, description="Vault-relative path, e.g. `projects/Plan.md`.")
]


class TagChoice(NamedTuple):
    """The tag arguments: the single ``tag`` older clients send, the ``tags`` list, and how
    the tags combine."""

    tag: str | None = None
    tags: list[str] | None = None
    match: Literal["any", "all"] = "any"

    def chosen(self) -> list[str]:
        """Every tag asked for, ``tag`` first, each once."""
        given = [self.tag] if self.tag else []
        return list(dict.fromkeys([*given, *(self.tags or [])]))


def filters(
    folder: str | None,
    tags: TagChoice,
    note_type: str | None,
    since: str | None,
    until: str | None,
    where: list[str] | None,
) -> Filters:
    """The filter arguments, as obsidian_search and obsidian_list_notes both take them."""
    return Filters(
        folder,
        tags.chosen(),
        note_type,
        since=since,
        until=until,
        where=where or [],
        any_tag=tags.match == "any" and len(tags.chosen()) > 1,
    )


def obsidian_search(
    query: Annotated[
        str,
        Field(min_length=1, description="What to look for, in natural language or keywords."),
    ],
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT_SEARCH, description="Passages to return.")] = 5,
    max_tokens: Annotated[
        int, Field(ge=50, le=MAX_TOKENS_CAP, description="Token budget of all passages.")
    ] = 2000,
    mode: Annotated[
        Literal["hybrid", "bm25", "vector"],
        Field(description="hybrid (default); bm25 for exact identifiers; vector for meaning."),
    ] = "hybrid",
    graph: Annotated[
        bool,
        Field(
            description="Also return notes linked to the best hits (outlinks and backlinks), "
            "each saying which note it was reached from, and maps of content linking to them."
        ),
    ] = False,
    depth: Annotated[
        int, Field(ge=0, le=MAX_GRAPH_DEPTH, description="Links to follow when graph=true.")
    ] = DEFAULT_GRAPH_DEPTH,
    folder: FolderArg = None,
    tag: TagArg = None,
    tags: TagsArg = None,
    tag_match: TagMatchArg = "any",
    where: WhereArg = None,
    modified_since: SinceArg = None,
    modified_until: UntilArg = None,
) -> McpCall:
    def request() -> SearchRequest:
        tagged = TagChoice(tag, tags, tag_match)
        chosen = filters(folder, tagged, None, modified_since, modified_until, where)
        return SearchRequest(
            query, limit, max_tokens, mode, filters=chosen, graph=graph, depth=depth
        )

    def keywords_first(vault: Vault, warming_for: Callable[[], float]) -> SearchResponse:
        response = vault.search(replace(request(), mode="bm25"))
        notice = (
            f"vector models are still loading ({warming_for():.1f} s since start): "
            "ranked by keywords only; searches rank by meaning too once they are loaded"
        )
        return replace(response, notices=[notice, *response.notices])

    hybrid = mode == "hybrid"
    return McpCall(
        lambda vault: vault.search(request()), while_warming=keywords_first if hybrid else None
    )


def obsidian_read_note(
    file_path: Annotated[
        str,
        Field(
            min_length=1,
            description="Vault-relative path as shown in results, e.g. `projects/Plan.md` "
            "(a `path#Heading` citation also works).",
        ),
    ],
    section: Annotated[
        str | None,
        Field(description="Heading text: return only that heading's section."),
    ] = None,
    max_tokens: Annotated[
        int, Field(ge=50, le=MAX_TOKENS_CAP, description="Token budget of the text.")
    ] = 8000,
) -> McpCall:
    return McpCall(
        lambda vault: vault.read_note(file_path, section=section, max_tokens=max_tokens), soon=True
    )


def obsidian_list_notes(
    folder: FolderArg = None,
    tag: TagArg = None,
    tags: TagsArg = None,
    tag_match: TagMatchArg = "any",
    type: Annotated[
        str | None,
        Field(description="Front matter `type`: note, project, daily, moc, signal, …"),
    ] = None,
    modified_since: SinceArg = None,
    modified_until: UntilArg = None,
    where: WhereArg = None,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT_LIST, description="Notes to return.")] = 20,
) -> McpCall:
    def run(vault: Vault) -> Any:
        tagged = TagChoice(tag, tags, tag_match)
        chosen = filters(folder, tagged, type, modified_since, modified_until, where)
        return vault.list_notes(chosen, limit=limit)

    return McpCall(run, soon=True)


def obsidian_get_context(
    topic: Annotated[str, Field(min_length=1, description="The subject to gather notes on.")],
    max_tokens: Annotated[
        int, Field(ge=100, le=MAX_TOKENS_CAP, description="Token budget of the block.")
    ] = 2000,
) -> McpCall:
    def run(vault: Vault) -> Any:
        return vault.context(SearchRequest(topic, CONTEXT_DEFAULTS["limit"], max_tokens))

    return McpCall(run)


def _changed(
    label: str, act: Callable[[Vault, ChangeContext], Change], said: Callable[[Change], str]
) -> McpCall:
    """A writer's call: ``act`` makes the change, recorded as the MCP client's under ``label``
    (the agent tool's name and its target); ``said`` words what it did."""

    def run(vault: Vault) -> ChangeDone:
        change = act(vault, ChangeContext(label=label, source="mcp"))
        return ChangeDone(change, said(change))

    return McpCall(run)


def obsidian_create_note(
    path: PathArg, content: Annotated[str, Field(description="The whole note, markdown.")]
) -> McpCall:
    written = _content_written("create_note", Vault.create_note, "Note created")
    return written(path, content, lambda change: change.paths[0])


def obsidian_edit_note(
    path: PathArg,
    content: Annotated[
        str | None, Field(description="The new whole note (leave out with find/replace).")
    ] = None,
    find: Annotated[
        str | None,
        Field(description="Exact text to replace, every occurrence (give `replace` too)."),
    ] = None,
    replace: Annotated[str | None, Field(description="What replaces `find`.")] = None,
) -> McpCall:
    given = {"content": content, "find": find, "replace": replace}

    def edit(vault: Vault, change: ChangeContext) -> Change:
        done = edit_or_replace(vault, path, given, change)
        if done == FIND_REPLACE_TOGETHER:
            raise NoteChangeError(FIND_REPLACE_TOGETHER, "give both, or `content` alone")
        if isinstance(done, str):
            raise NoteChangeError(
                CONTENT_OR_FIND_REQUIRED, "give `content`, or `find` and `replace`"
            )
        return done

    def said(change: Change) -> str:
        if find is None:
            return f"Note updated: {path}"
        return f"Note partially updated: {path} ({change.replaced} replaced)"

    return _changed(f"edit_note {path}", edit, said)


def obsidian_append_to_note(
    path: PathArg,
    content: Annotated[str, Field(description="Text added at the end, after a newline.")],
) -> McpCall:
    written = _content_written("append_to_note", Vault.append_to_note, "Content appended")
    return written(path, content, lambda change: path)


def _content_written(
    tool: str, write: Callable[..., Change], done: str
) -> Callable[[str, str, Callable[[Change], str]], McpCall]:
    """Create or append, recorded as the chat tool ``tool``: ``write`` (a ``Vault`` method) puts
    a content at a path; the answer says ``done`` and names ``shown(change)``."""

    def call(path: str, content: str, shown: Callable[[Change], str]) -> McpCall:
        return _changed(
            f"{tool} {path}",
            lambda vault, change: write(vault, path, content, change=change),
            lambda change: f"{done}: {shown(change)}",
        )

    return call


def obsidian_move(
    source_path: Annotated[str, Field(min_length=1, description="The note or folder to move.")],
    destination_path: Annotated[
        str, Field(min_length=1, description="Its new vault-relative path (must be free).")
    ],
) -> McpCall:
    return _changed(
        f"move_file {source_path} -> {destination_path}",
        lambda vault, change: vault.move_path(source_path, destination_path, change=change),
        lambda change: f"{_kind(change)} moved: {change.paths[0]} → {change.paths[1]}",
    )


def obsidian_delete(path: PathArg) -> McpCall:
    return _changed(
        f"delete_file {path}",
        lambda vault, change: vault.trash_path(path, change=change),
        lambda change: f"{_kind(change)} deleted: {change.paths[0]} (moved to {change.paths[1]})",
    )


def _kind(change: Change) -> str:
    return "Folder" if change.is_folder else "File"
