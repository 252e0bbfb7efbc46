"""``triage:`` is added to a signal's front matter, changing nothing else byte for byte, or not
at all (signals/triage.py; the edit itself: tests/vault/test_front_matter_set.py)."""

from __future__ import annotations

import pytest

from vaultctx.signals.triage import with_triage
from vaultctx.vault.note import split_front_matter

TRIAGE = {"relevance": 0.5, "composite": 0.55, "domain": "web", "route": "inbox",
          "triaged_at": "2026-12-01T10:00:00+00:00"}  # fmt: skip

NOTE = """---
# my comment
title: "Quoted: title"
type: signal
tags: [a, b]   # trailing comment
nested:
  key: value
---
Body with --- and
---
more.
"""


def test_the_block_goes_before_the_closing_fence_and_nothing_else_moves() -> None:
    updated = with_triage(NOTE, TRIAGE)
    assert updated is not None
    head, tail = NOTE.split("nested:\n  key: value\n", 1)
    assert updated.startswith(head + "nested:\n  key: value\ntriage:\n  relevance: 0.5\n")
    assert updated.endswith("---\n" + tail.split("---\n", 1)[1])
    front, _, problems = split_front_matter(updated)
    assert not problems
    assert front["triage"] == TRIAGE
    assert front["title"] == "Quoted: title"


def test_crlf_notes_keep_crlf() -> None:
    crlf = NOTE.replace("\n", "\r\n")
    updated = with_triage(crlf, TRIAGE)
    assert updated is not None
    assert "\n" not in updated.replace("\r\n", "")
    assert updated.replace("\r\n", "\n") == with_triage(NOTE, TRIAGE)


@pytest.mark.parametrize(
    "text",
    [
        "no front matter at all\n",
        "---\ntype: signal\nno closing fence\n",
        "---\ntype: signal\ntriage: {}\n---\nalready\n",
        "---\n[1, 2]\n---\na list\n",
        "---\ntype: [signal\n---\nbroken yaml\n",
        "---\n{type: signal,\n  x: 1}\n---\nflow mapping over two lines\n",
    ],
)
def test_refused_when_it_cannot_be_done_cleanly(text: str) -> None:
    assert with_triage(text, TRIAGE) is None


def test_an_empty_front_matter_gets_the_key() -> None:
    updated = with_triage("---\n---\nbody\n", TRIAGE)
    assert updated is not None and updated.endswith("---\nbody\n")
    assert split_front_matter(updated)[0] == {"triage": TRIAGE}


def test_a_byte_order_mark_stays_first() -> None:
    updated = with_triage("\ufeff" + NOTE, TRIAGE)
    assert updated == "\ufeff" + with_triage(NOTE, TRIAGE)  # type: ignore[operator]
