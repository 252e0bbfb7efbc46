"""Add aliases to a note's front matter, touching nothing else of it.

Only the ``aliases`` key's own lines change: new items are inserted after the last item of a
block list (as it is indented) or of a flow list (vault/front_matter_edit.py), a missing key is
added as the last one, and a single value is rewritten as a block list holding it first.
Everything else (other keys, comments, quoting, order, line endings) stays as the user wrote it.
The result is read back and must hold every old key unchanged and exactly the expected aliases;
anything the edit cannot do safely (invalid YAML, an unclosed front matter, aliases that are not
text) is a ``FrontMatterEditError`` and nothing is changed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from vaultctx.errors import VaultctxError
from vaultctx.vault.bounded_yaml import FrontMatterTooCostlyError, load_bounded_yaml
from vaultctx.vault.front_matter_edit import list_insertion, value_end

_FENCE = "---"
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_KEY_LINE = re.compile(r"^aliases[ \t]*:(.*)$")


def quoted(alias: str) -> str:
    """``alias`` as a YAML double-quoted scalar: JSON's quoting, with every character YAML would
    not read back as itself (a line separator, DEL, a lone surrogate…) escaped too."""
    return "".join(_escaped(c) for c in json.dumps(alias, ensure_ascii=False))


def _escaped(c: str) -> str:
    if c.isprintable():
        return c
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


class FrontMatterEditError(VaultctxError):
    """A note's front matter cannot be edited safely; the note was not changed."""


def current_aliases(front_matter: dict[str, Any], name: str) -> list[str]:
    value = front_matter.get("aliases")
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise FrontMatterEditError(
        f"{name}: its aliases are not a list of text; they were not changed",
        "write them as a list, e.g. aliases: [One, Two]",
    )


def add_aliases(text: str, wanted: list[str], *, name: str) -> str:
    """``text`` with each of ``wanted`` in its aliases unless already there (case-insensitively)."""
    newline = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    first_line_end = text.find("\n")
    if first_line_end == -1 or text[:first_line_end].rstrip() != _FENCE:
        fresh = _new_items([], wanted)
        if not fresh:
            return text
        lines = [_FENCE, "aliases:", *(f"  - {quoted(a)}" for a in fresh)]
        return newline.join([*lines, _FENCE]) + newline + text
    start = first_line_end + 1
    close = _CLOSE.search(text, start)
    if close is None:
        raise FrontMatterEditError(
            f"{name}: its front matter opens with '---' but is never closed; its aliases were "
            "not changed",
            "add a closing '---' line, then run `vaultctx review duplicates` again",
        )
    before = _parse(text[start : close.start()], name)
    existing = current_aliases(before, name)
    fresh = _new_items(existing, wanted)
    if not fresh:
        return text
    yaml_text = _edit_yaml(
        text[start : close.start()], existing, fresh, "aliases" in before, newline
    )
    expected = {**before, "aliases": existing + fresh}
    if yaml_text is None or _parse(yaml_text, name) != expected:
        raise FrontMatterEditError(
            f"{name}: its aliases could not be added without changing other front matter; "
            "nothing was changed",
            "add them by hand, or write aliases as a list (aliases: [One, Two])",
        )
    return text[:start] + yaml_text + text[close.start() :]


def _new_items(existing: list[str], wanted: list[str]) -> list[str]:
    seen = {alias.casefold() for alias in existing}
    fresh = []
    for alias in wanted:
        if alias.strip() and alias.casefold() not in seen:
            seen.add(alias.casefold())
            fresh.append(alias)
    return fresh


def _parse(source: str, name: str) -> dict[str, Any]:
    try:
        loaded = load_bounded_yaml(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise FrontMatterEditError(
            f"{name}: its front matter is not valid YAML{where}; its aliases were not changed",
            "fix the front matter, then run `vaultctx review duplicates` again",
        ) from None
    except FrontMatterTooCostlyError as exc:
        raise FrontMatterEditError(
            f"{name}: its front matter {exc}; its aliases were not changed", "simplify it"
        ) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise FrontMatterEditError(
            f"{name}: its front matter is not 'key: value' lines; its aliases were not changed",
            "fix the front matter, then run `vaultctx review duplicates` again",
        )
    return {str(key): value for key, value in loaded.items()}


def _edit_yaml(
    source: str, existing: list[str], fresh: list[str], has_key: bool, newline: str
) -> str | None:
    """``source`` (the YAML between the fences, ending with its newline) with ``fresh`` added."""
    lines = source.splitlines(keepends=True)
    new = [quoted(alias) for alias in fresh]
    if not has_key:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        return "".join([*lines, f"aliases:{newline}", *(f"  - {q}{newline}" for q in new)])
    at = next((i for i, line in enumerate(lines) if _KEY_LINE.match(line.rstrip("\r\n"))), None)
    if at is None:  # a quoted or indented key: not a form this edit can touch safely
        return None
    inline = _KEY_LINE.match(lines[at].rstrip("\r\n"))
    assert inline is not None
    value = inline.group(1).strip()
    end = value_end(lines, at, len(lines), inline=bool(value) and not value.startswith("#"))
    chunk = "".join(lines[at:end])
    insertion = list_insertion(chunk, new, new, newline=newline)
    if insertion is not None:  # a list, block or flow: the new items go after its last
        offset, text = insertion
        return "".join([*lines[:at], chunk[:offset] + text + chunk[offset:], *lines[end:]])
    # A single value (text, as current_aliases checked): a block list holding it first.
    every = [quoted(alias) for alias in existing] + new
    block = [f"aliases:{newline}", *(f"  - {q}{newline}" for q in every)]
    return "".join([*lines[:at], *block, *lines[end:]])
