"""Ranking numbers live in ``search/ranking_constants.py`` and nowhere else.

Whoever changes ranking should find every number in one module, with where it was measured; and
``Vault`` composes, it does not wire vector sources itself. These tests fail when a weight, a
cut-off or a ranking name is defined again elsewhere, or when ``api.py`` builds a source again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vaultctx
import vaultctx.search.ranking_constants as ranking_constants
from tests.conftest import make_vault
from vaultctx.api import Vault

SRC = Path(vaultctx.__file__).resolve().parent
HOME = SRC / "search" / "ranking_constants.py"
# Where ranking is computed or wired: the search package and the facade above it.
WIRING = [SRC / "api.py", *sorted((SRC / "search").glob("*.py"))]


def module_constants(source: str) -> dict[str, object]:
    """Module-level UPPER_CASE names bound to a literal value."""
    found: dict[str, object] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    found[target.id] = ast.literal_eval(value)
                except ValueError:
                    continue
    return found


def is_weight(value: object) -> bool:
    """A float, or a tuple of numbers with a float in it: a weight, a cut-off, column weights."""
    if isinstance(value, float):
        return True
    return (
        isinstance(value, tuple)
        and any(isinstance(item, float) for item in value)
        and all(isinstance(item, int | float) for item in value)
    )


def test_every_ranking_name_is_defined_only_in_ranking_constants() -> None:
    names = {name for name in vars(ranking_constants) if name.isupper()}
    again = [
        f"{file.relative_to(SRC)}: {name}"
        for file in WIRING
        if file != HOME
        for name in module_constants(file.read_text(encoding="utf-8"))
        if name in names
    ]
    assert again == []


def test_no_weight_is_defined_where_ranking_is_computed() -> None:
    stray = [
        f"{file.relative_to(SRC)}: {name} = {value!r}"
        for file in WIRING
        if file != HOME
        for name, value in module_constants(file.read_text(encoding="utf-8")).items()
        if is_weight(value)
    ]
    assert stray == []


def test_the_finder_finds_weights() -> None:
    source = "X_WEIGHT = 0.5\nCOLUMNS: tuple = (1.0, 0.5)\nTOP = 30\nNAME = 'a'\nlow = 0.1\n"
    found = module_constants(source)
    assert found == {"X_WEIGHT": 0.5, "COLUMNS": (1.0, 0.5), "TOP": 30, "NAME": "a"}
    assert [name for name, value in found.items() if is_weight(value)] == ["X_WEIGHT", "COLUMNS"]


def test_the_facade_builds_no_vector_source() -> None:
    """Vector sources come from ``search/vector_sources.py``; ``api.py`` only asks for them."""
    assert "VectorSource" not in (SRC / "api.py").read_text(encoding="utf-8")


def test_the_sources_carry_the_measured_weights_and_cut_offs(tmp_path: Path) -> None:
    vault = Vault(make_vault(tmp_path / "vault", {"a.md": "# A\n\nsome text\n"}), db=tmp_path / "i")
    vault.index(fast=True)
    (static,) = vault.retriever().vector_sources()
    assert (static.weight, static.weak_below) == (
        ranking_constants.STATIC_VECTOR_WEIGHT,
        ranking_constants.STATIC_WEAK_BELOW,
    )
    vault.index()
    vault.close()
    (quality,) = vault.retriever().vector_sources()
    assert (quality.weight, quality.weak_below) == (
        ranking_constants.QUALITY_VECTOR_WEIGHT,
        ranking_constants.QUALITY_WEAK_BELOW,
    )
