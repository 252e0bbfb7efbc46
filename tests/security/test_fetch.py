"""The web fetcher's promises (organize/fetch.py), against real HTTP servers on loopback.

A pasted URL, a redirect or a feed entry must not reach the user's own network, and no one
response may take unbounded memory or time.
"""

from __future__ import annotations

import gzip
import http.server
import ipaddress
import random
import socket
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.agent.fakes import BedrockFake
from tests.local_web import LocalWeb, drip, gzip_bomb, huge, local_web, page, redirect, send
from vaultctx.organize.fetch import FetchError, fetch, refusal_reason

ARTICLE = "<html><head><title>Hello</title></head><body><p>Body text</p></body></html>"


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with local_web({"/": page(ARTICLE)}) as server:
        yield server


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/file",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "gopher://example.com/",
        "//example.com/no-scheme",
        "example.com",
        "http://",
        "http://user:secret@example.com/",
    ],
)
def test_urls_other_than_plain_http_and_https_are_refused(url: str) -> None:
    with pytest.raises(FetchError) as refused:
        fetch(url)
    assert refused.value.suggestion


def test_loopback_is_refused_without_permission(web: LocalWeb) -> None:
    with pytest.raises(FetchError, match="loopback"):
        fetch(web.url())
    assert web.hits == []


@pytest.mark.parametrize("spelling", ["2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]"])
def test_other_spellings_of_loopback_are_refused(web: LocalWeb, spelling: str) -> None:
    with pytest.raises(FetchError, match="refused"):
        fetch(f"http://{spelling}:{web.port}/")
    assert web.hits == []


def test_allow_hosts_lets_exactly_that_host_and_port_through(web: LocalWeb) -> None:
    fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert fetched.status == 200
    assert fetched.body == ARTICLE.encode()
    assert fetched.content_type == "text/html"
    assert fetched.charset == "utf-8"
    assert fetched.url == web.url()
    with pytest.raises(FetchError, match="loopback"):
        fetch(web.url(), allow_hosts=[f"127.0.0.1:{web.port + 1}"])


def test_allow_private_lets_any_address_through(web: LocalWeb) -> None:
    assert fetch(web.url(), allow_private=True).body == ARTICLE.encode()


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.2:{port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://[::1]:{port}/",
        "http://100.64.0.1/",
        "file:///etc/passwd",
    ],
)
def test_a_redirect_to_a_private_address_is_refused(target: str) -> None:
    with local_web({"/": page("second server")}, host="127.0.0.2") as other:
        location = target.format(port=other.port)
        with local_web({"/": redirect(location)}) as web:
            with pytest.raises(FetchError, match=r"refused|only http"):
                fetch(web.url(), allow_hosts=[web.authority], timeout=10)
            assert [path for path, _ in web.hits] == ["/"]
        assert other.hits == []


def test_redirects_are_followed_and_each_hop_is_checked() -> None:
    with local_web({}) as web:
        web.routes["/"] = redirect("/one", 301)
        web.routes["/one"] = redirect(web.url("/two"), 307)
        web.routes["/two"] = page(ARTICLE)
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert fetched.url == web.url("/two")
    assert [path for path, _ in web.hits] == ["/", "/one", "/two"]


def test_more_than_five_redirects_are_refused() -> None:
    with local_web({}) as web:
        for hop in range(7):
            web.routes[f"/{hop}"] = redirect(f"/{hop + 1}")
        web.routes["/7"] = page(ARTICLE)
        with pytest.raises(FetchError, match="more than 5 times"):
            fetch(web.url("/0"), allow_hosts=[web.authority])
    assert len(web.hits) == 6


def test_an_error_status_is_an_error() -> None:
    with local_web({}) as web, pytest.raises(FetchError, match="HTTP 404"):
        fetch(web.url("/missing"), allow_hosts=[web.authority])


def _peak_while(action: Any) -> int:
    tracemalloc.start()
    try:
        action()
    finally:
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize("declare_length", [False, True])
def test_a_50_mb_page_is_cut_off_with_bounded_memory(declare_length: bool) -> None:
    with local_web({"/": huge(50_000_000, declare_length)}) as web:

        def attempt() -> None:
            with pytest.raises(FetchError, match="larger than the limit of 5,000,000 bytes"):
                fetch(web.url(), allow_hosts=[web.authority])

        peak = _peak_while(attempt)
    assert peak < 16_000_000, f"peak {peak:,} bytes"


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    with local_web({"/": gzip_bomb(200 << 20)}) as web:

        def attempt() -> None:
            with pytest.raises(FetchError, match="larger than the limit"):
                fetch(web.url(), allow_hosts=[web.authority], max_bytes=1_000_000)

        peak = _peak_while(attempt)
    assert peak < 8_000_000, f"peak {peak:,} bytes"


def test_gzip_bodies_are_decoded() -> None:
    body = gzip.compress(ARTICLE.encode())
    route = lambda h: send(h, 200, body, headers={"Content-Encoding": "gzip"})  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority]).body == ARTICLE.encode()


# An empty, non-final stored deflate block: five compressed bytes that decode to nothing.
_EMPTY_BLOCK = b"\x00\x00\x00\xff\xff"


def _padded_gzip(padding_blocks: int) -> bytes:
    """A gzip body decoding to ARTICLE, stretched with empty blocks: as many compressed bytes as
    a server likes for a few decoded ones."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    head = compressor.compress(ARTICLE.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return head + _EMPTY_BLOCK * padding_blocks + compressor.flush()


def _undeclared(body: bytes) -> Any:
    """``body`` gzip-encoded with no Content-Length, in 4 KiB writes: only the bytes read count."""

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Encoding", "gzip")
        handler.end_headers()
        for start in range(0, len(body), 4096):
            handler.wfile.write(body[start : start + 4096])

    return route


def test_compressed_bytes_count_against_the_limit_even_when_they_decode_to_little() -> None:
    """A stream of empty deflate blocks decodes to almost nothing: the bytes on the wire are
    capped too, at the same limit (one and a half times it is refused)."""
    body = _padded_gzip(60_000)  # 300 KB on the wire, ARTICLE decoded
    assert gzip.decompress(body) == ARTICLE.encode(), "precondition"
    with (
        local_web({"/": _undeclared(body)}) as web,
        pytest.raises(FetchError, match="larger than the limit of 200,000 bytes"),
    ):
        fetch(web.url(), allow_hosts=[web.authority], max_bytes=200_000)


def test_the_compressed_limit_is_inclusive() -> None:
    body = _padded_gzip(20_000)
    with local_web({"/": _undeclared(body)}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority], max_bytes=len(body))
        assert fetched.body == ARTICLE.encode()
        with pytest.raises(FetchError, match="larger than the limit"):
            fetch(web.url(), allow_hosts=[web.authority], max_bytes=len(body) - 1)


# The drip lasts far longer than the deadline: should the deadline slip, the test fails at its
# own 30 s timeout (pytest-timeout) instead of hanging the suite for the drip's 80 minutes.
@pytest.mark.timeout(30)
@pytest.mark.parametrize("headers_too", [False, True])
def test_a_slow_drip_hits_the_wall_clock_deadline(headers_too: bool) -> None:
    with local_web({"/": drip(0.05, headers_too)}) as web:
        started = time.monotonic()
        with pytest.raises(FetchError, match="time limit"):
            fetch(web.url(), allow_hosts=[web.authority], timeout=1.5)
        elapsed = time.monotonic() - started
    assert 1.4 < elapsed < 6, elapsed


def _fake_resolver(
    monkeypatch: pytest.MonkeyPatch, name: str, answers: list[list[str]]
) -> list[str]:
    """``name`` resolves to the next list of ``answers`` on each lookup; returns the lookups."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return real(host, port, *args, **kwargs)
        lookups.append(host)
        answer = answers[min(len(lookups), len(answers)) - 1]
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in answer
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def test_every_resolved_address_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_resolver(monkeypatch, "mixed.example", [["93.184.216.34", "10.1.2.3"]])
    with pytest.raises(FetchError, match=r"10\.1\.2\.3, which is a private address"):
        fetch("http://mixed.example/")


def test_the_connection_goes_to_the_checked_address_with_the_name_as_host(
    monkeypatch: pytest.MonkeyPatch, web: LocalWeb
) -> None:
    # A rebinding server answers the check with the allowed address, then a private one.
    lookups = _fake_resolver(monkeypatch, "rebind.example", [["127.0.0.1"], ["10.9.9.9"]])
    fetched = fetch(
        f"http://rebind.example:{web.port}/", allow_hosts=[f"rebind.example:{web.port}"]
    )
    assert fetched.body == ARTICLE.encode()
    assert lookups == ["rebind.example"]
    assert web.hits == [("/", f"rebind.example:{web.port}")]


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "ff02::1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "2002:a00:1::1",
        "64:ff9b::a00:1",
        "192.0.2.1",
    ],
)
def test_non_public_addresses_have_a_refusal_reason(address: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]
)
def test_public_addresses_pass(address: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) is None


def test_tls_is_verified_against_the_name_not_the_pinned_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake's certificate is for localhost and 127.0.0.1, signed by itself.
    with BedrockFake(tls=True) as server:
        assert server.ca_file is not None
        monkeypatch.setenv("SSL_CERT_FILE", server.ca_file)
        port = server.port
        fetched = fetch(
            f"https://localhost:{port}/foundation-models", allow_hosts=[f"localhost:{port}"]
        )
        assert fetched.status == 200 and fetched.content_type == "application/json"
        # Another name pinned to the same address: the certificate does not name it.
        _fake_resolver(monkeypatch, "other.example", [["127.0.0.1"]])
        with pytest.raises(FetchError, match=r"CERTIFICATE_VERIFY_FAILED|certificate"):
            fetch(
                f"https://other.example:{port}/foundation-models",
                allow_hosts=[f"other.example:{port}"],
            )


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("100.64.0.1", "shared (CGNAT)"),
        ("fec0::1", "site-local"),
        ("10.0.0.1", "private"),
        ("4000::1", "reserved"),  # neither private nor loopback: IETF-reserved space
        ("::ffff:10.0.0.1", "private (inside an IPv6 address)"),
        ("::ffff:127.0.0.1", "loopback (inside an IPv6 address)"),
        ("2002:a00:1::1", "private (inside an IPv6 address)"),  # 6to4
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "private (inside an IPv6 address)"),  # Teredo
        ("64:ff9b::a00:1", "private (inside an IPv6 address)"),  # NAT64
        ("64:ff9b::7f00:1", "loopback (inside an IPv6 address)"),
    ],
)
def test_a_refusal_names_what_kind_of_address_it_is(address: str, reason: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", ["64:ff9b::5db8:d822", "2001:0:4136:e378:8000:63bf:a247:2ddd"])
def test_a_public_address_inside_ipv6_passes(address: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) is None


def test_each_limit_says_what_to_do() -> None:
    with local_web({"/": drip(0.05)}) as web:
        with pytest.raises(FetchError) as slow:
            fetch(web.url(), allow_hosts=[web.authority], timeout=1.0)
        assert slow.value.message == "the fetch took longer than its time limit"
        assert slow.value.suggestion == "try again later, or fetch a page from a faster server"
    with local_web({"/": page(ARTICLE)}) as web:
        with pytest.raises(FetchError) as big:
            fetch(web.url(), allow_hosts=[web.authority], max_bytes=10)
        assert big.value.message == "the response is larger than the limit of 10 bytes"
        assert big.value.suggestion == "fetch a smaller page"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_corrupt_compressed_body_is_an_error(encoding: str) -> None:
    headers = {"Content-Encoding": encoding}
    route = lambda h: send(h, 200, b"\xff\xfe not compressed at all", headers=headers)  # noqa: E731
    with local_web({"/": route}) as web, pytest.raises(FetchError) as corrupt:
        fetch(web.url(), allow_hosts=[web.authority])
    assert corrupt.value.message == "the server sent a corrupt compressed response"
    assert corrupt.value.suggestion == "try again later"


@pytest.mark.parametrize("encoding", ["deflate", "Deflate"])
def test_zlib_deflate_is_decoded(encoding: str) -> None:
    body = zlib.compress(ARTICLE.encode())
    route = lambda h: send(h, 200, body, headers={"Content-Encoding": encoding})  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority]).body == ARTICLE.encode()


def test_raw_deflate_is_decoded_too() -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(ARTICLE.encode()) + compressor.flush()
    route = lambda h: send(h, 200, body, headers={"Content-Encoding": "deflate"})  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority]).body == ARTICLE.encode()


@pytest.mark.parametrize(
    ("content_type", "charset"),
    [
        ("text/html; charset=utf-8", "utf-8"),
        ('text/html; charset="ISO-8859-1"', "ISO-8859-1"),
        ("text/html;charset='koi8-r'", "koi8-r"),
        ("text/html; q=1; CHARSET = windows-1252 ", "windows-1252"),
        ("text/html; format=a=b; charset=utf-8", "utf-8"),
        ('text/html; charset="a=b"', "a=b"),  # the value is all after the first =
        ("text/html; charset=X-MAC-CYRILLIC", "X-MAC-CYRILLIC"),  # only quotes are stripped
        ("text/html; charset=", None),
        ("text/html; title=x", None),
        ("text/html charset=utf-8", None),
        ("text/html", None),
    ],
)
def test_the_charset_is_read_from_the_content_type(content_type: str, charset: str | None) -> None:
    route = lambda h: send(h, 200, b"<p>x</p>", content_type)  # noqa: E731
    with local_web({"/": route}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert fetched.charset == charset
    assert fetched.content_type == content_type.split(";")[0].strip()


@pytest.mark.parametrize("length", [120, 121])
def test_a_long_address_is_shortened_in_messages(length: int) -> None:
    with local_web({}) as web:
        url = web.url("/" + "a" * (length - len(web.url("/"))))
        with pytest.raises(FetchError) as failed:
            fetch(url, allow_hosts=[web.authority])
    shown = failed.value.message.split(" answered")[0]
    assert shown == (url if length <= 120 else url[:117] + "...")


@pytest.mark.parametrize(
    "encoding", ["gzip", "GZIP", "x-gzip", "identity,gzip", "gzip, identity", " gzip ,identity "]
)
def test_content_encodings_are_read_as_a_list(encoding: str) -> None:
    body = gzip.compress(ARTICLE.encode())
    route = lambda h: send(h, 200, body, headers={"Content-Encoding": encoding})  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority]).body == ARTICLE.encode()


@pytest.mark.parametrize("encoding", ["identity", "IDENTITY", ""])
def test_identity_is_no_encoding(encoding: str) -> None:
    route = lambda h: send(h, 200, ARTICLE.encode(), headers={"Content-Encoding": encoding})  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority]).body == ARTICLE.encode()


@pytest.mark.parametrize("encoding", ["br", "gzip, gzip", "gzip,br"])
def test_other_encodings_are_refused(encoding: str) -> None:
    route = lambda h: send(h, 200, b"x", headers={"Content-Encoding": encoding})  # noqa: E731
    with local_web({"/": route}) as web, pytest.raises(FetchError) as refused:
        fetch(web.url(), allow_hosts=[web.authority])
    assert refused.value.message == f"the server sent an unsupported Content-Encoding {encoding!r}"
    assert refused.value.suggestion == "fetch the page from another server"


@pytest.mark.parametrize("compressed", [False, True])
def test_the_decoded_limit_is_inclusive(compressed: bool) -> None:
    raw = ARTICLE.encode() * 20  # compresses to far less than itself
    body = gzip.compress(raw) if compressed else raw
    headers = {"Content-Encoding": "gzip"} if compressed else {}
    route = lambda h: send(h, 200, body, headers=headers)  # noqa: E731
    with local_web({"/": route}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority], max_bytes=len(raw)).body == raw
        with pytest.raises(FetchError, match="larger than the limit"):
            fetch(web.url(), allow_hosts=[web.authority], max_bytes=len(raw) - 1)


def test_the_connection_goes_to_the_checked_address_not_a_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Served on 127.0.0.2: a connection made to anything but the checked address (the name
    resolved again, or the local host) finds no server there."""
    with local_web({"/": page(ARTICLE)}, host="127.0.0.2") as web:
        _fake_resolver(monkeypatch, "pinned.example", [["127.0.0.2"], ["127.0.0.1"]])
        authority = f"pinned.example:{web.port}"
        fetched = fetch(f"http://{authority}/", allow_hosts=[authority])
    assert fetched.body == ARTICLE.encode()
    assert web.hits == [("/", authority)]


def test_the_request_says_what_it_accepts_and_who_asks() -> None:
    seen: list[dict[str, str]] = []

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        # Header names are case-insensitive: read them as a server does.
        names = ("Accept", "Accept-Encoding", "User-Agent")
        seen.append({name: handler.headers.get(name, "") for name in names})
        send(handler, 200, ARTICLE.encode())

    with local_web({"/": route}) as web:
        fetch(web.url(), allow_hosts=[web.authority])
        fetch(web.url(), allow_hosts=[web.authority], accept="application/rss+xml")
    assert [headers["Accept"] for headers in seen] == [
        "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
        "application/rss+xml",
    ]
    assert all(headers["Accept-Encoding"] == "gzip, deflate" for headers in seen)
    assert all(headers["User-Agent"].startswith("vaultctx ") for headers in seen)


def test_a_declared_length_over_the_limit_is_refused_before_the_body() -> None:
    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "10000000")
        handler.end_headers()
        handler.wfile.write(b"<p>short</p>")  # then hangs up: the body never arrives

    with local_web({"/": route}) as web, pytest.raises(FetchError) as refused:
        fetch(web.url(), allow_hosts=[web.authority], max_bytes=1_000)
    assert refused.value.message == "the response is larger than the limit of 1,000 bytes"


def test_a_redirect_to_an_invalid_address_says_so() -> None:
    with local_web({"/": redirect("http://[::1")}) as web, pytest.raises(FetchError) as refused:
        fetch(web.url(), allow_hosts=[web.authority])
    assert refused.value.message.startswith(f"{web.url()} redirected to an invalid address (")
    assert refused.value.suggestion == "open the page in a browser and use the address it ends at"


def test_the_decoded_total_counts_every_chunk() -> None:
    """Each 4 KiB piece decodes to far less than the limit; together they pass it."""
    rng = random.Random(7)
    vocabulary = ["".join(rng.choices("abcdefghijklmnop", k=rng.randint(3, 8))) for _ in range(300)]
    words = " ".join(rng.choice(vocabulary) for _ in range(40_000)).encode()
    body = gzip.compress(words)  # about 3 to 1: 4 KiB decode to some 13 KB
    assert len(body) < 100_000 < len(words), "precondition"
    with local_web({"/": _undeclared(body)}) as web, pytest.raises(FetchError) as refused:
        fetch(web.url(), allow_hosts=[web.authority], max_bytes=100_000)
    assert refused.value.message == "the response is larger than the limit of 100,000 bytes"
