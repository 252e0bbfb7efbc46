"""The import graph of src/vaultctx: no cycles, lazy or not, and dependencies flow downward; and
SQL only in ``index/``.

Every ``import`` counts, including those inside functions and under ``TYPE_CHECKING``: a lazy
import that points back up is still a design cycle (a feature calling back into the facade),
which is what docs/architecture.md's layering rules out.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import vaultctx

SRC = Path(vaultctx.__file__).resolve().parent
# Layers from the bottom up; a module may import its own layer and the ones below it only.
LOWER_LAYERS = ("vaultctx.vault", "vaultctx.text", "vaultctx.scrub", "vaultctx.embed")
UPPER = ("vaultctx.api", "vaultctx.cli", "vaultctx.mcp", "vaultctx.hooks", "vaultctx.ui")
INDEX = "vaultctx.index"
# Statements are written in upper case throughout, so prose outside index/ names them in lower
# case ("SQLite's data version", not the pragma statement).
SQL_KEYWORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA)\b")
# IndexDatabase's methods that take statement text.
STATEMENT_METHODS = {"execute", "executemany", "scalar"}


def _module_names() -> dict[str, Path]:
    names = {}
    for file in SRC.rglob("*.py"):
        parts = file.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        names[name] = file
    return names


def _imports(name: str, file: Path, modules: set[str]) -> set[str]:
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


def import_graph() -> dict[str, set[str]]:
    modules = _module_names()
    return {name: _imports(name, file, set(modules)) for name, file in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
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


def test_every_module_imports() -> None:
    for module in pkgutil.walk_packages(vaultctx.__path__, "vaultctx."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)


def test_the_import_graph_has_no_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_lower_layers_never_import_upper_ones() -> None:
    graph = import_graph()
    upward = [
        (module, target)
        for module, targets in graph.items()
        if module.startswith(LOWER_LAYERS) or module.startswith("vaultctx.index")
        for target in targets
        if target.startswith(UPPER)
    ]
    assert upward == []


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
    for node in ast.walk(ast.parse(source)):
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
        for name, file in sorted(_module_names().items())
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
