"""Items added to a list in a note's front matter by inserting them, and by nothing else.

Rewriting the list from its parsed values changes what the user wrote: PyYAML reads YAML 1.1,
where ``yes`` is True, ``0x10`` is 16 and ``null`` is nothing, so a list written back from what
it read says ``True``, ``16`` and has lost an item; quoting and comments go too. Inserting keeps
every byte. Where a list ends (a block list followed by a comment, a flow list over several
lines) is read from the positions PyYAML's composer gives each node, not guessed from the text.

The editors of tags (organize/front_matter_tags.py) and aliases (review/front_matter_aliases.py)
insert through here; each still verifies its result by parsing it again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

_ITEM_LINE = re.compile(r"^([ \t]*-[ \t]+)")


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


__all__ = ["list_insertion", "value_end", "value_node"]
