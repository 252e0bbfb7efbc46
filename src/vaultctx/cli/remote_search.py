"""``vaultctx ask`` and ``chat`` search through the running server when there is one.

The server (``vaultctx serve --http`` or ``vaultctx ui`` for the same index) has the query models
loaded; a fresh ``ask`` would load them itself (about 0.3 s cold) before the model is called. Only
the searches go there: the model is called from this process, with this process's settings and
key, so no key ever leaves it and Ctrl-C stops the turn here; the server holds its lock for one
search at a time, never for a whole turn. Reading and changing notes stays in this process too.

The first time the server does not answer (gone, declined, malformed), the session searches
in-process from then on: one slow connection attempt at most, never one per search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.cli.forward import Served, note, served
from vaultctx.db_location import local_anchor

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest
    from vaultctx.search.retriever import SearchResponse


class ServerSearch:
    def __init__(self, server: Served) -> None:
        self._server: Served | None = server
        self._answered = False

    def __call__(self, request: SearchRequest) -> SearchResponse | None:
        from vaultctx.search.request_json import request_to_json, response_from_json

        server = self._server
        if server is None:
            return None
        try:
            answer = server.post({"search": request_to_json(request)})
            response = None if answer is None else response_from_json(answer.get("search"))
        except Exception:  # any doubt at all: this process searches itself
            response = None
        if response is None:
            note("searching in-process from now on")
            self._server = None
        elif not self._answered:
            self._answered = True
            note(f"searches answered by the server at {server.url}")
        return response


def search_through_server(vault: Vault) -> None:
    """Send ``vault``'s searches to the server running for its index, if there is one."""
    server = served(vault.path, local_anchor(vault.db_path))
    if server is not None:
        vault.search_elsewhere = ServerSearch(server)
