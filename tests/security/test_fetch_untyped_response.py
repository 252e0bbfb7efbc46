"""A response that names no Content-Type is fetched with an empty type and no charset: the
caller then decides how to read it (sniffing, or refusing it), never a type the fetcher made up
(organize/fetch.py)."""

from __future__ import annotations

import http.server

from tests.local_web import local_web
from vaultctx.organize.fetch import fetch

BODY = b"<p>No type given</p>"


def _untyped(handler: http.server.BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.end_headers()
    handler.wfile.write(BODY)


def test_a_response_without_a_content_type_has_an_empty_type_and_no_charset() -> None:
    with local_web({"/": _untyped}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert (fetched.status, fetched.body) == (200, BODY)
    assert (fetched.content_type, fetched.charset) == ("", None)
