"""The Review page's triage list: a signal's title and source come from a web feed. Its title is
escaped like everything else, and its source becomes a link only when it is an http(s) address:
neither a hostile signal nor a tampered saved list can put a ``javascript:`` href on the page."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.signals.triage_flow import TriageFlow

HOSTILE = """---
title: "<script>window.pwned=1</script><img src=x onerror=alert(2)>"
type: signal
source: "javascript:window.pwned=3"
---
A signal from a hostile feed.
"""
FINE = """---
title: A fine signal
type: signal
source: https://example.org/post?a=1&b=2
---
Something worth reading.
"""


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def rendered(vault: Vault, proposals: list[object]) -> str:
    from starlette.requests import Request

    from vaultctx.ui.pages import Pages
    from vaultctx.ui.review_page import FLOWS, ReviewForm

    request = Request({"type": "http", "path": "/review", "query_string": b"", "headers": []})
    response = Pages(vault).page(
        request,
        "review.html",
        form=ReviewForm(flow="triage"),
        flows=FLOWS,
        proposals=proposals,
        notices=[],
        saved_at="1.0",
        proposed=True,
    )
    return bytes(response.body).decode("utf-8")


def test_a_hostile_signal_is_escaped_and_its_source_is_no_link(tmp_path: Path) -> None:
    root = make_vault(
        tmp_path / "vault", {"00-inbox/Hostile.md": HOSTILE, "00-inbox/Fine.md": FINE}
    )
    with Vault(root, db=tmp_path / "index.db") as vault:
        vault.index(fast=True)
        proposals = asyncio.run(TriageFlow().propose(vault))
        assert len(proposals) == 2
        # A saved list edited by hand cannot smuggle a link in either.
        tampered = [
            dataclasses.replace(p, data={**p.data, "link": "javascript:window.pwned=4"})
            for p in proposals
        ]
        html = rendered(vault, [*proposals, *tampered])
    assert "<script>window" not in html and "<img" not in html
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html
    assert "source: javascript:window.pwned=3" in html  # shown as text
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert not [h for h in hrefs if "javascript" in h.lower()], hrefs
    assert "https://example.org/post?a=1&amp;b=2" in hrefs
