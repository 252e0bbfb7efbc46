#!/usr/bin/env python3
"""Draw vaultctx's package graph from the code: a Mermaid flowchart in docs/architecture.md.

    python3 scripts/package_graph.py            # print the block
    python3 scripts/package_graph.py --write    # rewrite it between the markers in the doc
    python3 scripts/package_graph.py --check    # exit 1 when the doc's block differs

The import graph is read from the source with ``ast``, never by importing it: every ``import``
counts, including those inside functions and under ``TYPE_CHECKING`` (a lazy import that points
back up is still a design cycle). ``tests/test_architecture.py`` reads the same graph to refuse
cycles and upward imports, and runs ``--check``, so the picture cannot drift from the code.
Standard library only: it runs from a bare checkout, before any install.

A package is a folder under ``src/vaultctx`` (``hooks/``) or a top-level module (``api.py``); the
picture shows one arrow per pair of packages, and leaves out an arrow that a longer path already
implies (the transitive reduction), which keeps it readable without changing what it says.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "vaultctx"
DOC = REPO / "docs" / "architecture.md"
BEGIN = "<!-- package-graph: drawn by `python3 scripts/package_graph.py --write`; do not edit -->"
END = "<!-- package-graph: end -->"
ROOT = "vaultctx"  # the package's own __init__: `from vaultctx import Vault`

Graph = dict[str, set[str]]


def module_names(src: Path = SRC) -> dict[str, Path]:
    """Every module under ``src`` by dotted name (a package by its ``__init__``)."""
    names = {}
    for file in src.rglob("*.py"):
        parts = file.relative_to(src.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return names


def module_imports(name: str, file: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``file`` (module ``name``) imports, anywhere in it."""
    package = name if file.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {target for target in found if target in modules and target != name}


def import_graph(src: Path = SRC) -> Graph:
    """Module → the modules it imports."""
    modules = module_names(src)
    return {name: module_imports(name, file, set(modules)) for name, file in modules.items()}


def package_of(module: str) -> str:
    """``vaultctx.hooks.claude`` → ``hooks``; ``vaultctx.api`` → ``api``; ``vaultctx`` → itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph(graph: Mapping[str, set[str]]) -> Graph:
    """The module graph collapsed to packages; a package's imports of itself are left out."""
    packages: Graph = {package_of(module): set() for module in graph}
    for module, targets in graph.items():
        source = package_of(module)
        packages[source].update(package_of(t) for t in targets if package_of(t) != source)
    return packages


def transitive_reduction(graph: Mapping[str, set[str]]) -> Graph:
    """``graph`` without the edges a longer path already implies (for an acyclic graph)."""
    return {
        node: {t for t in targets if not any(_reaches(graph, o, t) for o in targets - {t})}
        for node, targets in graph.items()
    }


def _reaches(graph: Mapping[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        fresh = graph.get(node, set()) - seen
        seen |= fresh
        todo.extend(fresh)
    return False


def mermaid(graph: Mapping[str, set[str]], src: Path = SRC, note: str = "") -> str:
    """The flowchart: importers above what they import; folders as ``name/``, modules as
    ``name.py``; ``note`` as a comment line."""
    lines = ["```mermaid", "flowchart TD", *([f"    %% {note}"] if note else [])]
    for node in sorted(graph):
        lines.append(f'    {_node_id(node)}["{_label(node, src)}"]')
    for node in sorted(graph):
        lines.extend(f"    {_node_id(node)} --> {_node_id(t)}" for t in sorted(graph[node]))
    lines.append("```")
    return "\n".join(lines)


def _node_id(package: str) -> str:
    return package.strip("_") or package  # Mermaid ids: `__main__` as `main`


def _label(package: str, src: Path) -> str:
    if package == ROOT:
        return "vaultctx/__init__.py"
    return f"{package}/" if (src / package).is_dir() else f"{package}.py"


def drawn(src: Path = SRC) -> str:
    """The block between the markers, as the code stands."""
    packages = package_graph(import_graph(src))
    reduced = transitive_reduction(packages)
    arrows = sum(map(len, reduced.values()))
    total = sum(map(len, packages.values()))
    note = f"{len(packages)} packages; {arrows} arrows of {total} (the others are implied)"
    return mermaid(reduced, src, note)


def with_block(document: str, block: str) -> str:
    """``document`` with ``block`` between the markers; ValueError when a marker is missing."""
    start, end = document.find(BEGIN), document.find(END)
    if start == -1 or end < start:
        raise ValueError(f"{DOC.name} lacks the markers {BEGIN!r} … {END!r}")
    return f"{document[: start + len(BEGIN)]}\n{block}\n{document[end:]}"


def main(argv: Sequence[str] | None = None, doc: Path = DOC, src: Path = SRC) -> int:
    parser = argparse.ArgumentParser(description="Draw vaultctx's package graph from the code.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite the block in the doc")
    action.add_argument("--check", action="store_true", help="exit 1 if the doc's block differs")
    options = parser.parse_args(argv)
    block = drawn(src)
    if not (options.write or options.check):
        print(block)
        return 0
    current = doc.read_text(encoding="utf-8")
    wanted = with_block(current, block)
    if options.write:
        if wanted != current:
            doc.write_text(wanted, encoding="utf-8")
        return 0
    if wanted != current:
        print(
            f"{doc}: the package graph differs from the code; "
            "run `python3 scripts/package_graph.py --write`",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
