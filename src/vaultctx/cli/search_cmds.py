"""``vaultctx search`` and ``vaultctx context``: asking the index."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.api import Vault
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, console, open_vault
from vaultctx.errors import VaultctxError
from vaultctx.search.graph import DEFAULT_DEPTH, MAX_DEPTH, GraphOrigin
from vaultctx.search.retriever import FUSIONS, MODES, Mode, SearchResponse

if TYPE_CHECKING:
    from vaultctx.search.filters import SearchFilter

GraphOption = Annotated[
    bool, typer.Option("--graph", help="Also follow the hits' links (Graph RAG, SPEC §7).")
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


FolderOption = Annotated[
    str | None,
    typer.Option(help="Only notes under this vault folder (recursive).", show_default=False),
]
TagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="Only notes with this tag, nested tags included (#a finds a/b). Repeat: all of them.",
        show_default=False,
    ),
]
WhereOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Front matter condition 'KEY OP VALUE', OP one of = != > >= < <= ~ (contains), "
        "e.g. 'project.status = active'. Repeat: all must hold.",
        show_default=False,
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        help="Modified on or after: 2026-01-31, 2026-01-31T09:00, or an age (12h, 7d, 2w).",
        show_default=False,
    ),
]
UntilOption = Annotated[
    str | None,
    typer.Option(help="Modified before this (a bare date includes that day).", show_default=False),
]


def _filters(
    folder: str | None,
    tags: list[str] | None,
    where: list[str] | None,
    since: str | None,
    until: str | None,
) -> SearchFilter | None:
    """The filter options as one filter; None without any, so a plain search skips the module."""
    if not (folder or tags or where or since or until):
        return None
    from vaultctx.search.filters import parse_filter

    return parse_filter(folder=folder, tags=tags or (), since=since, until=until, where=where or ())


def _check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise VaultctxError(f"unknown --mode {mode!r}", f"use one of: {', '.join(MODES)}")
    return mode  # type: ignore[return-value]


def _graph_options(graph: bool, depth: int | None) -> dict[str, Any]:
    if depth is not None and not graph:
        raise VaultctxError("--depth sets how far --graph follows links", "add --graph")
    return {"graph": graph, "depth": DEFAULT_DEPTH if depth is None else depth}


def _why(origin: GraphOrigin | None) -> str:
    from rich.markup import escape

    if origin is None:
        return ""
    if origin.role == "seed":
        return " · graph seed"
    hops = f"{origin.hop} link{'s' if origin.hop > 1 else ''} away"
    return f" · linked from {escape(origin.via or '')}, {hops}"


def _print_results(response: SearchResponse) -> None:
    # rich only here: --json output (scripts, benchmarks) does not pay for importing it.
    from rich.markup import escape
    from rich.panel import Panel

    stdout = console("stdout")
    for notice in response.notices:
        stdout.print(f"[yellow]note:[/] {escape(notice)}")
    if not response.results:
        stdout.print(f"no results for {response.query!r}; try broader or different words")
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
    stdout.print(f"[dim]{response.count} results in {response.took_ms:.1f} ms ({response.mode})[/]")


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


def search(
    query: Annotated[str | None, typer.Argument(help="What to look for.")] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="Results to return.")] = 10,
    max_tokens: Annotated[int, typer.Option(min=1, help="Token budget of all texts.")] = 4000,
    mode: Annotated[str, typer.Option(help="hybrid, bm25 or vector.")] = "hybrid",
    bm25_weight: Annotated[float, typer.Option(min=0.0, help="RRF weight of BM25.")] = 1.0,
    vec_weight: Annotated[
        float | None, typer.Option(min=0.0, help="RRF weight of vectors.")
    ] = None,
    notes: Annotated[bool, typer.Option("--notes", help="One result per note.")] = False,
    fusion: Annotated[
        str, typer.Option(help="score (min-max weighted sum, default) or rrf.")
    ] = "score",
    batch: Annotated[
        str | None, typer.Option(help="JSONL/plain file of queries; - for stdin.")
    ] = None,
    graph: GraphOption = False,
    depth: DepthOption = None,
    folder: FolderOption = None,
    tag: TagOption = None,
    where: WhereOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the vault: BM25 and vectors fused (hybrid), or one of them.

    The filters (--folder, --tag, --where, --since, --until) choose the notes before ranking.
    """
    checked = _check_mode(mode)
    if fusion not in FUSIONS:
        raise VaultctxError(f"unknown --fusion {fusion!r}", f"use one of: {', '.join(FUSIONS)}")
    if (query is None) == (batch is None):
        raise VaultctxError(
            "nothing to search for" if query is None else "QUERY and --batch both given",
            "give a QUERY or --batch FILE (exactly one of them)",
        )
    handle = open_vault(vault, db)
    options: dict[str, Any] = {
        "limit": limit,
        "max_tokens": max_tokens,
        "mode": checked,
        "bm25_weight": bm25_weight,
        "vec_weight": vec_weight,
        "notes": notes,
        "fusion": fusion,
        **_graph_options(graph, depth),
        "filters": _filters(folder, tag, where, since, until),
    }
    if batch is not None:
        # From its third vector query on the retriever ranks vectors from memory by itself.
        for query_id, text in _read_batch(batch):
            response = handle.search(text, **options)
            line = {"id": query_id, **response.as_dict()}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        return
    assert query is not None
    response = handle.search(query, **options)
    if as_json:
        print(json.dumps(response.as_dict(), ensure_ascii=False))
    else:
        _print_results(response)


def context(
    topic: Annotated[str | None, typer.Argument(help="The topic to gather context about.")] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    output_format: Annotated[str, typer.Option("--format", help="markdown or json.")] = "markdown",
    max_tokens: Annotated[int, typer.Option(min=50, help="Token budget of the block.")] = 2000,
    block_name: Annotated[
        str | None,
        typer.Option("--block", help="A named block from vaultctx.toml [blocks.NAME], cached."),
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Rebuild the --block even if its cache is valid.")
    ] = False,
    graph: GraphOption = False,
    depth: DepthOption = None,
    folder: FolderOption = None,
    tag: TagOption = None,
    where: WhereOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
) -> None:
    """Print a block of vault context about TOPIC, ready to paste into any AI tool."""
    if output_format not in ("markdown", "json"):
        raise VaultctxError(f"unknown --format {output_format!r}", "use markdown or json")
    if (topic is None) == (block_name is None):
        raise VaultctxError(
            "nothing to gather context on" if topic is None else "TOPIC and --block both given",
            "give a TOPIC or --block NAME (exactly one of them)",
        )
    filters = _filters(folder, tag, where, since, until)
    if filters is not None and block_name is not None:
        raise VaultctxError(
            "filters apply to a TOPIC; a --block keeps its own query", "drop the filters"
        )
    handle: Vault = open_vault(vault, db)
    if block_name is not None:
        named = handle.context_block(block_name, refresh=refresh)
        as_json = output_format == "json"
        print(json.dumps(named.as_dict(), ensure_ascii=False) if as_json else named.markdown)
        return
    assert topic is not None
    block = handle.context(
        topic, max_tokens=max_tokens, filters=filters, **_graph_options(graph, depth)
    )
    if output_format == "json":
        print(json.dumps(block.as_dict(), ensure_ascii=False))
    else:
        print(block.markdown)


def register(app: typer.Typer) -> None:
    app.command()(search)
    app.command()(context)
