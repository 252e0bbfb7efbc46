"""``vaultctx search`` and ``vaultctx context``: asking the index.

Both build one ``SearchRequest`` (with one ``Filters``) from their options and hand it to the
``Vault``; the request checks the options, so nothing is validated here twice.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from vaultctx.api import CONTEXT_DEFAULTS, Vault
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, console, open_vault, print_plain
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters
from vaultctx.search.graph import GraphOrigin
from vaultctx.search.ranking_constants import DEFAULT_DEPTH, MAX_DEPTH
from vaultctx.search.request import Fusion, Mode, SearchRequest, Weights
from vaultctx.search.retriever import SearchResponse
from vaultctx.text.counting import counted

GraphOption = Annotated[
    bool, typer.Option("--graph", help="Also follow the hits' links (outlinks and backlinks).")
]
DepthOption = Annotated[
    int | None,
    typer.Option(
        min=0,
        max=MAX_DEPTH,
        help=f"Links to follow with --graph (default {DEFAULT_DEPTH}).",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class FilterFlags:
    """The filter options of ``search`` and ``context``: they choose the notes before ranking."""

    folder: Annotated[
        str | None,
        typer.Option(help="Only notes under this vault folder (recursive).", show_default=False),
    ] = None
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag",
            help="Only notes with this tag, nested tags included (#a finds a/b). "
            "Repeat: all of them (with --any-tag: any one of them).",
            show_default=False,
        ),
    ] = None
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="Front matter condition 'KEY OP VALUE', OP one of = != > >= < <= ~ (contains), "
            "e.g. 'project.status = active'. Repeat: all must hold.",
            show_default=False,
        ),
    ] = None
    since: Annotated[
        str | None,
        typer.Option(
            help="Modified on or after: 2026-01-31, 2026-01-31T09:00, or an age (12h, 7d, 2w).",
            show_default=False,
        ),
    ] = None
    until: Annotated[
        str | None,
        typer.Option(
            help="Modified before this (a bare date includes that day).", show_default=False
        ),
    ] = None
    any_tag: Annotated[
        bool,
        typer.Option(
            "--any-tag", help="With several --tag: notes carrying any one of them (OR), not all."
        ),
    ] = False

    def filters(self) -> Filters:
        """The one ``Filters`` value (it checks the dates and conditions)."""
        return Filters(
            folder=self.folder,
            tags=self.tag or (),
            since=self.since,
            until=self.until,
            where=self.where or (),
            any_tag=self.any_tag,
        )


NO_FILTER_FLAGS = FilterFlags()


def _depth(graph: bool, depth: int | None) -> int:
    if depth is not None and not graph:
        raise VaultctxError("--depth sets how far --graph follows links", "add --graph")
    return DEFAULT_DEPTH if depth is None else depth


def _why(origin: GraphOrigin | None) -> str:
    from rich.markup import escape

    if origin is None:
        return ""
    if origin.role == "seed":
        return " · graph seed"
    return f" · linked from {escape(origin.via or '')}, {counted(origin.hop, 'link')} away"


def _print_results(response: SearchResponse, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(response.as_dict(), ensure_ascii=False))
        return
    # rich only here: --json output (scripts, benchmarks) does not pay for importing it.
    from rich.markup import escape
    from rich.panel import Panel

    stdout = console("stdout")
    for notice in response.notices:
        stdout.print(f"[yellow]note:[/] {escape(notice)}")
    if not response.results:
        print_plain(f"no results for {response.query!r}; try broader or different words")
        return
    for rank, result in enumerate(response.results, start=1):
        ranks = f"bm25 #{result.bm25_rank or '-'} · vector #{result.vec_rank or '-'}"
        title = f"[bold]{rank}. {escape(result.title)}[/]  [dim]{escape(result.citation)}[/]"
        stdout.print(
            Panel(
                escape(result.text),
                title=title,
                title_align="left",
                subtitle=f"[dim]{result.score:.4f} · {ranks}{_why(result.graph)}[/]",
                subtitle_align="right",
            )
        )
    for moc in response.related_mocs:
        stdout.print(f"[bold]map of content:[/] {escape(moc.title)}  [dim]{escape(moc.path)}[/]")
    found = counted(response.count, "result")
    stdout.print(f"[dim]{found} in {response.took_ms:.1f} ms ({response.mode})[/]")


def _read_batch(source: str) -> list[tuple[Any, str]]:
    """JSONL lines ``{"id", "query"}`` or plain lines; ``-`` reads standard input."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise VaultctxError(
            f"cannot read --batch file {source} ({exc.strerror})", "check the path, or pass -"
        ) from exc
    queries: list[tuple[Any, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                item = json.loads(line)
                queries.append((item.get("id", number), str(item["query"])))
            except (json.JSONDecodeError, KeyError, AttributeError) as exc:
                raise VaultctxError(
                    f"{source} line {number} is not a query ({exc})",
                    'write each line as {"id": …, "query": "…"} or as plain text',
                ) from exc
        else:
            queries.append((number, line.strip()))
    return queries


@takes_option_groups
def search(
    query: Annotated[str | None, typer.Argument(help="What to look for.")] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="Results to return.")] = 10,
    max_tokens: Annotated[int, typer.Option(min=1, help="Token budget of all texts.")] = 4000,
    mode: Annotated[str, typer.Option(help="hybrid, bm25 or vector.")] = "hybrid",
    bm25_weight: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            help="Fusion weight of the keyword (BM25) list [default: 1.0; 0.5 with --graph].",
            show_default=False,
        ),
    ] = None,
    vec_weight: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            help="Fusion weight of the vector lists [default: each model's measured weight; "
            "1.0 for the graph list with --graph].",
            show_default=False,
        ),
    ] = None,
    notes: Annotated[bool, typer.Option("--notes", help="One result per note.")] = False,
    fusion: Annotated[
        str | None,
        typer.Option(
            help="score (min-max weighted sum) or rrf (reciprocal rank) [default: score; rrf "
            "with --graph].",
            show_default=False,
        ),
    ] = None,
    batch: Annotated[
        str | None, typer.Option(help="JSONL/plain file of queries; - for stdin.")
    ] = None,
    graph: GraphOption = False,
    depth: DepthOption = None,
    filter_flags: FilterFlags = NO_FILTER_FLAGS,
    translate: Annotated[
        bool,
        typer.Option(
            "--translate",
            help="Also search the query translated (by the [agent] model) into the notes' "
            "language when it is not theirs (docs/agent.md).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Search the vault: BM25 and vectors fused (hybrid), or one of them.

    The filters (--folder, --tag, --where, --since, --until) choose the notes before ranking.
    """
    if (query is None) == (batch is None):
        raise VaultctxError(
            "nothing to search for" if query is None else "QUERY and --batch both given",
            "give a QUERY or --batch FILE (exactly one of them)",
        )
    # Checked here in this order; mode and fusion by SearchRequest itself, with the fix.
    request = partial(
        SearchRequest,
        filters=filter_flags.filters(),
        weights=Weights(bm25=bm25_weight, vector=vec_weight),
        depth=_depth(graph, depth),
        limit=limit,
        max_tokens=max_tokens,
        mode=cast(Mode, mode),
        fusion=cast("Fusion | None", fusion),
        notes=notes,
        graph=graph,
    )
    if batch is not None:
        _search_batch(open_vault(vault, db), batch, request)
        return
    assert query is not None
    asked = request(query)  # a bad option is an error before the vault is opened
    handle = open_vault(vault, db)
    response = _search_translated(handle, asked) if translate else handle.search(asked)
    _print_results(response, as_json=as_json)


def _search_translated(handle: Vault, asked: SearchRequest) -> SearchResponse:
    from vaultctx.agent.backends import require_agent_extra
    from vaultctx.agent.settings import load_agent_settings
    from vaultctx.agent.translate import search_translated

    require_agent_extra()
    return search_translated(handle, asked, load_agent_settings(handle.path))


def _search_batch(handle: Vault, source: str, request: Callable[[str], SearchRequest]) -> None:
    """One JSON line per query, as each is answered; from its third vector query on the
    retriever ranks vectors from memory by itself."""
    for query_id, text in _read_batch(source):
        response = handle.search(request(text))
        print(json.dumps({"id": query_id, **response.as_dict()}, ensure_ascii=False), flush=True)


@takes_option_groups
def context(
    topic: Annotated[str | None, typer.Argument(help="The topic to gather context about.")] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    output_format: Annotated[str, typer.Option("--format", help="markdown or json.")] = "markdown",
    max_tokens: Annotated[
        int, typer.Option(min=50, help="Token budget of the block.")
    ] = CONTEXT_DEFAULTS["max_tokens"],
    block_name: Annotated[
        str | None,
        typer.Option("--block", help="A named block from vaultctx.toml [blocks.NAME], cached."),
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Rebuild the --block even if its cache is valid.")
    ] = False,
    graph: GraphOption = False,
    depth: DepthOption = None,
    filter_flags: FilterFlags = NO_FILTER_FLAGS,
) -> None:
    """Print a block of vault context about TOPIC, ready to paste into any AI tool."""
    if output_format not in ("markdown", "json"):
        raise VaultctxError(f"unknown --format {output_format!r}", "use markdown or json")
    if (topic is None) == (block_name is None):
        raise VaultctxError(
            "nothing to gather context on" if topic is None else "TOPIC and --block both given",
            "give a TOPIC or --block NAME (exactly one of them)",
        )
    filters = filter_flags.filters()
    if block_name is not None:
        if not filters.is_empty or graph:
            raise VaultctxError(
                "filters and --graph apply to a TOPIC; a --block keeps its own query",
                "drop them, or change the block in vaultctx.toml",
            )
        named = open_vault(vault, db).context_block(block_name, refresh=refresh)
        as_json = output_format == "json"
        print(json.dumps(named.as_dict(), ensure_ascii=False) if as_json else named.markdown)
        return
    assert topic is not None
    asked = SearchRequest(
        topic,
        limit=CONTEXT_DEFAULTS["limit"],
        max_tokens=max_tokens,
        filters=filters,
        graph=graph,
        depth=_depth(graph, depth),
    )
    block = open_vault(vault, db).context(asked)
    if output_format == "json":
        print(json.dumps(block.as_dict(), ensure_ascii=False))
    else:
        print(block.markdown)


def register(app: typer.Typer) -> None:
    app.command()(search)
    app.command()(context)
