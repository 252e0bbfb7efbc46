"""Counts as people write them: "1 result", "2 results", "0 results"."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, the noun plural unless the number is one (regular nouns only)."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
