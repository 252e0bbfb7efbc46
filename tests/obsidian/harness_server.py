"""The harness's own small server: the page, the built plugin, and what Obsidian's main process
does for a plugin (``requestUrl`` and Node's ``child_process``), on a loopback port.

Obsidian performs ``requestUrl`` outside the page, with ``Origin: app://obsidian.md`` and no
cookies; ``POST /__request`` does the same for the stand-in, forwarding only to loopback
addresses. ``POST /__run`` runs an executable as ``execFile`` would: ``vaultctx`` is this
checkout's (``python -m vaultctx``), anything else must exist on PATH or answers ENOENT. Each
request has its own thread, as the main process serves a plugin's calls concurrently (a long
poll must not hold up a confirmation).
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HARNESS = Path(__file__).parent / "harness"
PLUGIN = Path(__file__).parents[2] / "src" / "vaultctx" / "obsidian" / "plugin"
OBSIDIAN_ORIGIN = "app://obsidian.md"
TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
}


def forward(params: dict[str, Any]) -> dict[str, Any]:
    url = urlsplit(str(params["url"]))
    if url.scheme != "http" or url.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the harness forwards to loopback only, not {params['url']}")
    connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=120)
    headers = {**params.get("headers", {}), "Origin": OBSIDIAN_ORIGIN}
    try:
        path = url.path + (f"?{url.query}" if url.query else "")
        connection.request(
            params.get("method", "GET"), path, body=params.get("body") or None, headers=headers
        )
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return {"status": response.status, "headers": dict(response.getheaders()), "text": text}
    finally:
        connection.close()


def run(params: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    file, args = str(params["file"]), [str(a) for a in params["args"]]
    if file == "vaultctx":
        command = [sys.executable, "-m", "vaultctx", *args]
    elif shutil.which(file, path=env.get("PATH")):
        command = [file, *args]
    else:
        return {"error": "ENOENT", "code": -2, "stdout": "", "stderr": ""}
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    return {"error": None, "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


@contextmanager
def harness_server(env: dict[str, str]) -> Iterator[str]:
    """The harness at the yielded base address, until the block ends."""
    runs: list[list[str]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path.lstrip("/")
            base, name = (
                (PLUGIN, path[len("plugin/") :]) if path.startswith("plugin/") else (HARNESS, path)
            )
            file = base / name
            if "/" in name or not file.is_file():
                self._send(404, b"not found", "text/plain")
                return
            self._send(200, file.read_bytes(), TYPES.get(file.suffix, "application/octet-stream"))

        def do_POST(self) -> None:
            params = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if self.path == "/__request":
                try:
                    answer = forward(params)
                except OSError as exc:  # as Chromium's network stack reports it to requestUrl
                    answer = {"error": f"net::ERR_CONNECTION_REFUSED ({exc})"}
            elif self.path == "/__run":
                runs.append([params["file"], *params["args"]])
                answer = run(params, env)
            else:
                self._send(404, b"{}", "application/json")
                return
            self._send(200, json.dumps(answer).encode(), "application/json")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
