"""Links to a moved note rewritten in the style they were written in, as Obsidian does."""

from __future__ import annotations

import pytest

from vaultctx.vault.link_rewrite import MoveLinks

PATHS = ["a/Plan.md", "b/Plan.md", "notes/Index.md", "img/diagram.png", "Solo.md"]


@pytest.mark.parametrize(
    ("text", "moved", "expected"),
    [
        ("[[Solo]]", {"Solo.md": "x/Renamed.md"}, "[[Renamed]]"),
        ("[[Solo.md]]", {"Solo.md": "x/Renamed.md"}, "[[Renamed.md]]"),
        ("[[Solo]]", {"Solo.md": "x/Solo.md"}, "[[Solo]]"),  # still resolves: untouched
        ("[[a/Plan#Goals|the goals]]", {"a/Plan.md": "c/Plan.md"}, "[[c/Plan#Goals|the goals]]"),
        ("![[a/Plan#^block1]]", {"a/Plan.md": "c/P2.md"}, "![[c/P2#^block1]]"),
        ("| [[a/Plan\\|alias]] |", {"a/Plan.md": "c/P2.md"}, "| [[c/P2\\|alias]] |"),
        ("[[Solo]]", {"Solo.md": "c/Plan.md"}, "[[c/Plan]]"),  # name now ambiguous: full path
        ("[d](../img/diagram.png)", {"img/diagram.png": "media/d.png"}, "[d](../media/d.png)"),
        (
            "[p](<../a/Plan.md#Goals>)",
            {"a/Plan.md": "new dir/Plan.md"},
            "[p](<../new dir/Plan.md#Goals>)",
        ),
        ("[p](../a/Plan.md)", {"a/Plan.md": "new dir/Plan.md"}, "[p](../new%20dir/Plan.md)"),
        ("`[[Solo]]` and [[Solo]]", {"Solo.md": "z/Other.md"}, "`[[Solo]]` and [[Other]]"),
        (
            "\\[[Solo]] [https](https://x.y/Solo.md)",
            {"Solo.md": "z/O.md"},
            "\\[[Solo]] [https](https://x.y/Solo.md)",
        ),
    ],
)
def test_rewrites(text: str, moved: dict[str, str], expected: str) -> None:
    rewritten, count = MoveLinks(PATHS, moved).rewrite(text, "notes/Index.md")
    assert rewritten == expected
    assert count == (0 if text == expected else 1)
