"""The diff a regeneration shows: what the model changed in a generated block, short enough to
read in a terminal or a tool result."""

from __future__ import annotations

MAX_LINES = 40


def block_diff(old: str, new: str, *, max_lines: int = MAX_LINES) -> list[str]:
    """``- old`` then ``+ new`` lines of the one window that changed (the lines both texts
    start and end with are left out), at most ``max_lines`` and a line saying how many more."""
    before, after = old.splitlines(), new.splitlines()
    prefix = 0
    while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(before), len(after)) - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    lines = [f"- {line}" for line in before[prefix : len(before) - suffix]]
    lines += [f"+ {line}" for line in after[prefix : len(after) - suffix]]
    if len(lines) > max_lines:
        omitted = len(lines) - max_lines
        lines = [*lines[:max_lines], f"… {omitted} lines omitted"]
    return lines
