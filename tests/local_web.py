"""A real HTTP server on a loopback address for the fetcher and clipper tests.

Each route is a function writing the whole response through the handler, so a test can send
anything a hostile server would: a redirect to a private address, 50 MB, a gzip bomb, one byte
at a time. ``hits`` records every request path (and its Host header) the server received.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

Route = Callable[[http.server.BaseHTTPRequestHandler], None]


@dataclass
class LocalWeb:
    host: str
    port: int
    routes: dict[str, Route]
    hits: list[tuple[str, str]] = field(default_factory=list)

    @property
    def authority(self) -> str:
        return f"{self.host}:{self.port}"

    def url(self, path: str = "/") -> str:
        return f"http://{self.authority}{path}"


@contextmanager
def local_web(routes: dict[str, Route], host: str = "127.0.0.1") -> Iterator[LocalWeb]:
    web = LocalWeb(host, 0, routes)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            web.hits.append((self.path, self.headers.get("Host", "")))
            route = web.routes.get(self.path.split("?")[0])
            if route is None:
                send(self, 404, b"not found")
                return
            # The client hanging up early is what most tests check for.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                route(self)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    web.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield web
    finally:
        server.shutdown()
        server.server_close()


def send(
    handler: http.server.BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    content_type: str = "text/html; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def page(html: str, content_type: str = "text/html; charset=utf-8") -> Route:
    return lambda handler: send(handler, 200, html.encode("utf-8"), content_type)


def redirect(location: str, status: int = 302) -> Route:
    return lambda handler: send(handler, status, b"", headers={"Location": location})


def huge(total: int, declare_length: bool = False) -> Route:
    """``total`` bytes of HTML, streamed in 64 KiB writes (never built in memory)."""

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        if declare_length:
            handler.send_header("Content-Length", str(total))
        handler.end_headers()
        block = b"<p>" + b"x" * (65536 - 7) + b"</p>\n"
        sent = 0
        while sent < total:
            handler.wfile.write(block)
            sent += len(block)

    return route


def gzip_bomb(decoded_total: int) -> Route:
    """A gzip body that decodes to ``decoded_total`` zero bytes (about 1000 times smaller)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    parts = [compressor.compress(zeros) for _ in range(decoded_total >> 20)]
    body = b"".join(parts) + compressor.flush()
    return lambda handler: send(handler, 200, body, "text/html", {"Content-Encoding": "gzip"})


def drip(interval: float, headers_too: bool = False) -> Route:
    """One byte every ``interval`` seconds, for far longer than any test waits."""

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        if headers_too:
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Slow: " + b"y" * 10_000:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(interval)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        handler.wfile.flush()
        for _ in range(100_000):
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(interval)

    return route
