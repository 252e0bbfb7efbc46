"""The import graph of src/vaultctx: no cycles between modules or between packages, lazy or
not; every package imports only its own layer and those below; and SQL only in ``index/``.

Every ``import`` counts, including those inside functions and under ``TYPE_CHECKING``: a lazy
import that points back up is still a design cycle (a feature calling back into the facade),
which is what docs/architecture.md's layering rules out. The graph is read by
``scripts/package_graph.py``, which also draws it in docs/architecture.md.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import scripts.package_graph as drawing
from scripts.package_graph import (
    BEGIN,
    END,
    drawn,
    main,
    module_names,
    package_graph,
    with_block,
)

import vaultctx

SRC = Path(vaultctx.__file__).resolve().parent
# The layers, bottom up: a package may import packages of its own layer (the cycle test keeps
# those one-way) and of the layers below, never one above. A package is a folder under vaultctx/
# or a top-level module; ``vaultctx`` is the package's own __init__ (``from vaultctx import
# Vault``). A new package must be placed here, which is the point: someone decides where it sits.
LAYERS: tuple[tuple[str, ...], ...] = (
    # errors, settings, the OS keyring
    ("errors", "config", "db_location", "destination_keys", "private_log", "os_keyring"),
    ("text", "vault", "scrub", "embed"),  # text analysis, files and markdown, secrets, vectors
    ("atomic_write", "tool_settings"),  # writing our files and other programs' settings safely
    ("index",),  # the only writer of the database, the only package that spells SQL
    ("search", "citations", "notes", "ledger", "conversations", "context_blocks", "capture"),
    ("api",),  # Vault, the facade every layer above uses
    ("vaultctx", "text_model", "model_reply", "proposals"),  # what the features build on
    ("brain", "review", "organize", "signals"),  # the features
    ("agent",),
    ("loopback", "engine_link"),  # the local servers' plumbing: HTTP, and the engine's socket
    ("hooks", "mcp", "ui", "obsidian"),  # the integrations
    ("cli", "__main__"),
    ("engine",),  # the user's engine: runs the CLI's commands on warm vaults for thin clients
)
RANK = {package: rank for rank, layer in enumerate(LAYERS) for package in layer}
INDEX = "vaultctx.index"
# Statements are written in upper case throughout, so prose outside index/ names them in lower
# case ("SQLite's data version", not the pragma statement).
SQL_KEYWORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA)\b")
# IndexDatabase's methods that take statement text.
STATEMENT_METHODS = {"execute", "executemany", "scalar"}


@functools.cache
def _tree(source: str) -> ast.Module:
    return ast.parse(source)


@pytest.fixture(scope="module", autouse=True)
def parsed_once() -> Iterator[None]:
    """Each check here reads the same ~360 source files, and parsing them is nearly all of its
    time (13 parses made this module ~100 s of a loaded suite): parse each text once for the
    module. The code cannot change while the module runs; the trees (~80 MB) go with it."""
    graph = functools.cache(drawing.import_graph)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drawing, "import_graph", lambda src=drawing.SRC: graph(src))
        yield
    _tree.cache_clear()


def import_graph() -> dict[str, set[str]]:
    """The module graph as ``scripts/package_graph.py`` reads it (once per module, above)."""
    return drawing.import_graph()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def upward_imports(packages: dict[str, set[str]], rank: dict[str, int]) -> list[str]:
    """Each import of a package from a higher layer, as ``importer -> imported``."""
    return [
        f"{package} -> {target}"
        for package, targets in sorted(packages.items())
        for target in sorted(targets)
        if rank[target] > rank[package]
    ]


def test_every_module_imports() -> None:
    for module in pkgutil.walk_packages(vaultctx.__path__, "vaultctx."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)


def test_the_graph_is_read_from_this_source_tree() -> None:
    assert set(module_names()) == set(module_names(SRC)), "scripts/ reads another checkout"


def test_the_import_graph_has_no_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_package_graph_has_no_cycles() -> None:
    assert cycles(package_graph(import_graph())) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_package_cycle_finder_finds_a_cycle_no_module_cycle_shows() -> None:
    modules = {
        "vaultctx.hooks.a": {"vaultctx.mcp.b"},
        "vaultctx.mcp.b": set(),
        "vaultctx.mcp.c": {"vaultctx.hooks.d"},
        "vaultctx.hooks.d": set(),
        "vaultctx.api": {"vaultctx.errors"},
        "vaultctx.errors": set(),
    }
    assert cycles(modules) == []
    assert cycles(package_graph(modules)) == [["hooks", "mcp"]]


def test_every_package_has_a_layer() -> None:
    packages = set(package_graph(import_graph()))
    placed = [package for layer in LAYERS for package in layer]
    assert sorted(packages - set(RANK)) == [], "add the new package to LAYERS"
    assert sorted(set(RANK) - packages) == [], "take the removed package out of LAYERS"
    assert len(placed) == len(set(placed)), "a package is in two layers"


def test_no_package_imports_a_higher_layer() -> None:
    assert upward_imports(package_graph(import_graph()), RANK) == []


def test_the_layer_check_finds_an_upward_import() -> None:
    packages = {"errors": set(), "api": {"errors"}, "index": {"api"}}
    assert upward_imports(packages, RANK) == ["index -> api"]


def test_the_picture_in_the_docs_is_drawn_from_the_code() -> None:
    """docs/architecture.md's package graph is what ``scripts/package_graph.py`` draws now."""
    assert main(["--check"]) == 0, "run `python3 scripts/package_graph.py --write`"


def test_the_picture_check_fails_on_a_stale_picture(tmp_path: Path) -> None:
    doc = tmp_path / "architecture.md"
    doc.write_text(with_block(f"# Architecture\n{BEGIN}\n{END}\n", "an old picture"))
    assert main(["--check"], doc=doc) == 1
    assert main(["--write"], doc=doc) == 0
    assert drawn() in doc.read_text()
    assert main(["--check"], doc=doc) == 0


def test_the_repo_cites_only_its_own_documents() -> None:
    """Users have the repo, not the documents it was planned from: code, help text and docs cite
    docs/ (or nothing)."""
    repo = SRC.parents[1]
    texts = [*SRC.rglob("*.py"), *(repo / "docs").glob("*.md"), repo / "README.md"]
    foreign = ("SPEC §", "SPEC.md", "DESIGN.md", "../shared", "seeds/")
    found = [
        f"{path.relative_to(repo)}: {needle}"
        for path in texts
        for needle in foreign
        if needle in path.read_text(encoding="utf-8")
    ]
    assert found == []


def sql_outside_the_index(source: str) -> list[str]:
    """Where ``source`` spells SQL: string constants (f-string parts and docstrings included)
    holding a statement keyword, and calls that run statement text."""
    found = []
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL_KEYWORD.search(node.value):
                found.append(f"{node.lineno}: {node.value.strip()[:60]!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in STATEMENT_METHODS
        ):
            found.append(f"{node.lineno}: .{node.func.attr}(…)")
    return found


# The one other SQLite file vaultctx keeps: saved conversations, apart from the index so that no
# reindex can lose them (docs/conversations.md). Its SQL lives in this one module.
CONVERSATION_STORE = "vaultctx.conversations.store"


def test_sql_lives_only_in_the_index_package() -> None:
    """Storage in one place: layers above ``index/`` call its named queries with plain values and
    never spell or run a statement, so a schema change touches ``index/`` only."""
    found = [
        f"{file.relative_to(SRC.parent)}:{where}"
        for name, file in sorted(module_names(SRC).items())
        if name not in (INDEX, CONVERSATION_STORE) and not name.startswith(f"{INDEX}.")
        for where in sql_outside_the_index(file.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_sql_finder_finds_sql() -> None:
    source = (
        '"""Docstring: the select button."""\n'
        'rows = db.execute(f"SELECT id FROM {table} WHERE k = ?", (1,))\n'
        "count = db.scalar(query)\n"
        'label = "Update"\n'
        'CLEAN = "DELETE FROM files"\n'
    )
    assert sorted(sql_outside_the_index(source)) == [
        "2: 'SELECT id FROM'",
        "2: .execute(…)",
        "3: .scalar(…)",
        "5: 'DELETE FROM files'",
    ]


def test_the_readme_links_every_doc() -> None:
    repo = SRC.parents[1]
    readme = (repo / "README.md").read_text(encoding="utf-8")
    unlinked = [
        doc.name
        for doc in sorted((repo / "docs").glob("*.md"))
        if f"(docs/{doc.name}" not in readme
    ]
    assert unlinked == []


# A function a reader can hold in view: longer ones mix steps that deserve names of their own.
LONGEST_FUNCTION = 80


def long_functions(source: str, limit: int = LONGEST_FUNCTION) -> list[str]:
    """Functions and methods of ``source`` longer than ``limit`` lines (decorators excluded)."""
    return [
        f"{node.lineno}: {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(_tree(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_is_longer_than_80_lines() -> None:
    found = [
        f"{file.relative_to(SRC.parent)}:{where}"
        for file in sorted(SRC.rglob("*.py"))
        for where in long_functions(file.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_length_check_finds_a_long_function() -> None:
    body = "".join(f"    x = {n}\n" for n in range(80))
    source = f"def short():\n    return 1\n\n\nasync def long():\n{body}"
    assert long_functions(source) == ["5: long (81 lines)"]


def imported_top_level_names(source: str) -> set[str]:
    """Every top-level package an ``import`` anywhere in ``source`` names (lazy ones too)."""
    names: set[str] = set()
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_index_package_talks_to_postgresql() -> None:
    """Nothing above ``index/`` learns which store it talks to: psycopg is imported only there."""
    found = [
        name
        for name, file in sorted(module_names(SRC).items())
        if not name.startswith(f"{INDEX}.")
        and "psycopg" in imported_top_level_names(file.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert "psycopg" in imported_top_level_names("def f():\n    from psycopg.adapt import Loader\n")
