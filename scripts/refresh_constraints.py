"""Refresh ``constraints.txt``: install the newest versions pyproject.toml allows, run the suite
against them, and pin what passed.

The README's test command and ``.ci/run`` install with ``-c constraints.txt``, so a fresh clone
gets the versions the suite last passed with, not whatever a registry released since (a minor
release of a dependency once broke a fresh clone's tests). This script is the one way to move
those pins forward::

    python3 scripts/refresh_constraints.py            # newest allowed versions, tests, then pin
    python3 scripts/refresh_constraints.py --no-tests  # pin without running the suite

It builds a scratch virtualenv (``--venv``, default a temp folder), installs ``-e '.[dev]'``
there without the constraints, runs ``pytest`` in it (any extra arguments after ``--`` go to
pytest), and only when the tests pass rewrites ``constraints.txt`` from ``pip freeze``. A pinned
release that needs a newer Python than 3.10 gets an environment marker, so the file never stops
an older supported Python from installing (it is left unconstrained there).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "constraints.txt"
HEADER = """\
# Tested versions of every package the test install ('.[dev]') brings in.
# The README's test command and .ci/run install with: pip install -c constraints.txt -e '.[dev]'
# Refresh (newest versions pyproject.toml allows, the suite run against them, then pinned):
#     python3 scripts/refresh_constraints.py
# Made with Python {python} on {platform}.
"""

# Asks the scratch venv's own interpreter for each installed distribution's name, version and
# Requires-Python, so markers reflect what that release declares, not what this script guesses.
# Run by the scratch venv's own interpreter (packaging is installed there with the dev extras):
# each installed distribution's name, version, and whether that release declares, through its
# Requires-Python, that it will not install on Python 3.10.
_LIST_DISTRIBUTIONS = """
import json, importlib.metadata as m
from packaging.specifiers import SpecifierSet
print(json.dumps([
    [d.metadata["Name"], d.version,
     "3.10.99" not in SpecifierSet(d.metadata.get("Requires-Python") or "")]
    for d in m.distributions() if d.metadata["Name"]
]))
"""

_SKIP = {"pip", "setuptools", "wheel", "vaultctx"}


def _run(args: list[str], **kwargs: object) -> None:
    print("$", " ".join(args), flush=True)
    subprocess.run(args, check=True, **kwargs)  # type: ignore[call-overload]


def pin_lines(distributions: list[tuple[str, str, bool]]) -> list[str]:
    """One ``name==version`` line per distribution; a release that needs Python 3.11 or later
    is pinned for those only, so an older supported Python still installs."""
    lines = []
    for name, version, needs_newer_python in sorted(distributions, key=lambda d: d[0].lower()):
        if name.lower() in _SKIP:
            continue
        line = f"{name}=={version}"
        if needs_newer_python:
            line += " ; python_version >= '3.11'"
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, help="scratch virtualenv (default: a temp folder)")
    parser.add_argument("--no-tests", action="store_true", help="pin without running pytest")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)

    venv = args.venv or Path(tempfile.mkdtemp(prefix="vaultctx-constraints-")) / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(python), "-m", "pip", "install", "--upgrade", "-e", ".[dev]"], cwd=REPO)
    if not args.no_tests:
        result = subprocess.run([str(python), "-m", "pytest", *args.pytest_args], cwd=REPO)
        if result.returncode != 0:
            print("The suite failed on the newest allowed versions; constraints.txt is unchanged.")
            return result.returncode
    listed = subprocess.run(
        [str(python), "-c", _LIST_DISTRIBUTIONS], check=True, capture_output=True, text=True
    )
    platform = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version(), platform.system())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    text = HEADER.format(python=platform[0], platform=platform[1])
    text += "\n".join(pin_lines(json.loads(listed.stdout))) + "\n"
    CONSTRAINTS.write_text(text, encoding="utf-8")
    print(f"wrote {CONSTRAINTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
