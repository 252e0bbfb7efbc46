"""Setting one front matter key in a note the user wrote, touching nothing else.

Loading the YAML and dumping it again would reorder keys, drop comments and re-quote values, so
the edit is textual: the key's line (with any indented continuation lines) is replaced, or a line
is added before the closing ``---``; a note without front matter gets one prepended. The note's
line endings are kept. Front matter that opens and never closes is an error: where it would end
is a guess, and a wrong guess would swallow the user's text.
"""

from __future__ import annotations

import re

from vaultctx.errors import VaultctxError

_OPEN = re.compile(r"\A---[ \t]*(\r?\n)")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


class FrontMatterEditError(VaultctxError):
    """The note's front matter cannot be edited safely."""


def set_front_matter_value(text: str, key: str, value: str, *, name: str = "the note") -> str:
    """``text`` with front matter ``key: value`` (``value`` is written as given: pass a plain
    scalar such as a date)."""
    if not _KEY.match(key) or "\n" in value or "\r" in value:
        raise ValueError(f"not a plain key and one-line value: {key!r}: {value!r}")
    opened = _OPEN.match(text)
    if opened is None:
        newline = "\r\n" if "\r\n" in text else "\n"
        return f"---{newline}{key}: {value}{newline}---{newline}{text}"
    newline = opened.group(1)
    closed = _CLOSE.search(text, opened.end())
    if closed is None:
        raise FrontMatterEditError(
            f"{name} opens its front matter with --- and never closes it; it was left unchanged",
            "add a --- line where the front matter ends",
        )
    lines = text[opened.end() : closed.start()].splitlines(keepends=True)
    own = re.compile(rf"^{re.escape(key)}[ \t]*:")
    for index, line in enumerate(lines):
        if own.match(line):
            end = index + 1
            while end < len(lines) and lines[end][:1] in (" ", "\t"):
                end += 1
            lines[index:end] = [f"{key}: {value}{newline}"]
            break
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        lines.append(f"{key}: {value}{newline}")
    return text[: opened.end()] + "".join(lines) + text[closed.start() :]


__all__ = ["FrontMatterEditError", "set_front_matter_value"]
