"""Every link between the repo's own documents leads somewhere: a user following
docs/changes.md to review.md must find it (docs are merged from many branches)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO

# [text](target) outside code spans; the target up to a space, ')' or '#'.
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def _local_targets(doc: Path) -> list[str]:
    text = _CODE.sub("", doc.read_text(encoding="utf-8"))
    return [
        target
        for target in _LINK.findall(text)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, mailto:, obsidian: …
    ]


def test_every_relative_link_in_the_docs_resolves() -> None:
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = [
        f"{doc.relative_to(REPO)} -> {target}"
        for doc in docs
        for target in _local_targets(doc)
        if not (doc.parent / target).exists()
    ]
    assert broken == []
