"""The HTTP machinery every fake backend shares: a real server, a request log, a reply script.

The fakes stand at the HTTP boundary so that the real client libraries (openai, google-genai,
botocore) parse real bytes: a fake that answered at the Python level would test our mocks, not
the wire format the paid APIs send. Each protocol module only turns a scripted reply into that
protocol's bytes; serving, recording, chunked streaming and the failure modes live here.
"""

from __future__ import annotations

import hashlib
import json
import socket
import ssl
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlsplit

DEFAULT_TEXT = "This is the fake model's answer."
"""What a chat endpoint answers when a test queued nothing, so smoke tests need no script."""

TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
"""A valid 1x1 PNG, so tests of image blocks send real image bytes."""

MAX_RECORDED_BODY = 1 << 20
"""Bytes of each request body kept for tests; the rest is read and dropped, never held."""

MAX_RECORDED_REQUESTS = 500
"""Requests kept in the log; older ones are dropped so a long test can't grow it without bound."""


# --------------------------------------------------------------------------- the script


@dataclass(frozen=True)
class Usage:
    """Token counts the fake reports, in the provider's own fields."""

    input_tokens: int = 11
    output_tokens: int = 7

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class ToolCall:
    """A function call the model makes; ``split`` cuts its JSON arguments into that many stream
    fragments, as providers that stream arguments do (OpenAI, Bedrock; Gemini sends them whole).
    """

    name: str
    args: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None
    split: int = 1

    @property
    def args_json(self) -> str:
        return self.args if isinstance(self.args, str) else json.dumps(self.args)

    @property
    def args_object(self) -> Any:
        return json.loads(self.args) if isinstance(self.args, str) else self.args

    def fragments(self) -> list[str]:
        return split_text(self.args_json, self.split)

    def call_id(self, position: int) -> str:
        return self.id or f"call_fake_{position}"


@dataclass(frozen=True)
class Cut:
    """Close the connection after ``after`` stream frames, mid-answer, without the protocol's end
    marker nor the chunked-encoding terminator; ``partial`` more bytes of the next frame go first.
    """

    after: int
    partial: int = 0


@dataclass(frozen=True)
class Garbage:
    """Send ``data`` as a raw frame after ``after`` frames, then carry on with the rest."""

    after: int
    data: bytes = b"data: {this is not json\n\n"


@dataclass(frozen=True)
class StreamError:
    """The provider's in-stream error event after ``after`` frames (the HTTP status stays 200).

    ``code`` is the provider's own error code, e.g. ``rate_limit_exceeded`` (OpenAI) or
    ``throttlingException`` (Bedrock); each fake encodes it its own way and then ends the stream.
    """

    after: int
    code: str
    message: str = "The fake failed mid-stream."


@dataclass(frozen=True)
class Hold:
    """Send ``after`` stream frames, then keep the stream open, sending nothing, until the client
    closes the connection (counted in ``FakeServer.closed_by_client``) or the fake stops: an
    answer the client is in the middle of receiving when it is cancelled."""

    after: int


Fault = Cut | Garbage | StreamError | Hold


@dataclass(frozen=True)
class Answer:
    """A model turn: text (a string, or the chunks to stream it in), tool calls, usage.

    Without ``text`` the turn says ``DEFAULT_TEXT``, unless it calls tools: a turn with both text
    and a tool call would end ``agent.run_stream`` at the text.

    ``delay`` holds back the first byte, for timeout tests; ``fault`` breaks a streamed answer.
    A non-streamed request gets the joined text and whole tool calls; faults apply to streams only.
    """

    text: str | Sequence[str] | None = None
    tool_calls: Sequence[ToolCall] = ()
    usage: Usage = field(default_factory=Usage)
    delay: float = 0.0
    fault: Fault | None = None

    @property
    def chunks(self) -> list[str]:
        """The text chunks; with no text given, the default answer unless the turn calls tools."""
        if self.text is None:
            return [] if self.tool_calls else [DEFAULT_TEXT]
        chunks = [self.text] if isinstance(self.text, str) else list(self.text)
        return [chunk for chunk in chunks if chunk]

    @property
    def full_text(self) -> str:
        return "".join(self.chunks)


@dataclass(frozen=True)
class Embeddings:
    """Vectors for the next embedding request; without one the fake derives them from the text."""

    vectors: Sequence[Sequence[float]]
    delay: float = 0.0


@dataclass(frozen=True)
class HttpError:
    """A non-2xx answer; the protocol modules build ones shaped like each provider's real errors."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Reply = Answer | Embeddings | HttpError


def split_text(text: str, parts: int) -> list[str]:
    """``text`` cut into ``parts`` near-equal non-empty pieces (fewer if it is shorter)."""
    parts = max(1, min(parts, len(text)))
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit-ish vector for ``text``: same text, same vector, across runs."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [round((digest[i % len(digest)] - 127.5) / 127.5, 6) for i in range(dim)]


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the backend would receive it. ``path`` is URL-decoded, without the query."""

    method: str
    path: str
    raw_path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    body_size: int
    json: Any

    @property
    def truncated(self) -> bool:
        return self.body_size > len(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


# --------------------------------------------------------------------------- responses


@dataclass(frozen=True)
class Body:
    """A complete response body."""

    status: int
    content: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Stream:
    """A 200 response sent frame by frame with chunked encoding, so a cut is visible to the client
    (a close-delimited body would look like a clean end).
    """

    frames: list[bytes]
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    fault: Fault | None = None
    error_frame: bytes | None = None  # the protocol's encoding of a StreamError fault


Response = Body | Stream


def json_body(
    status: int, payload: Any, headers: dict[str, str] | None = None, delay: float = 0.0
) -> Body:
    return Body(
        status, json.dumps(payload).encode("utf-8"), headers=dict(headers or {}), delay=delay
    )


def http_error_body(error: HttpError) -> Body:
    content = error.body if isinstance(error.body, bytes) else json.dumps(error.body).encode()
    return Body(error.status, content, headers=dict(error.headers), delay=error.delay)


# --------------------------------------------------------------------------- the server


class FakeServer:
    """A scripted backend on 127.0.0.1 at an OS-chosen port, served from a daemon thread.

    Tests queue replies per kind of endpoint (``chat`` for model turns, ``embed`` for vectors);
    an endpoint takes the next one of its kind, or a default. Every request is recorded before it
    is answered, so once the client call returns the log already holds it.
    """

    name: ClassVar[str] = "fake"
    embedding_dim: int = 8

    def __init__(self, *, tls: bool = False) -> None:
        self.tls = tls
        self.ca_file: str | None = None  # with tls: the self-signed certificate clients must trust
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Reply]] = {"chat": deque(), "embed": deque()}
        self._requests: deque[RecordedRequest] = deque(maxlen=MAX_RECORDED_REQUESTS)
        self._closing = threading.Event()
        self.server_errors: list[BaseException] = []  # the fake's own failures, for debugging
        self.closed_by_client = 0  # held streams (``Hold``) the client closed
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FakeServer:
        handler = _make_handler(self)
        server = _Server(("127.0.0.1", 0), handler)
        server.owner = self
        if self.tls:
            self._tmp = tempfile.TemporaryDirectory(prefix="fake-tls-")
            cert, key = _self_signed_certificate(Path(self._tmp.name))
            self.ca_file = str(cert)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            # The handshake happens in the handler thread, not in the accept loop.
            server.socket = context.wrap_socket(
                server.socket, server_side=True, do_handshake_on_connect=False
            )
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # wakes handlers sleeping on a scripted delay
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "the fake is not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    # -- the script

    def queue(self, *replies: Reply) -> None:
        """Replies for the next model turns (chat / generate / converse), in order."""
        self._queue("chat", replies)

    def queue_embed(self, *replies: Embeddings | HttpError) -> None:
        """Replies for the next embedding requests, in order."""
        self._queue("embed", replies)

    def _queue(self, kind: str, replies: Sequence[Reply]) -> None:
        with self._lock:
            self._queues[kind].extend(replies)

    def pending(self, kind: str = "chat") -> int:
        with self._lock:
            return len(self._queues[kind])

    def next_reply(self, kind: str) -> Reply | None:
        with self._lock:
            queue = self._queues[kind]
            return queue.popleft() if queue else None

    # -- the log

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, fragment: str) -> list[RecordedRequest]:
        """The recorded requests whose path contains ``fragment``."""
        return [request for request in self.requests if fragment in request.path]

    def last(self, fragment: str = "") -> RecordedRequest:
        found = self.requests_to(fragment)
        assert found, f"no request to a path containing {fragment!r}; got {self.paths()}"
        return found[-1]

    def paths(self) -> list[str]:
        return [f"{request.method} {request.path}" for request in self.requests]

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> list[RecordedRequest]:
        """Poll until ``count`` requests arrived; generous by default for a loaded machine."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.requests)} requests after {timeout}s, not {count}")
            time.sleep(0.02)
        return self.requests

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    # -- for subclasses

    def handle(self, request: RecordedRequest) -> Response:
        """The protocol's answer to ``request``."""
        raise NotImplementedError

    def not_found(self, request: RecordedRequest) -> Response:
        return json_body(
            404, {"error": f"the {self.name} fake has no {request.method} {request.path}"}
        )

    def sleep(self, seconds: float) -> bool:
        """Sleep unless the fake is closing; True when it is (the handler should give up)."""
        return seconds > 0 and self._closing.wait(seconds)


def _self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost that is its own CA, written to ``folder``.

    Only for clients that refuse plain HTTP (botocore's bearer auth); ``cryptography`` comes with
    the agent extra's dependencies, so no new package is needed.
    """
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "vaultctx test fake")])
    now = datetime.datetime.now(datetime.timezone.utc)
    public = key.public_key()
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Keep the fake's own failures for the test to see, instead of printing them."""
        error = sys.exc_info()[1]
        if error is not None:
            self.owner.server_errors.append(error)


def _make_handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    """One connection. HTTP/1.1 so clients keep connections alive and streams can be chunked."""

    protocol_version = "HTTP/1.1"
    owner: ClassVar[FakeServer]
    timeout = 60  # an idle keep-alive connection frees its thread after this

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: pytest shows a failing test's own output, not a log of every request."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _serve(self) -> None:
        try:
            request = self._read_request()
            self.owner._record(request)
            response = self.owner.handle(request)
            if isinstance(response, Body):
                self._send_body(response)
            else:
                self._send_stream(response)
        except OSError:  # the client went away (or timed out) mid-answer: nothing left to tell
            self.close_connection = True

    def _read_request(self) -> RecordedRequest:
        kept = bytearray()
        size = 0
        for piece in self._body_pieces():
            size += len(piece)
            room = MAX_RECORDED_BODY - len(kept)
            if room > 0:
                kept += piece[:room]
        body = bytes(kept)
        parsed: Any = None
        if body and size == len(body):
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
        split = urlsplit(self.path)
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        return RecordedRequest(
            method=self.command,
            path=unquote(split.path),
            raw_path=self.path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers=headers,
            body=body,
            body_size=size,
            json=parsed,
        )

    def _body_pieces(self) -> Iterator[bytes]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                line = self.rfile.readline(1024)
                length = int(line.split(b";")[0].strip() or b"0", 16)
                if length == 0:
                    while self.rfile.readline(1024).strip():  # trailers
                        pass
                    return
                yield from self._read_exactly(length)
                self.rfile.readline(16)
        else:
            yield from self._read_exactly(int(self.headers.get("Content-Length") or 0))

    def _read_exactly(self, length: int) -> Iterator[bytes]:
        while length > 0:
            piece = self.rfile.read(min(length, 1 << 16))
            if not piece:
                return
            length -= len(piece)
            yield piece

    def _start(self, status: int, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)

    def _send_body(self, response: Body) -> None:
        if self.owner.sleep(response.delay):
            self.close_connection = True
            return
        self._start(response.status, response.content_type, response.headers)
        self.send_header("Content-Length", str(len(response.content)))
        self.end_headers()
        self.wfile.write(response.content)

    def _send_stream(self, response: Stream) -> None:
        if self.owner.sleep(response.delay):
            self.close_connection = True
            return
        self._start(200, response.content_type, response.headers)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        frames = list(response.frames)
        fault = response.fault
        if isinstance(fault, Garbage):
            frames.insert(fault.after, fault.data)
        elif isinstance(fault, StreamError):
            assert response.error_frame is not None, "this protocol has no in-stream errors"
            frames = [*frames[: fault.after], response.error_frame]
        elif isinstance(fault, Hold):
            for frame in frames[: fault.after]:
                self._chunk(frame)
            if self._held_until_closed():
                with self.owner._lock:
                    self.owner.closed_by_client += 1
            self.close_connection = True
            return
        elif isinstance(fault, Cut):
            for frame in frames[: fault.after]:
                self._chunk(frame)
            if fault.partial and fault.after < len(frames):
                self._chunk(frames[fault.after][: fault.partial])
            # No terminator: the client sees the connection drop mid-body.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        for frame in frames:
            self._chunk(frame)
        self.wfile.write(b"0\r\n\r\n")

    def _held_until_closed(self) -> bool:
        """Wait until the client closes the connection (True) or the fake stops (False)."""
        import select

        while not self.owner._closing.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if not readable:
                continue
            try:
                if not self.connection.recv(1024):
                    return True
            except OSError:
                return True
        return False

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
