"""Fetch one web page or feed without letting the URL reach the user's own network.

A URL the user pastes (or a feed lists, or a page redirects to) is hostile: it may name the cloud
metadata service, a router's admin page or a service on localhost. So every hop is checked the
same way: the scheme is http or https, the host name is resolved once and *every* address it
resolves to must be public; the connection then goes to the address that was checked (no second
DNS lookup a rebinding server could answer differently), while the Host header, TLS SNI and the
certificate check still use the name.

The pinning is done one level below httpx, in httpcore (httpx's own transport layer): a network
backend is httpcore's public extension point for *where* a connection goes, so it connects to the
checked address and refuses any other host, and the TLS layer above it is untouched. Checking the
peer address after connecting would be too late: by then the request has been sent.

Size and time are bounded for any one input: the body is streamed and cut off past ``max_bytes``
(compressed and decoded bytes both count, and the decoder never produces more than the room left,
so a gzip bomb stops at the limit); every socket read and write is given only the time left until
one wall-clock deadline, so a server dripping a byte at a time cannot hold a fetch open. Proxies
from the environment are not used: a proxy would make the connection somewhere we did not check.
"""

from __future__ import annotations

import concurrent.futures
import ipaddress
import socket
import time
import typing
import zlib
from collections.abc import Collection
from dataclasses import dataclass

import httpcore
import httpx

from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

DEFAULT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
MAX_REDIRECTS = 5
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_USER_AGENT = "vaultctx (+https://github.com/vaultctx)"
# IPv6 ranges that carry an IPv4 address inside them (NAT64 here; mapped, 6to4 and Teredo are
# read by ipaddress): the embedded address is where a gateway would connect, so it is checked too.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class FetchError(VaultctxError):
    """A URL that was refused, or a fetch that failed or went over a limit."""


@dataclass(frozen=True)
class Fetched:
    """The final response of a fetch (after redirects): its URL, status and decoded body.

    ``charset`` is the ``charset=`` parameter of the Content-Type header, if the server sent one.
    """

    url: str
    status: int
    content_type: str
    body: bytes
    charset: str | None


def fetch(
    url: str,
    *,
    allow_private: bool = False,
    allow_hosts: Collection[str] = (),
    max_bytes: int = 5_000_000,
    timeout: float = 20.0,
    accept: str = DEFAULT_ACCEPT,
) -> Fetched:
    """GET ``url`` following at most 5 redirects, each hop checked by the same rules.

    ``allow_private`` lets any address through (the user's ``--allow-private``).
    ``allow_hosts`` holds exact ``host:port`` entries allowed whatever they resolve to (how tests
    reach a server on 127.0.0.1 while every other private address stays refused). ``timeout`` is
    the wall-clock limit for the whole fetch, redirects included. A status of 400 or more raises
    ``FetchError``; so does anything over a limit.
    """
    deadline = time.monotonic() + timeout
    allowed = frozenset(entry.strip().lower() for entry in allow_hosts)
    current = _parse_url(url)
    for _hop in range(MAX_REDIRECTS + 1):
        address = _checked_address(
            current, allow_private=allow_private, allowed=allowed, deadline=deadline
        )
        result = _get_once(current, address, accept=accept, max_bytes=max_bytes, deadline=deadline)
        if isinstance(result, Fetched):
            return result
        current = result
    raise FetchError(
        f"{_short(url)} redirected more than {MAX_REDIRECTS} times",
        "open the page in a browser and use the address it ends at",
    )


def _parse_url(url: str) -> httpx.URL:
    text = url.strip()
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise FetchError(f"{text!r} is not a valid URL ({exc})", _URL_FIX) from None
    if parsed.scheme not in ("http", "https"):
        shown = parsed.scheme or "no scheme"
        raise FetchError(
            f"{_short(text)} uses {shown}: only http and https URLs are fetched", _URL_FIX
        )
    if not parsed.host:
        raise FetchError(f"{_short(text)} has no host name", _URL_FIX)
    if parsed.userinfo:
        raise FetchError(
            f"{_short(text)} carries a user name or password",
            "remove the 'user:password@' part of the URL",
        )
    return parsed.copy_with(fragment=None)


_URL_FIX = "give a full web address starting with http:// or https://"


def _host_port(url: httpx.URL) -> tuple[str, int]:
    port = url.port or (443 if url.scheme == "https" else 80)
    return url.raw_host.decode("ascii").lower(), port


def _checked_address(
    url: httpx.URL, *, allow_private: bool, allowed: frozenset[str], deadline: float
) -> str:
    host, port = _host_port(url)
    shown_host = f"[{host}]" if ":" in host else host
    addresses = _resolve(host, port, deadline)
    if not allow_private and f"{shown_host}:{port}" not in allowed:
        for address in addresses:
            reason = refusal_reason(address)
            if reason:
                subject = (
                    str(address)
                    if host == str(address)
                    else f"{shown_host} resolves to {address}, which"
                )
                raise FetchError(
                    f"{subject} is a {reason} address: refused so that a web page "
                    "cannot reach your own network",
                    "fetch public pages only, or pass --allow-private if you trust this address",
                )
    return str(addresses[0])


def refusal_reason(address: IPAddress) -> str | None:
    """Why ``address`` is not a public internet address, or None when it is."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = refusal_reason(embedded)
            return f"{inner} (inside an IPv6 address)" if inner else None
    checks: tuple[tuple[bool, str], ...] = (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (isinstance(address, ipaddress.IPv4Address) and address in _CGNAT, "shared (CGNAT)"),
        (isinstance(address, ipaddress.IPv6Address) and address.is_site_local, "site-local"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "non-public"),
    )
    return next((name for failed, name in checks if failed), None)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _resolve(host: str, port: int, deadline: float) -> list[IPAddress]:
    """All addresses of ``host``, with the lookup held to the deadline (getaddrinfo has no timeout
    of its own, so it runs in a thread we stop waiting for)."""
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        future = executor.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
        infos = future.result(timeout=max(0.0, deadline - time.monotonic()))
    except concurrent.futures.TimeoutError:
        raise _deadline_error() from None
    except (OSError, UnicodeError) as exc:
        raise FetchError(
            f"cannot resolve host {host} ({exc})",
            "check the address, and that this computer is online",
        ) from None
    finally:
        executor.shutdown(wait=False)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise FetchError(f"host {host} has no addresses", "check the address")
    return addresses


def _deadline_error() -> FetchError:
    return FetchError(
        "the fetch took longer than its time limit",
        "try again later, or fetch a page from a faster server",
    )


def _get_once(
    url: httpx.URL, address: str, *, accept: str, max_bytes: int, deadline: float
) -> Fetched | httpx.URL:
    """One request to the pinned ``address``: a Fetched, or the URL a redirect points to."""
    host, _port = _host_port(url)
    backend = _PinnedBackend(host, address, deadline)
    headers = [
        (b"Accept", accept.encode("latin-1")),
        (b"Accept-Encoding", b"gzip, deflate"),
        (b"User-Agent", _USER_AGENT.encode("ascii")),
    ]
    remaining = max(0.001, deadline - time.monotonic())
    extensions = {"timeout": {k: remaining for k in ("connect", "read", "write", "pool")}}
    try:
        with (
            httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(), network_backend=backend, retries=0
            ) as pool,
            pool.stream("GET", str(url), headers=headers, extensions=extensions) as response,
        ):
            status = response.status
            response_headers = httpx.Headers(response.headers)
            if status in _REDIRECT_STATUSES and "location" in response_headers:
                return _redirect_target(url, response_headers["location"])
            if status >= 400:
                raise FetchError(
                    f"{_short(str(url))} answered HTTP {status}", "check the address in a browser"
                )
            body = _read_body(response.iter_stream(), response_headers, max_bytes, deadline)
    except httpcore.TimeoutException:
        raise _deadline_error() from None
    except (httpcore.ConnectError, httpcore.NetworkError, httpcore.ProtocolError) as exc:
        raise FetchError(
            f"fetching {_short(str(url))} failed ({type(exc).__name__}: {exc})",
            "check the address, and try again later",
        ) from None
    content_type = response_headers.get("content-type", "")
    return Fetched(
        url=str(url),
        status=status,
        content_type=content_type.split(";")[0].strip(),
        body=body,
        charset=_charset(content_type),
    )


def _redirect_target(url: httpx.URL, location: str) -> httpx.URL:
    try:
        target = url.join(location.strip())
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(
            f"{_short(str(url))} redirected to an invalid address ({exc})",
            "open the page in a browser and use the address it ends at",
        ) from None
    return _parse_url(str(target))


def _read_body(
    chunks: typing.Iterable[bytes], headers: httpx.Headers, max_bytes: int, deadline: float
) -> bytes:
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _size_error(max_bytes)
    decoder = _BoundedDecoder(headers.get("content-encoding", ""), max_bytes)
    body = bytearray()
    raw_total = 0
    for chunk in chunks:
        if time.monotonic() > deadline:
            raise _deadline_error()
        raw_total += len(chunk)
        if raw_total > max_bytes:
            raise _size_error(max_bytes)
        body += decoder.feed(chunk)
    body += decoder.flush()
    return bytes(body)


def _size_error(max_bytes: int) -> FetchError:
    return FetchError(
        f"the response is larger than the limit of {max_bytes:,} bytes", "fetch a smaller page"
    )


class _BoundedDecoder:
    """Content-Encoding gzip/deflate/identity, never producing more than ``limit`` bytes in all.

    zlib's ``max_length`` caps each call's output at the room left (plus one byte to detect going
    over), so a small compressed chunk cannot expand into a large buffer first.
    """

    def __init__(self, encoding_header: str, limit: int) -> None:
        codings = [c.strip().lower() for c in encoding_header.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        self._limit = limit
        self._produced = 0
        self._raw_deflate_retry = False
        self._decompressor: typing.Any = None
        if not codings:
            return
        if len(codings) > 1 or codings[0] not in ("gzip", "x-gzip", "deflate"):
            raise FetchError(
                f"the server sent an unsupported Content-Encoding {encoding_header!r}",
                "fetch the page from another server",
            )
        if codings[0] == "deflate":
            self._decompressor = zlib.decompressobj(zlib.MAX_WBITS)
            self._raw_deflate_retry = True
        else:
            self._decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes:
        if self._decompressor is None:
            return self._count(data)
        room = self._limit - self._produced
        try:
            output: bytes = self._decompressor.decompress(data, room + 1)
        except zlib.error:
            if not self._raw_deflate_retry:
                raise self._corrupt() from None
            # "deflate" is raw deflate from some servers: retry once without the zlib header.
            self._raw_deflate_retry = False
            self._decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.feed(data)
        self._raw_deflate_retry = False
        return self._count(output)

    def flush(self) -> bytes:
        if self._decompressor is None:
            return b""
        try:
            return self._count(self._decompressor.flush(self._limit - self._produced + 1))
        except zlib.error:
            raise self._corrupt() from None

    def _count(self, output: bytes) -> bytes:
        self._produced += len(output)
        if self._produced > self._limit:
            raise _size_error(self._limit)
        return output

    @staticmethod
    def _corrupt() -> FetchError:
        return FetchError("the server sent a corrupt compressed response", "try again later")


def _charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _short(text: str) -> str:
    """A URL fit for a one-line message: no control characters or escapes, at most 120 long."""
    text = printable(text)
    return text if len(text) <= 120 else text[:117] + "..."


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects to the checked address only, and hands out streams held to the deadline."""

    def __init__(self, host: str, address: str, deadline: float) -> None:
        self._host = host
        self._address = address
        self._deadline = deadline
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        if host.lower() != self._host:
            raise httpcore.ConnectError(f"refusing to connect to unchecked host {host}")
        stream = self._inner.connect_tcp(
            self._address,
            port,
            timeout=_bounded(timeout, self._deadline),
            local_address=local_address,
            socket_options=socket_options,
        )
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not fetched")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _bounded(timeout: float | None, deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise httpcore.ReadTimeout("deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    """Every read and write gets at most the time left until the fetch's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, timeout=_bounded(timeout, self._deadline))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout=_bounded(timeout, self._deadline))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: typing.Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname=server_hostname, timeout=_bounded(timeout, self._deadline)
        )
        return _DeadlineStream(inner, self._deadline)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)
