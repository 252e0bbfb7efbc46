"""A note's front matter edited where it is written: items added to a list, a key set, and every
other byte left as the user wrote it.

Loading the YAML and dumping it back would reorder keys, drop comments and re-quote values, and
PyYAML reads YAML 1.1, where ``yes`` is True, ``0x10`` is 16 and ``null`` is nothing, so even one
list rewritten from what it read says ``True`` and ``16`` and has lost an item. So every edit is
textual and as small as it can be: new items are inserted after the last item of a block list (in
its own indentation) or of a flow list (``[a, b]``, however many lines it spans); a key that is set
has its own lines replaced; a missing key is added as the last one; a note without front matter
gets one. Where a value ends is read from the positions PyYAML's composer gives each node, not
guessed from the text. The note's byte order mark and line endings are kept.

The result is read back, and must hold every other key as it was and the edited key as expected;
anything else, and front matter that cannot be read (unclosed, not YAML, not ``key: value``
lines), is a ``FrontMatterEditError`` and nothing is written: a guess there could destroy the
user's keys. Tags, aliases, ``learned_at`` and a signal's ``triage`` are all written through here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from vaultctx.errors import VaultctxError
from vaultctx.vault.bounded_yaml import FrontMatterTooCostlyError, load_bounded_yaml

_BOM = "\ufeff"  # some Windows editors start a file with one; it stays first
_FENCE = "---"
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)  # as the vault reader finds it
_ITEM_LINE = re.compile(r"^([ \t]*-[ \t]+)")
_SPLIT_WORDS = re.compile(r"[,\s]+")
_FLOW_SPECIAL = re.compile(r"[,\[\]{}]")
# A word appended as it is to a comma- or space-separated value: nothing that would end or quote it.
_BARE = re.compile(r"[^\s,\"'#:\[\]{}\\]+")
# Plain, double-quoted and single-quoted values; a block scalar (``|``, ``>``) is not extended.
_INLINE_STYLES = (None, '"', "'")
_NULL = "tag:yaml.org,2002:null"


class FrontMatterEditError(VaultctxError):
    """A note's front matter cannot be edited safely; the note was not changed."""


def quoted(item: str) -> str:
    """``item`` as a YAML double-quoted scalar: JSON's quoting, with every character YAML would
    not read back as itself (a line separator, DEL, a lone surrogate…) escaped too."""
    return "".join(_escaped(c) for c in json.dumps(item, ensure_ascii=False))


def _escaped(c: str) -> str:
    if c.isprintable():
        return c
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


def plain_or_quoted(item: str) -> str:
    """``item`` as YAML reads it back as the same string: plain when it is, quoted otherwise."""
    try:
        if yaml.safe_load(item) == item and not item.startswith(("-", "#", "!", "&", "*")):
            return item
    except yaml.YAMLError:
        pass
    return quoted(item)


def _tag_identity(tag: str) -> str:
    return tag.strip().lstrip("#").casefold()


@dataclass(frozen=True)
class ListKey:
    """How Obsidian reads one list property, which is all that tells one such key from another.

    ``names`` are its spellings (the first is written when it is missing); ``same`` what makes two
    items one; ``render`` an item as YAML text. A ``words`` key (tags) reads a text value as items
    separated by commas or spaces and takes any scalar as an item, so such a value is extended in
    place; otherwise (aliases) a text value is one item, turned into a block list when one is
    added, and an item that is not text is an error."""

    names: tuple[str, ...]
    same: Callable[[str], str]
    render: Callable[[str], str]
    words: bool


TAGS = ListKey(("tags", "tag"), _tag_identity, plain_or_quoted, words=True)
ALIASES = ListKey(("aliases",), str.casefold, quoted, words=False)


@dataclass(frozen=True)
class _Note:
    """A note cut around its front matter: its byte order mark, the ``opening`` fence's line,
    the YAML's ``lines`` (each with its line end), the ``tail`` (closing fence and body). A note
    without front matter has no ``opening`` and gets both fences when joined."""

    bom: str
    opening: str
    lines: list[str]
    tail: str
    newline: str
    values: dict[str, Any]

    def joined(self, lines: Sequence[str]) -> str:
        if self.opening:
            return self.bom + self.opening + "".join(lines) + self.tail
        fence = _FENCE + self.newline
        return self.bom + fence + "".join(lines) + fence + self.tail


def read_front_matter(text: str, *, name: str = "the note") -> dict[str, Any] | None:
    """The note's front matter as values, None when it has none; ``FrontMatterEditError`` when
    it cannot be read (the edits here refuse such a note)."""
    note = _cut(text, name)
    return note.values if note.opening else None


def add_list_items(text: str, key: ListKey, items: Sequence[str], *, name: str = "the note") -> str:
    """``text`` with each of ``items`` added last to its front matter's ``key`` unless one the
    same is there (or earlier in ``items``); ``text`` itself when none is new."""
    note = _cut(text, name)
    spelling = next((n for n in key.names if n in note.values), key.names[0])
    existing = _items(key, note.values.get(spelling), spelling, name)
    added = _new_only(key, existing, items)
    if not added:
        return text
    edited = note.joined(_grown(note, key, spelling, existing, added, name))
    after = _read_back(edited, name, lambda: _not_added(spelling, name))
    got = _items(key, after.get(spelling), spelling, name)
    kept = len(existing)
    if not _others_kept(note.values, after, spelling) or got[kept:] != added:
        raise _not_added(spelling, name)
    return edited


def set_value(text: str, key: str, value: object, *, name: str = "the note") -> str:
    """``text`` with front matter ``key: value`` (``value`` written as YAML: a date as a date, a
    mapping as an indented block), in place of the key's own lines or as the last key."""
    note = _cut(text, name)
    dumped = yaml.safe_dump(
        {key: value}, sort_keys=False, allow_unicode=True, default_flow_style=False
    ).replace("\n", note.newline)
    lines = list(note.lines)
    at = _key_line(lines, key)
    if at is None and key in note.values:  # written in a form this edit cannot find (quoted)
        raise _not_set(key, name)
    if at is None:
        lines.append(dumped)
    else:
        lines[at : _value_end_of(lines, at, key)] = [dumped]
    edited = note.joined(lines)
    after = _read_back(edited, name, lambda: _not_set(key, name))
    if after.get(key) != value or not _others_kept(note.values, after, key):
        raise _not_set(key, name)
    return edited


def _cut(text: str, name: str) -> _Note:
    bom = _BOM if text.startswith(_BOM) else ""
    text = text[len(bom) :]
    first_end = text.find("\n")
    if first_end == -1 or text[:first_end].rstrip() != _FENCE:
        # A new front matter takes the CRLF of a note that has any, even mixed in.
        newline = "\r\n" if "\r\n" in text else "\n"
        return _Note(bom, "", [], text, newline, {})
    newline = "\r\n" if text[first_end - 1] == "\r" else "\n"  # the opening fence's
    close = _CLOSE.search(text, first_end + 1)
    if close is None:
        raise FrontMatterEditError(
            f"{name}: its front matter opens with '---' and is never closed; it was left unchanged",
            "add a '---' line where the front matter ends, then run the command again",
        )
    source = text[first_end + 1 : close.start()]
    values = _parse(source, name)
    lines = source.splitlines(keepends=True)
    return _Note(bom, text[: first_end + 1], lines, text[close.start() :], newline, values)


def _parse(source: str, name: str) -> dict[str, Any]:
    fix = "fix the front matter, then run the command again"
    try:
        loaded = load_bounded_yaml(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        message = f"{name}: its front matter is not valid YAML{where}; it was left unchanged"
        raise FrontMatterEditError(message, fix) from None
    except FrontMatterTooCostlyError as exc:
        message = f"{name}: its front matter {exc}; it was left unchanged"
        raise FrontMatterEditError(message, "simplify it") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        message = f"{name}: its front matter is not 'key: value' lines; it was left unchanged"
        raise FrontMatterEditError(message, fix)
    return {str(k): v for k, v in loaded.items()}


def _read_back(
    edited: str, name: str, refused: Callable[[], FrontMatterEditError]
) -> dict[str, Any]:
    try:
        return _cut(edited, name).values
    except FrontMatterEditError:
        raise refused() from None


def _others_kept(before: dict[str, Any], after: dict[str, Any], key: str) -> bool:
    return {k: v for k, v in after.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }


def _items(key: ListKey, value: object, spelling: str, name: str) -> list[str]:
    """The items Obsidian reads in ``value``; for a ``words`` key not compared by value later
    (``tags: yes`` reads as True, ``tags: yes, new`` as text), only counted."""
    if value is None:
        return []
    if key.words:
        if isinstance(value, str):
            return [part for part in _SPLIT_WORDS.split(value) if part]
        values = value if isinstance(value, list) else [value]
        return [str(item) for item in values if item is not None]
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise FrontMatterEditError(
        f"{name}: its {spelling} are not a list of text; they were not changed",
        f"write them as a list, e.g. {spelling}: [One, Two]",
    )


def _new_only(key: ListKey, existing: Sequence[str], items: Sequence[str]) -> list[str]:
    seen = {key.same(item) for item in existing}
    added: list[str] = []
    for item in items:
        identity = key.same(item)
        if identity.strip() and identity not in seen:
            seen.add(identity)
            added.append(item)
    return added


def _grown(
    note: _Note, key: ListKey, spelling: str, existing: list[str], added: list[str], name: str
) -> list[str]:
    """The front matter's lines with ``added`` in ``spelling``'s list."""
    lines, newline = note.lines, note.newline
    block_items = [key.render(item) for item in added]
    at = _key_line(lines, spelling)
    if at is None:
        if spelling in note.values:  # a quoted or indented key: not a form this edit can find
            raise _not_added(spelling, name)
        return [*lines, _block_list(spelling, block_items, newline)]
    end = _value_end_of(lines, at, spelling)
    chunk = "".join(lines[at:end])
    flow_items = [_flow_item(item, key.render) for item in added]
    insertion = list_insertion(chunk, block_items, flow_items, newline=newline)
    if insertion is None and key.words:
        insertion = _word_insertion(chunk, added)
    if insertion is not None:
        offset, inserted = insertion
        return [*lines[:at], chunk[:offset] + inserted + chunk[offset:], *lines[end:]]
    if key.words and existing:  # a form we cannot insert into (a block scalar): do not rewrite
        raise _not_added(spelling, name)
    # Nothing, or one text item (``aliases: one``, read as text above): a block list, it first.
    every = block_items if key.words else [key.render(item) for item in existing + added]
    return [*lines[:at], _block_list(spelling, every, newline), *lines[end:]]


def _key_line(lines: Sequence[str], key: str) -> int | None:
    own = re.compile(rf"^{re.escape(key)}[ \t]*:")
    return next((i for i, line in enumerate(lines) if own.match(line)), None)


def _value_end_of(lines: Sequence[str], at: int, key: str) -> int:
    value = lines[at].rstrip("\r\n").split(":", 1)[1].strip()
    inline = bool(value) and not value.startswith("#")  # a comment alone is no value
    return value_end(lines, at, len(lines), inline=inline)


def _word_insertion(chunk: str, added: list[str]) -> tuple[int, str] | None:
    """Obsidian reads a text value of a ``words`` key as items separated by commas or spaces:
    where to extend it in kind, or None when it holds nothing to keep or has another form."""
    value = value_node(chunk)
    if not isinstance(value, yaml.ScalarNode) or value.style not in _INLINE_STYLES:
        return None
    if value.tag == _NULL or not value.value.strip() or not all(map(_BARE.fullmatch, added)):
        return None
    separator = ", " if "," in value.value else " "
    closing_quote = 1 if value.style else 0
    return value.end_mark.index - closing_quote, "".join(separator + item for item in added)


def _flow_item(item: str, render: Callable[[str], str]) -> str:
    """``item`` inside ``[...]``, where a comma or bracket would end it unquoted."""
    rendered = render(item)
    return quoted(item) if rendered == item and _FLOW_SPECIAL.search(item) else rendered


def _block_list(key: str, rendered: Sequence[str], newline: str) -> str:
    return f"{key}:{newline}" + "".join(f"  - {item}{newline}" for item in rendered)


def _not_added(key: str, name: str) -> FrontMatterEditError:
    return FrontMatterEditError(
        f"{name}: its {key} could not be added without changing other front matter; nothing "
        "was written",
        f"add them by hand, or write {key} as a list ({key}: [One, Two])",
    )


def _not_set(key: str, name: str) -> FrontMatterEditError:
    return FrontMatterEditError(
        f"{name}: its {key} could not be set without changing other front matter; nothing "
        "was written",
        f"set {key} by hand",
    )


def value_end(lines: Sequence[str], key_line: int, stop: int, *, inline: bool) -> int:
    """The index after the last line of the value of the key on ``key_line`` (``lines`` are the
    front matter's, ``stop`` the closing fence's index): its indented lines, and when the key's
    own line holds no value (``inline`` False: nothing, or a comment) the ``-`` items of a block
    list at column 0 too. Blank lines between them count, trailing ones do not."""
    end = key_line + 1
    while end < stop and _continues(lines[end], block=not inline):
        end += 1
    while end > key_line + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _continues(line: str, *, block: bool) -> bool:
    if not line.strip():
        return True
    if line.startswith((" ", "\t")):
        return True
    return block and line.startswith("-")


def value_node(chunk: str) -> yaml.Node | None:
    """The YAML node of the one value in ``chunk`` (one ``key: value`` with its lines), with the
    positions an in-place insertion needs; None when YAML cannot read it alone."""
    try:
        node = yaml.compose(chunk, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode) or len(node.value) != 1:
        return None
    value: yaml.Node = node.value[0][1]
    return value


def list_insertion(
    chunk: str, block_items: Sequence[str], flow_items: Sequence[str], *, newline: str = "\n"
) -> tuple[int, str] | None:
    """Where in ``chunk`` (one ``key: value`` with the lines of its value) to insert which text
    so that its list holds the new items last: ``block_items`` rendered for a block list (each
    goes on a line of its own, indented as the list's first item), ``flow_items`` for a flow
    list (``[a, b]``). None when the value is not a list, or not one YAML can read alone."""
    value = value_node(chunk)
    if not isinstance(value, yaml.SequenceNode):
        return None
    if not value.value:  # []
        return value.end_mark.index - 1, ", ".join(flow_items)
    if value.flow_style:  # [a, b]: right after the last item, wherever the ] stands
        return value.value[-1].end_mark.index, "".join(f", {item}" for item in flow_items)
    first = _ITEM_LINE.match(chunk[chunk.rfind("\n", 0, value.start_mark.index) + 1 :])
    if first is None:
        return None
    # After the block's last line: its last item, or a comment indented below it.
    lead = "" if chunk.endswith("\n") else newline
    return len(chunk), lead + "".join(f"{first.group(1)}{item}{newline}" for item in block_items)


__all__ = [
    "ALIASES",
    "TAGS",
    "FrontMatterEditError",
    "ListKey",
    "add_list_items",
    "list_insertion",
    "plain_or_quoted",
    "quoted",
    "read_front_matter",
    "set_value",
    "value_end",
    "value_node",
]
