"""The fetch guard's address checks at their edges (organize/fetch.py): what a refused URL says,
which port and address a request really goes to, and how a name that resolves badly ends.

The broader tests in test_fetch.py show that private addresses are refused; these pin the rest
of the promise word for word: the message a user sees for each refusal, that the connection
goes to the first checked address on the scheme's default port, that a lookup which hangs is
held to the fetch's one deadline, and that the allow list is read as the user typed it. Name
lookups are answered by a recording stand-in for ``socket.getaddrinfo`` and connections by one
for ``socket.create_connection``; every real server is on loopback.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.local_web import local_web, page, redirect, send
from vaultctx.organize import fetch as fetch_module
from vaultctx.organize.fetch import FetchError, fetch

ARTICLE = "<html><body><p>Body text</p></body></html>"
URL_FIX = "give a full web address starting with http:// or https://"
PRIVATE_FIX = "fetch public pages only, or pass --allow-private if you trust this address"
NETWORK = "refused so that a web page cannot reach your own network"


def _resolver(
    monkeypatch: pytest.MonkeyPatch, name: str, answer: Callable[[], list[str]]
) -> list[tuple[str, int, Any]]:
    """``name`` resolves to what ``answer`` returns (or raises); returns the lookups made, each
    as (host, port, the socket type asked for)."""
    real = socket.getaddrinfo
    lookups: list[tuple[str, int, Any]] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != name:
            return real(host, port, *args, **kwargs)
        lookups.append((host, port, kwargs.get("type")))
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in answer()
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def _refused_connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every connection attempt is recorded and refused: where a request would have gone."""
    attempts: list[tuple[str, int]] = []

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        attempts.append((address[0], address[1]))
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return attempts


def _refusal(url: str, **options: Any) -> FetchError:
    with pytest.raises(FetchError) as refused:
        fetch(url, **options)
    return refused.value


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "ftp://example.com/file",
            "ftp://example.com/file uses ftp: only http and https URLs are fetched",
        ),
        ("example.com", "example.com uses no scheme: only http and https URLs are fetched"),
        ("http://", "http:// has no host name"),
        ("  http://[::1  ", "'http://[::1' is not a valid URL (Invalid port: ':1')"),
    ],
)
def test_a_refused_url_says_why_word_for_word(url: str, message: str) -> None:
    refused = _refusal(url)
    assert (refused.message, refused.suggestion) == (message, URL_FIX)


def test_a_url_with_a_user_name_says_which_part_to_remove() -> None:
    refused = _refusal("http://user:secret@example.com/")
    assert refused.message == "http://user:secret@example.com/ carries a user name or password"
    assert refused.suggestion == "remove the 'user:password@' part of the URL"


def test_spaces_around_a_pasted_url_and_its_fragment_are_dropped() -> None:
    with local_web({"/": page(ARTICLE)}) as web:
        fetched = fetch(f"  {web.url()}#section\n", allow_hosts=[web.authority])
    assert (fetched.url, fetched.body) == (web.url(), ARTICLE.encode())
    assert [path for path, _ in web.hits] == ["/"]


@pytest.mark.parametrize(("scheme", "port"), [("http", 80), ("https", 443)])
def test_a_url_without_a_port_goes_to_its_schemes_port(
    monkeypatch: pytest.MonkeyPatch, scheme: str, port: int
) -> None:
    lookups = _resolver(monkeypatch, "portless.example", lambda: ["127.0.0.1"])
    attempts = _refused_connections(monkeypatch)
    refused = _refusal(
        f"{scheme}://Portless.Example/", allow_hosts=[f"portless.example:{port}"], timeout=10
    )
    assert refused.message.startswith(f"fetching {scheme}://portless.example/ failed (")
    assert lookups == [("portless.example", port, socket.SOCK_STREAM)]
    assert attempts == [("127.0.0.1", port)]


def test_the_first_resolved_address_is_the_one_connected_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _resolver(monkeypatch, "two.example", lambda: ["127.0.0.3", "127.0.0.4"])
    attempts = _refused_connections(monkeypatch)
    _refusal("http://two.example:8080/", allow_hosts=["two.example:8080"], timeout=10)
    assert attempts == [("127.0.0.3", 8080)]


def test_an_ipv6_literal_is_allowed_by_its_bracketed_host_and_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    attempts = _refused_connections(monkeypatch)
    refused = _refusal("http://[::1]:8080/", allow_hosts=["[::1]:8080"], timeout=10)
    assert refused.message.startswith("fetching http://[::1]:8080/ failed (ConnectError: ")
    assert attempts == [("::1", 8080)]


@pytest.mark.parametrize(
    ("url", "subject"),
    [
        ("http://127.0.0.1:9/", "127.0.0.1 is a loopback address"),
        ("http://[::1]:9/", "::1 is a loopback address"),
        ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ],
)
def test_a_refused_address_is_named_with_what_to_do(url: str, subject: str) -> None:
    refused = _refusal(url)
    assert (refused.message, refused.suggestion) == (f"{subject}: {NETWORK}", PRIVATE_FIX)


def test_a_name_resolving_to_a_private_address_names_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _resolver(monkeypatch, "inside.example", lambda: ["10.1.2.3"])
    refused = _refusal("http://inside.example/")
    assert (
        refused.message
        == f"inside.example resolves to 10.1.2.3, which is a private address: {NETWORK}"
    )
    assert refused.suggestion == PRIVATE_FIX


def test_a_link_local_address_with_a_zone_is_still_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    # getaddrinfo spells a scoped IPv6 address with its zone: fe80::1%eth0.
    _resolver(monkeypatch, "zoned.example", lambda: ["fe80::1%eth0"])
    refused = _refusal("http://zoned.example/")
    assert (
        refused.message
        == f"zoned.example resolves to fe80::1, which is a link-local address: {NETWORK}"
    )


def _raising(error: BaseException) -> Callable[[], list[str]]:
    def answer() -> list[str]:
        raise error

    return answer


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (socket.gaierror(-2, "Name or service not known"), "[Errno -2] Name or service not known"),
        (UnicodeError("label too long"), "label too long"),
    ],
)
def test_a_name_that_cannot_be_resolved_says_so(
    monkeypatch: pytest.MonkeyPatch, error: BaseException, shown: str
) -> None:
    _resolver(monkeypatch, "nowhere.example", _raising(error))
    refused = _refusal("http://nowhere.example/")
    assert refused.message == f"cannot resolve host nowhere.example ({shown})"
    assert refused.suggestion == "check the address, and that this computer is online"


def test_a_name_without_addresses_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    _resolver(monkeypatch, "empty.example", lambda: [])
    refused = _refusal("http://empty.example/")
    assert (refused.message, refused.suggestion) == (
        "host empty.example has no addresses",
        "check the address",
    )


@pytest.mark.parametrize(("limit", "at_most"), [(0.5, 4.0), (0.05, 0.9)])
def test_a_lookup_that_hangs_is_held_to_the_deadline(
    monkeypatch: pytest.MonkeyPatch, limit: float, at_most: float
) -> None:
    """Neither the lookup (6 s) nor the thread running it is waited for, and the lookup gets no
    more than the time left (a limit of 0.05 s is not stretched to a whole second)."""

    def slow() -> list[str]:
        time.sleep(6)
        return ["93.184.216.34"]

    _resolver(monkeypatch, "slow.example", slow)
    started = time.monotonic()
    refused = _refusal("http://slow.example/", timeout=limit)
    elapsed = time.monotonic() - started
    assert refused.message == "the fetch took longer than its time limit"
    assert refused.suggestion == "try again later, or fetch a page from a faster server"
    assert limit * 0.9 < elapsed < at_most, elapsed


def test_the_allow_list_is_read_without_case_or_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    _resolver(monkeypatch, "casey.example", lambda: ["127.0.0.1"])
    with local_web({"/": page(ARTICLE)}) as web:
        url = f"http://casey.example:{web.port}/"
        fetched = fetch(url, allow_hosts=[f"  Casey.EXAMPLE:{web.port}\n"])
    assert fetched.body == ARTICLE.encode()


def test_five_redirects_are_followed_and_a_sixth_is_refused_by_name() -> None:
    with local_web({}) as web:
        for hop in range(6):
            web.routes[f"/{hop}"] = redirect(f"/{hop + 1}")
        web.routes["/5"] = page(ARTICLE)
        assert fetch(web.url("/0"), allow_hosts=[web.authority]).url == web.url("/5")
        web.routes["/5"] = redirect("/6")
        web.routes["/6"] = page(ARTICLE)
        refused = _refusal(web.url("/0"), allow_hosts=[web.authority])
    assert refused.message == f"{web.url('/0')} redirected more than 5 times"
    assert refused.suggestion == "open the page in a browser and use the address it ends at"


def test_the_default_size_limit_is_five_million_bytes() -> None:
    with local_web({}) as web:
        web.routes["/fits"] = lambda h: send(h, 200, b"x" * 5_000_000)
        web.routes["/over"] = lambda h: send(h, 200, b"x" * 5_000_001)
        assert len(fetch(web.url("/fits"), allow_hosts=[web.authority]).body) == 5_000_000
        refused = _refusal(web.url("/over"), allow_hosts=[web.authority])
    assert refused.message == "the response is larger than the limit of 5,000,000 bytes"


def test_the_default_time_limit_is_twenty_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    deadlines: list[float] = []

    def stop(*args: Any, deadline: float, **kwargs: Any) -> str:
        deadlines.append(deadline - time.monotonic())
        raise FetchError("stopped", "-")

    monkeypatch.setattr(fetch_module, "_checked_address", stop)
    _refusal("http://example.com/")
    assert len(deadlines) == 1 and 19 < deadlines[0] <= 20, deadlines


def test_the_request_timeouts_alone_hold_a_silent_server_to_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two nets hold the deadline: the timeouts given with the request, and the streams that give
    each read only the time left. With the second switched off the first still holds."""
    monkeypatch.setattr(fetch_module, "_bounded", lambda timeout, deadline: timeout)

    def silent_then_page(handler: Any) -> None:
        time.sleep(6)
        send(handler, 200, ARTICLE.encode())

    with local_web({"/": silent_then_page}) as web:
        started = time.monotonic()
        refused = _refusal(web.url(), allow_hosts=[web.authority], timeout=1.0)
        elapsed = time.monotonic() - started
    assert refused.message == "the fetch took longer than its time limit"
    assert 0.9 < elapsed < 4, elapsed


def test_the_content_type_is_its_bare_name() -> None:
    route = page(ARTICLE, content_type="text/html ; charset=utf-8")
    with local_web({"/": route}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert (fetched.content_type, fetched.charset) == ("text/html", "utf-8")


class _RecordingBackend:
    """Stands in for httpcore's socket backend: records what the pinned backend asks of it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, dict[str, Any]]] = []

    def connect_tcp(self, host: str, port: int, **options: Any) -> Any:
        self.calls.append((host, port, options))
        return object()


def test_the_pinned_connect_gets_only_the_time_left_and_the_callers_options() -> None:
    backend = fetch_module._PinnedBackend("pinned.example", "127.0.0.1", time.monotonic() + 10)
    inner = _RecordingBackend()
    backend._inner = inner  # type: ignore[assignment]
    backend.connect_tcp("pinned.example", 8080, timeout=None, local_address="127.0.0.9")
    backend.connect_tcp("pinned.example", 8080, timeout=2.0, socket_options=[(1, 2, 3)])
    (first, second) = inner.calls
    assert first[:2] == ("127.0.0.1", 8080) and 9 < first[2]["timeout"] <= 10
    assert first[2]["local_address"] == "127.0.0.9"
    assert second[2]["timeout"] == 2.0 and second[2]["socket_options"] == [(1, 2, 3)]
