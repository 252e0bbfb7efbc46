"""Answers from the index with every trace of an ignored note taken out, by the rules of now.

The index can hold a note that became ignored after it was indexed (a line added to
``.indexignore`` since the last run, a watcher that has not caught up). Its passages, its links
and its place in a listing must not reach a model or a page meanwhile, so each read method of
``Vault`` passes its answer through here, judged by ``vault.private_paths.is_ignored`` with the
rules loaded for that call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from vaultctx.vault.private_paths import is_ignored
from vaultctx.vault.scanner import load_ignore_rules

if TYPE_CHECKING:  # the hook imports this module; it must not load the search stack for it
    from vaultctx.search.graph import NoteLinks, ResolvedLink
    from vaultctx.search.retriever import SearchResponse, SearchResult

IsIgnored = Callable[[str], bool]


def ignored_now(vault: Path, extra_ignores: Sequence[str] = ()) -> IsIgnored:
    """Whether a vault-relative file path is excluded by the vault's ignore rules as they are."""
    rules, _ = load_ignore_rules(vault, extra_ignores)
    return lambda path: is_ignored(path, rules, folder=False)


def search_without_ignored(response: SearchResponse, ignored: IsIgnored) -> SearchResponse:
    results = [result for result in response.results if not _names_ignored(result, ignored)]
    mocs = [
        replace(moc, links_to=[path for path in moc.links_to if not ignored(path)])
        for moc in response.related_mocs
        if not ignored(moc.path)
    ]
    if len(results) == len(response.results) and mocs == response.related_mocs:
        return response
    return replace(response, results=results, related_mocs=mocs)


def _names_ignored(result: SearchResult, ignored: IsIgnored) -> bool:
    named = [result.file_path]
    if result.graph is not None:
        named += [path for path in (result.graph.via, result.graph.seed) if path]
    return any(ignored(path) for path in named)


def links_without_ignored(links: NoteLinks, ignored: IsIgnored) -> NoteLinks:
    """``links`` of a note that is not ignored itself (the caller checks), without the links
    from ignored notes or into them."""
    return replace(
        links,
        outlinks=[link for link in links.outlinks if not _touches_ignored(link, ignored)],
        backlinks=[link for link in links.backlinks if not _touches_ignored(link, ignored)],
    )


def broken_without_ignored(links: list[ResolvedLink], ignored: IsIgnored) -> list[ResolvedLink]:
    return [link for link in links if not ignored(link.source)]


def _touches_ignored(link: ResolvedLink, ignored: IsIgnored) -> bool:
    return ignored(link.source) or (link.resolved is not None and ignored(link.resolved))
