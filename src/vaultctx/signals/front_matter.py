"""Adding the ``triage`` key to a signal's front matter without rewriting the rest.

The user's front matter keeps its bytes (order, quoting, comments): the new mapping is appended
just before the closing ``---``, in the note's own line endings. The result is parsed back and
must equal the old front matter plus ``triage``; when it does not (flow-style front matter on one
line, say), the edit is refused and the note left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from vaultctx.signals.inbox import TRIAGE_KEY
from vaultctx.vault.note import split_front_matter

_BOM = "\ufeff"
_OPEN = re.compile(r"---[ \t]*(\r?\n)")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)


def with_triage(text: str, triage: dict[str, Any]) -> str | None:
    """``text`` with ``triage:`` added to its front matter, or None when that cannot be done
    without touching anything else (no front matter, already triaged, a layout that would
    change meaning)."""
    if text.startswith(_BOM):  # some Windows editors start a file with one; it stays
        updated = with_triage(text[len(_BOM) :], triage)
        return None if updated is None else _BOM + updated
    opened = _OPEN.match(text)
    if opened is None:
        return None
    newline = opened.group(1)
    close = _CLOSE.search(text, opened.end())
    if close is None:
        return None
    before, offset, problems = split_front_matter(_lf(text))
    if problems or offset == 0 or TRIAGE_KEY in before:
        return None
    block = yaml.safe_dump(
        {TRIAGE_KEY: triage}, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    block = block.replace("\n", newline)
    updated = text[: close.start()] + block + text[close.start() :]
    after, _, after_problems = split_front_matter(_lf(updated))
    if after_problems or after.pop(TRIAGE_KEY, None) != triage or after != before:
        return None
    return updated


def _lf(text: str) -> str:
    """As the vault reader sees it (it reads CRLF notes with LF line ends)."""
    return text.replace("\r\n", "\n")


__all__ = ["with_triage"]
