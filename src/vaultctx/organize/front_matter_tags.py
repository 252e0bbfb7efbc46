"""Tags added to a note's front matter as a minimal edit: every other byte stays as it was.

Re-dumping the YAML would reorder keys, re-quote strings, drop comments and change line breaks,
all of which the user wrote; rewriting even the tag list from its parsed values would write
``yes`` back as ``True``, ``0x10`` as ``16`` and drop ``null`` (PyYAML reads YAML 1.1, Obsidian
does not). So the edit only inserts: new items after the last item of a block list (in its own
indentation), before the ``]`` of a flow list (``tags: [a, b]``), or after a comma- or
space-separated value (``tags: a, b``); a missing (or empty) key gets a block list as the last
line of the front matter, and a note without front matter gets one. Where the tags are is read
from PyYAML's node positions, so comments and multi-line flow lists are no trouble. Afterwards
the result must parse again and hold exactly the old keys and values plus the merged tags; a
value that cannot be extended this way, or anything else, is an error and nothing is written.
Malformed front matter is an error too: guessing there could destroy the user's keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import yaml

from vaultctx.errors import VaultctxError
from vaultctx.vault.front_matter_edit import list_insertion, value_end, value_node
from vaultctx.vault.note import split_front_matter

_KEY_LINE = re.compile(r"^(tags?)[ \t]*:[ \t]*(.*?)[ \t]*$")
_SPLIT_INLINE = re.compile(r"[,\s]+")
_FLOW_SPECIAL = re.compile(r"[,\[\]{}]")
# A tag appended as it is to a comma- or space-separated value: nothing that would end or quote it.
_BARE = re.compile(r"[^\s,\"'#:\[\]{}\\]+")
# Plain, double-quoted and single-quoted values; a block scalar (``|``, ``>``) is not extended.
_INLINE_STYLES = (None, '"', "'")


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
    _verify(edited, front_matter, len(existing), added, name)
    return bom + edited


def _edit_key(lines: list[str], key_line: int, existing: list[str], added: list[str]) -> list[str]:
    match = _KEY_LINE.match(lines[key_line].rstrip("\r\n"))
    assert match is not None
    key, value = match.group(1), match.group(2)
    inline = bool(value) and not value.startswith("#")  # a comment alone is no value
    end = value_end(lines, key_line, len(lines) - 1, inline=inline)
    chunk = "".join(lines[key_line:end])
    insertion = _insertion(chunk, added)
    if insertion is not None:
        at, text = insertion
        return [*lines[:key_line], chunk[:at] + text + chunk[at:], *lines[end:]]
    if existing:  # a form we cannot insert into (a block scalar, say): refuse, do not rewrite
        raise _not_without_changes()
    block = _block_list(key, [_plain(t) for t in added], "  - ")
    return [*lines[:key_line], block, *lines[end:]]


def _insertion(chunk: str, added: list[str]) -> tuple[int, str] | None:
    """Where in ``chunk`` (the key's lines) the new tags go and as what text; None when the
    value holds no tags to keep (empty, ``~``, ``null``) or has a form we do not extend."""
    listed = list_insertion(chunk, [_plain(t) for t in added], [_flow_item(t) for t in added])
    if listed is not None:
        return listed
    value = value_node(chunk)
    if not isinstance(value, yaml.ScalarNode) or value.style not in _INLINE_STYLES:
        return None
    if value.tag == "tag:yaml.org,2002:null" or not value.value.strip():
        return None
    if not all(map(_BARE.fullmatch, added)):
        return None
    # Obsidian reads a text value as tags separated by commas or spaces: extend it in kind.
    separator = ", " if "," in value.value else " "
    closing_quote = 1 if value.style else 0
    return value.end_mark.index - closing_quote, "".join(separator + t for t in added)


def _flow_item(tag: str) -> str:
    """``tag`` inside ``[...]``, where a comma or bracket would end it."""
    plain = _plain(tag)
    return json.dumps(tag, ensure_ascii=False) if _FLOW_SPECIAL.search(plain) else plain


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


def _verify(edited: str, before: dict[str, Any], kept: int, added: list[str], name: str) -> None:
    """The other keys as they were, and the tags: as many as before, then the added ones. (The
    old ones are not compared by value: ``tags: yes`` reads as True, ``tags: yes, new`` as a
    string; the insertion left their text as it was.)"""
    after, _offset, problems = split_front_matter(edited)
    key = "tags" if "tags" in after or "tag" not in after else "tag"
    others_kept = {k: v for k, v in after.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }
    got = [_key(t) for t in _tag_strings(after)]
    if problems or not others_kept or got[kept:] != [_key(t) for t in added]:
        raise _not_without_changes(name)


def _not_without_changes(name: str = "the note") -> FrontMatterError:
    return FrontMatterError(
        f"{name}: the tags could not be added without changing other front matter",
        "add them by hand; nothing was written",
    )
