"""Tags added to a note's front matter as a minimal edit: every other byte stays as it was.

Re-dumping the YAML would reorder keys, re-quote strings, drop comments and change line breaks,
all of which the user wrote. So the edit is textual: new items are appended to an existing block
list (in its own indentation), an inline value (``tags: [a, b]``, ``tags: a, b``) is rewritten as
a block list holding its old tags first, a missing key is added as the last line of the front
matter, and a note without front matter gets one. Afterwards the result is parsed again and must
hold exactly the old keys and values plus the merged tags; anything else is an error and nothing
is written. Malformed front matter is an error too: guessing there could destroy the user's keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import yaml

from vaultctx.errors import VaultctxError
from vaultctx.vault.note import split_front_matter

_KEY_LINE = re.compile(r"^(tags?)[ \t]*:[ \t]*(.*?)[ \t]*$")
_ITEM_LINE = re.compile(r"^([ \t]*-[ \t]+)")
_SPLIT_INLINE = re.compile(r"[,\s]+")


class FrontMatterError(VaultctxError):
    """A note's front matter cannot be edited safely."""


def add_tags(text: str, tags: Sequence[str], *, name: str = "the note") -> str:
    """``text`` with ``tags`` merged into its front matter's tag list (existing tags first,
    duplicates ignored case-insensitively and with or without ``#``)."""
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        # Consistently CRLF: edit the LF form (the front matter parser reads LF) and convert back.
        return add_tags(text.replace("\r\n", "\n"), tags, name=name).replace("\n", "\r\n")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    front_matter, body_offset, problems = split_front_matter(text)
    if problems:
        raise FrontMatterError(
            f"{name}: {problems[0]}", "fix the front matter by hand, then run the command again"
        )
    if body_offset == 0:  # no front matter: make one
        block = _block_list("tags", [_plain(t) for t in _new_only([], tags)], "  - ")
        return bom + f"---\n{block}---\n" + text
    lines = text[:body_offset].splitlines(keepends=True)
    # lines[0] is the opening fence; the closing fence is the last line.
    key_line = next((i for i in range(1, len(lines) - 1) if _KEY_LINE.match(lines[i])), None)
    existing = _tag_strings(front_matter)
    added = _new_only(existing, tags)
    if not added:
        return bom + text
    if key_line is None:
        block = _block_list("tags", [_plain(t) for t in added], "  - ")
        lines.insert(len(lines) - 1, block)
    else:
        lines = _edit_key(lines, key_line, existing, added)
    edited = "".join(lines) + text[body_offset:]
    _verify(edited, front_matter, existing + added, name)
    return bom + edited


def _edit_key(lines: list[str], key_line: int, existing: list[str], added: list[str]) -> list[str]:
    match = _KEY_LINE.match(lines[key_line].rstrip("\r\n"))
    assert match is not None
    key, value = match.group(1), match.group(2)
    end = key_line + 1
    while end < len(lines) - 1 and _continues(lines[end], block=not value):
        end += 1
    items = [_ITEM_LINE.match(line) for line in lines[key_line + 1 : end]]
    if not value and items and all(items):
        # A block list: keep every line of it, append the new items in its own indentation.
        prefix = items[0].group(1) if items[0] else "  - "
        tail = lines[end - 1]
        if not tail.endswith(("\n", "\r")):
            lines[end - 1] = tail + "\n"
        new = [f"{prefix}{_plain(tag)}\n" for tag in added]
        return lines[:end] + new + lines[end:]
    block = _block_list(key, [_plain(t) for t in existing + added], "  - ")
    return [*lines[:key_line], block, *lines[end:]]


def _continues(line: str, *, block: bool) -> bool:
    if line.startswith((" ", "\t")) and line.strip():
        return True
    return block and line.startswith("-")


def _block_list(key: str, tags: Sequence[str], prefix: str) -> str:
    return f"{key}:\n" + "".join(f"{prefix}{tag}\n" for tag in tags)


def _plain(tag: str) -> str:
    """``tag`` as YAML reads it back as the same string: plain when it is, quoted otherwise."""
    try:
        if yaml.safe_load(tag) == tag and not tag.startswith(("-", "#", "!", "&", "*")):
            return tag
    except yaml.YAMLError:
        pass
    return json.dumps(tag, ensure_ascii=False)


def _tag_strings(front_matter: dict[str, Any]) -> list[str]:
    value = front_matter.get("tags", front_matter.get("tag"))
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    found: list[str] = []
    for item in values:
        if isinstance(item, str) and not isinstance(value, list):
            found += [part for part in _SPLIT_INLINE.split(item) if part]
        elif item is not None:
            found.append(str(item))
    return found


def _key(tag: str) -> str:
    return tag.strip().lstrip("#").casefold()


def _new_only(existing: Sequence[str], tags: Sequence[str]) -> list[str]:
    seen = {_key(tag) for tag in existing}
    added: list[str] = []
    for tag in tags:
        if _key(tag) and _key(tag) not in seen:
            seen.add(_key(tag))
            added.append(tag)
    return added


def _verify(edited: str, before: dict[str, Any], tags: list[str], name: str) -> None:
    after, _offset, problems = split_front_matter(edited)
    key = "tags" if "tags" in after or "tag" not in after else "tag"
    others_kept = {k: v for k, v in after.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }
    got = after.get(key)
    got_list = [str(t) for t in got] if isinstance(got, list) else None
    if (
        problems
        or not others_kept
        or got_list is None
        or [_key(t) for t in got_list] != [_key(t) for t in tags]
    ):
        raise FrontMatterError(
            f"{name}: the tags could not be added without changing other front matter",
            "add them by hand; nothing was written",
        )
