"""The Host and Origin headers the HTTP server accepts (DNS-rebinding protection), exactly.

A wildcard bind (``0.0.0.0``, ``::``) is not a name any client uses: admitting it as a Host would
let a page served under that "name" through; remote names must be given with ``extra_hosts``.
"""

from __future__ import annotations

import pytest

from vaultctx.loopback.policy import (
    InsecureBindError,
    allowed_host_headers,
    allowed_origins,
    check_bind,
    is_loopback,
)

LOCAL = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "127.0.0.1", "localhost", "::1", "[::1]"])
def test_wildcard_and_loopback_binds_admit_only_the_local_names(host: str) -> None:
    assert allowed_host_headers(host) == LOCAL


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_a_wildcard_bind_admits_the_names_given_for_it(host: str) -> None:
    assert allowed_host_headers(host, ["my-desktop.lan"]) == [
        *LOCAL,
        "my-desktop.lan",
        "my-desktop.lan:*",
    ]


@pytest.mark.parametrize(
    ("host", "admitted"),
    [
        ("192.168.1.20", "192.168.1.20"),
        ("my-desktop.lan", "my-desktop.lan"),
        ("fd00::20", "[fd00::20]"),  # an IPv6 Host header carries brackets
    ],
)
def test_a_specific_bind_address_is_admitted_with_and_without_a_port(
    host: str, admitted: str
) -> None:
    assert allowed_host_headers(host) == [*LOCAL, admitted, f"{admitted}:*"]


def test_origins_are_this_machine_only() -> None:
    assert allowed_origins() == [
        f"{scheme}://{name}{port}"
        for scheme in ("http", "https")
        for name in ("127.0.0.1", "localhost", "[::1]")
        for port in ("", ":*")
    ]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("LocalHost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("localhost.evil.example", False),
        ("X::1", False),  # only the brackets of an IPv6 literal are taken off
        ("", False),
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_network_bind_without_a_token_says_how_to_get_one() -> None:
    with pytest.raises(InsecureBindError) as refused:
        check_bind("0.0.0.0", None)
    assert refused.value.one_line() == (
        "--host 0.0.0.0 makes your notes reachable from other machines, so it needs a bearer "
        "token; leave out --no-token to use the generated one, or set one with --token or "
        "VAULTCTX_TOKEN (clients send `Authorization: Bearer <token>`)"
    )


def test_a_network_bind_with_a_weak_token_says_how_to_make_a_strong_one() -> None:
    with pytest.raises(InsecureBindError) as refused:
        check_bind("192.168.1.20", "a" * 64)
    assert refused.value.one_line() == (
        "--host 192.168.1.20 needs a bearer token of at least 32 random bytes, and this one has "
        "only 1 different characters; it does not look random; generate one with "
        '`openssl rand -hex 32` or `python -c "import secrets; '
        'print(secrets.token_urlsafe(32))"`, or leave out --token and VAULTCTX_TOKEN to use the '
        "generated token"
    )
