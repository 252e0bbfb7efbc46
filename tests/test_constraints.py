"""The test install is reproducible: the README's test command and .ci/run install with the
constraints file, and that file pins every package pyproject.toml asks for, at a version the
requirement allows. A dependency added without refreshing the pins fails here, not on a fresh
clone months later."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -c constraints.txt -e '.[dev]' "
    "&& .venv/bin/pytest"
)


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    found = [Requirement(text) for text in project["dependencies"]]
    for extra in ("agent", "dev"):
        found += [Requirement(text) for text in extras[extra]]
    environment = default_environment()
    return [
        r
        for r in found
        if canonicalize_name(r.name) != "vaultctx"
        and (r.marker is None or r.marker.evaluate({**environment, "extra": ""}))
    ]


def test_the_readme_and_ci_install_with_the_constraints_file() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in readme
    assert TEST_COMMAND in ci


def test_every_requirement_is_pinned_within_its_range() -> None:
    pins = _pins()
    unpinned = [str(r) for r in _requirements() if canonicalize_name(r.name) not in pins]
    assert unpinned == [], "run: python3 scripts/refresh_constraints.py"
    outside = [
        f"{r} pinned at {pins[canonicalize_name(r.name)]}"
        for r in _requirements()
        if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    ]
    assert outside == []


def test_pins_are_exact_and_listed_once() -> None:
    names = [
        canonicalize_name(re.split(r"[=<>!~ ;]", line, maxsplit=1)[0])
        for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(names) == len(set(names))
