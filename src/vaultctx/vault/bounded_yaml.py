"""Load a note's YAML front matter with a ceiling on what it may cost
(docs/reference.md#reading-the-vault).

YAML lets a few hundred bytes describe billions of values: an anchor (``&a``) may be repeated by
aliases (``*a``), and a list of nine aliases to a list of nine aliases, nine levels deep, is 9⁹
values once written out as JSON ("billion laughs"). It lets an alias name its own ancestor too, a
cycle that no JSON can hold. The loader shares one object per anchor, so loading is cheap; what
explodes is everything after it (JSON, scrubbing, storing). So the composed node graph is measured
before anything is built: values and text as they will be written out, counting every alias in
full, and nesting depth, each with a cap that real Obsidian front matter never comes near (the
largest in the Obsidian help vault and our example vault: 395 bytes, 22 keys and values, 3 levels
deep).

libyaml's scanner does work proportional to the current ``[``/``{`` nesting for every token (its
"simple key" stack), which a line of 100,000 ``[`` turns into minutes before its own nesting
limit is even reached. Front matter with more openers than ``MAX_FLOW_OPENERS`` (so nesting that
might be that deep) is therefore read by PyYAML's Python scanner, which stops at ``MAX_DEPTH``.
"""

from __future__ import annotations

from typing import Any

import yaml

from vaultctx.vault.errors import VaultError

# Real front matter is a few hundred bytes; tens of KB of YAML is a pasted dump, not properties.
MAX_CHARS = 64 * 1024
# After alias expansion. A long tag list is ~100 values; 10,000 keeps any write-out well under
# a second while no hand-written or plugin-written front matter reaches it.
MAX_VALUES = 10_000
# Text once aliases are written out: twice what the front matter may hold, so an alias may
# repeat some text but not multiply it (8,000 aliases of 30 KB were 240 MB in one row).
MAX_EXPANDED_CHARS = 2 * MAX_CHARS
# Values from the top-level mapping down to the deepest scalar. Obsidian's properties are a few
# levels deep (a list of maps is 3); 50 limits nothing real and keeps recursion far from
# Python's stack limit when the value is written out.
MAX_DEPTH = 50
# Below this many `[` and `{`, libyaml's per-token cost stays small (at most this many simple
# keys to check per token); above it the Python scanner, which checks the depth as it goes.
MAX_FLOW_OPENERS = 1000
SIMPLIFY = (
    "shorten or simplify the front matter: Obsidian's properties are a few keys and values, "
    "without YAML anchors that repeat large parts"
)

# libyaml's loader is ~10x faster and accepts the same safe subset of YAML.
_FAST_LOADER: Any = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


class FrontMatterTooCostlyError(VaultError):
    """Front matter over one of the caps; the message completes "front matter …" (the note's
    reader records it as the note's problem, the alias editor names the note)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, SIMPLIFY)


class _DepthCheckingLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing flow nesting deeper than ``MAX_DEPTH`` while scanning."""

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise FrontMatterTooCostlyError(f"nests '[' or '{{' deeper than {MAX_DEPTH} levels")
        super().fetch_flow_collection_start(token_class)


def load_bounded_yaml(source: str) -> Any:
    """The one YAML document in ``source`` as Python values, like ``yaml.safe_load``.

    Raises ``yaml.YAMLError`` for YAML that is not valid or holds a value that cannot be built
    (``2024-02-30``), ``FrontMatterTooCostlyError`` for YAML over a cap.
    """
    if len(source) > MAX_CHARS:
        raise FrontMatterTooCostlyError(
            f"is {len(source):,} characters, over the {MAX_CHARS:,}-character limit"
        )
    flow_openers = source.count("[") + source.count("{")
    loader = (_FAST_LOADER if flow_openers <= MAX_FLOW_OPENERS else _DepthCheckingLoader)(source)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the Python composer recurses once per level
            raise FrontMatterTooCostlyError(f"nests deeper than {MAX_DEPTH} levels") from None
        if node is None:
            return None
        # Without a "*" there is no alias: the graph is a tree, and the quick walk suffices when
        # it finds nothing over a cap (the full check then names the first cap exceeded).
        if "*" in source or not _tree_within_caps(node):
            _check_expansion(node)
        try:
            return loader.construct_document(node)
        except (ValueError, OverflowError) as exc:  # e.g. `date: 2024-02-30`
            # Python's advice after a ";" (set_int_max_str_digits) is for programmers.
            reason = str(exc).partition(";")[0]
            raise yaml.YAMLError(f"a value cannot be read: {reason}") from exc
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node) -> None:
    """Raise if ``root`` written out in full is over a cap, or contains itself.

    A depth-first walk over the composed graph, each node measured once (aliases share nodes),
    so its cost is linear in the YAML's size however much the aliases multiply.
    """
    measured: dict[int, tuple[int, int]] = {}  # id(node) → (values, characters) written out
    open_nodes: set[int] = set()  # the current path from the root: its size is the depth
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_measured = stack.pop()
        key = id(node)
        children = _children(node)
        if children_measured:
            open_nodes.discard(key)
            values = 1 + sum(measured[id(child)][0] for child in children)
            chars = sum(measured[id(child)][1] for child in children)
            if isinstance(node, yaml.ScalarNode):
                chars += len(node.value)
            if values > MAX_VALUES:
                raise FrontMatterTooCostlyError(
                    f"has over {MAX_VALUES:,} keys and values once YAML aliases are written out"
                )
            if chars > MAX_EXPANDED_CHARS:
                raise FrontMatterTooCostlyError(
                    f"has over {MAX_EXPANDED_CHARS:,} characters of text once YAML aliases "
                    "are written out"
                )
            measured[key] = (values, chars)
        elif key in open_nodes:
            raise FrontMatterTooCostlyError("contains itself (a YAML alias to its own anchor)")
        elif key not in measured:
            if len(open_nodes) >= MAX_DEPTH:
                raise FrontMatterTooCostlyError(f"nests deeper than {MAX_DEPTH} levels")
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children)


def _tree_within_caps(root: yaml.Node) -> bool:
    """For a graph without aliases (each node reached once): are values, text and depth all
    within the caps? ~4x cheaper than ``_check_expansion``, which real front matter always
    passes."""
    values = chars = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        values += 1
        if isinstance(node, yaml.ScalarNode):
            chars += len(node.value)
        else:
            stack.extend([(child, depth + 1) for child in _children(node)])
    return values <= MAX_VALUES and chars <= MAX_EXPANDED_CHARS


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []
