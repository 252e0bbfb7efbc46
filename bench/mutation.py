"""Mutation testing: mutmut 3 over one group of modules, in a scratch copy of this checkout.

Each group names the files to mutate and the tests that exercise them; mutmut first runs those
tests once to learn which test calls which function, then runs only those tests against each
mutant. A surviving mutant is a promise no test keeps: kill it with a test, or list it in
bench/mutation.md with the reason it is acceptable. Results are in bench/mutation.md.

mutmut lives in its own virtualenv, never in the project's:

    python3 -m venv mutvenv  # in this checkout, kept out of git
    mutvenv/bin/pip install -c constraints.txt -e '.[dev]' mutmut==3.8.1  # this checkout
    nice -n 15 mutvenv/bin/python bench/mutation.py paths --max-children 1 --timeout 1800

The copy (``--workdir``, default a folder in the temp dir) keeps mutmut's ``mutants/`` folder and
its ``[tool.mutmut]`` section out of the checkout; ``shared`` in it links to ``../shared`` so the
tests that read the shared corpora run instead of skipping. A re-run in the same workdir reuses
mutmut's results and tests only new or untested mutants (``--fresh`` starts over).

mutmut maps tests to functions once and afterwards only for tests it has not seen: a function
added to the source since (called by old tests) is left with no tests, and its mutants count as
``no_tests``. ``--remap`` discards the map before the run (the results stand), so every function
gets its tests again; re-run earlier survivors by name to try them against tests added since.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Group:
    """Files or folders to mutate and the tests that exercise them. Tests that reach the code only
    through a subprocess (the HTTP server, the CLI) are left out: mutmut cannot see their calls.

    ``per_test_setup``: code appended to the copy's ``tests/conftest.py``. The scrubber compiles
    its rules once per process; mutmut learns which tests call a function by running the tests
    once, in one process, so without a rebuild before every test it would credit the compiling
    code to the first test alone, and every mutant of it would run that one test against rules
    compiled before the mutant existed (and survive).

    ``timeout_multiplier``: mutmut stops a mutant after ``(tests' time + 1 s) * multiplier * 2``
    CPU seconds, the tests' time as measured while it maps tests (default multiplier 15). Mapped
    on the loaded machine (rules rebuilt before each test), the scrubber's tests took 224 s
    against 31 s on a quieter run, so a mutant that loops forever could run 6,750 CPU seconds.

    ``only``: mutant names (globs) the group runs when none are given on the command line, for a
    file of which one part is the promise: the conversation store's scrubbing is three methods
    of a store whose other code (search, resolving ids, migrations) belongs to no such group.
    Its figures count only those mutants (mutmut reports the rest as not checked).
    """

    mutate: list[str]
    tests: list[str]
    per_test_setup: str = ""
    timeout_multiplier: float | None = None
    only: tuple[str, ...] = ()


# Appended to the copy's tests/conftest.py by groups whose tests run the scrubber: see
# ``Group.per_test_setup``.
SCRUBBER_REBUILD = '''

_rules_built_for: set[str] = set()


@pytest.fixture(autouse=True)
def _rebuild_scrubber_caches() -> None:
    """Added by bench/mutation.py: the rules are compiled with the mutant in force, before every
    test while mutmut learns which tests call what, then once per mutant."""
    import os

    from vaultctx.scrub import fingerprint, patterns, scrubber

    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    if mutant == "stats" or mutant not in _rules_built_for:
        _rules_built_for.add(mutant)
        scrubber._compiled = None
        for cached in (patterns._regex, fingerprint.scrubber_fingerprint):
            getattr(cached, "cache_clear", lambda: None)()
'''

# Appended to the copy's tests/conftest.py by the ledger's groups. The undo state machine tries
# 500 sequences (80 s on the loaded machine): every surviving mutant pays that in full, which made
# `writes` and `ledger` stop after a fraction of their mutants. Under mutmut it tries 50: a mutant
# only a rarer sequence would find then survives, so the figures can only look worse, never
# better. The test itself, run by the suite, keeps its 500.
STATE_MACHINE_CAP = """

STATE_MACHINE_EXAMPLES = 50


@pytest.fixture(autouse=True)
def _fewer_state_machine_examples(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    \"\"\"Added by bench/mutation.py: see ``STATE_MACHINE_CAP`` there.\"\"\"
    module = request.module
    if module is None or not module.__name__.endswith("test_undo_state_machine"):
        return
    from typing import Any

    from hypothesis import settings

    def capped(**chosen: Any) -> settings:
        return settings(**{**chosen, "max_examples": STATE_MACHINE_EXAMPLES})

    monkeypatch.setattr(module, "settings", capped)
"""

GROUPS: dict[str, Group] = {
    "paths": Group(
        ["src/vaultctx/vault/paths.py"],
        [
            "tests/vault/test_paths.py",
            "tests/vault/test_paths_sibling_prefix.py",
            "tests/vault/test_paths_refusals.py",
            "tests/vault/test_paths_leaves_vault.py",
            "tests/vault/test_paths_attachments.py",
            "tests/vault/test_ignore_rule_named.py",
            "tests/security/test_obsidian_plugin_inputs.py",
            "tests/security/test_symlinks.py",
            "tests/security/test_read_note_paths.py",
            "tests/mcp/test_path_traversal.py",
        ],
    ),
    "http_policy": Group(
        ["src/vaultctx/loopback/policy.py"],
        ["tests/mcp/test_http_host_policy.py", "tests/security/test_http_token.py"],
    ),
    "quality_pass": Group(
        ["src/vaultctx/index/quality_pass.py"],
        [
            "tests/index/test_quality_pass.py",
            "tests/index/test_quality_pass_records.py",
            "tests/index/test_model_hash_checks.py",
            "tests/index/test_korean_pass_two.py",
            "tests/index/test_multilingual_pass_vectors.py",
        ],
    ),
    "scrub": Group(
        ["src/vaultctx/scrub/"],
        ["tests/scrub", "tests/security/test_secrets_at_rest.py"],
        per_test_setup=SCRUBBER_REBUILD,
        timeout_multiplier=0.5,
    ),
    "search": Group(["src/vaultctx/search/"], ["tests/search"]),
    "batch": Group(["src/vaultctx/ledger/batch.py"], ["tests/ledger/test_batch.py"]),
    "ledger": Group(
        ["src/vaultctx/ledger/"],
        [
            "tests/ledger/test_batch.py",
            "tests/ledger/test_batch_folders_and_moves.py",
            "tests/ledger/test_changes.py",
            "tests/ledger/test_codec.py",
            "tests/ledger/test_write_ahead.py",
            "tests/ledger/test_store_writing.py",
            "tests/ledger/test_snapshot.py",
            "tests/ledger/test_undo_restoring.py",
            "tests/ledger/test_undo_state_machine.py",
            "tests/ledger/test_record_reading.py",
            "tests/ledger/test_drop_and_undo_messages.py",
            "tests/ledger/test_failed_steps.py",
            "tests/ledger/test_move_notes_refusals.py",
            "tests/ledger/test_store_guards.py",
            "tests/security/test_vault_writes.py",
            "tests/security/test_batch_confinement.py",
            "tests/security/test_ledger_names.py",
            "tests/security/test_ledger_retention.py",
            "tests/security/test_ledger_write_ahead.py",
        ],
        per_test_setup=STATE_MACHINE_CAP,
    ),
    "writes": Group(
        ["src/vaultctx/vault/writes.py"],
        [
            "tests/security/test_vault_writes.py",
            "tests/security/test_batch_confinement.py",
            "tests/security/test_guard_edges.py",
            "tests/security/test_symlinks.py",
            "tests/ledger/test_changes.py",
            "tests/ledger/test_undo_state_machine.py",
            "tests/ledger/test_failed_steps.py",
            "tests/vault/test_writes.py",
            "tests/vault/test_writes_durability.py",
        ],
        per_test_setup=STATE_MACHINE_CAP,
    ),
    # The staged, fsynced write and rename every saved file goes through (vault changes, ledger
    # records and blobs, settings): its order is what item 11's "fsynced before the rename" asks.
    "durable": Group(
        ["src/vaultctx/vault/durable.py"],
        [
            "tests/vault/test_durable.py",
            "tests/vault/test_writes_durability.py",
            "tests/ledger/test_store_writing.py",
        ],
    ),
    # The UI's server tests run it in a subprocess, out of mutmut's sight: only the tests that
    # call the guard in this process count.
    "ui_guard": Group(
        ["src/vaultctx/ui/guard.py", "src/vaultctx/ui/sessions.py"],
        [
            "tests/security/test_ui_server.py",
            "tests/security/test_ui_csrf.py",
            "tests/security/test_ui_guard_in_process.py",
        ],
    ),
    "fetch": Group(
        ["src/vaultctx/organize/fetch.py"],
        [
            "tests/security/test_fetch.py",
            "tests/security/test_fetch_edges.py",
            "tests/security/test_fetch_guard_edges.py",
            "tests/security/test_fetch_stalled_connect_and_write.py",
            "tests/security/test_fetch_untyped_response.py",
        ],
    ),
    "markers": Group(
        ["src/vaultctx/brain/markers.py"],
        [
            "tests/brain/test_markers_property.py",
            "tests/brain/test_markers_messages.py",
            "tests/brain/test_markers_layout.py",
            "tests/brain/test_foundations.py",
            "tests/brain/test_wiki.py",
            "tests/brain/test_synthesis.py",
            "tests/security/test_guard_edges.py",
        ],
        # A mutant that stops the search for markers from moving on loops forever; at the
        # default multiplier mutmut would give it 10 CPU minutes (about 45 at load 12).
        timeout_multiplier=2.0,
    ),
    "conversation_scrub": Group(
        ["src/vaultctx/conversations/scrubbing.py", "src/vaultctx/conversations/store.py"],
        [
            "tests/conversations/test_scrubbing.py",
            "tests/conversations/test_store.py",
            "tests/security/test_secrets_at_rest.py",
        ],
        only=(
            "vaultctx.conversations.scrubbing.*",
            "vaultctx.conversations.store.*ConversationStore*new__mutmut_*",
            "vaultctx.conversations.store.*ConversationStore*append__mutmut_*",
            "vaultctx.conversations.store.*ConversationStore*rename__mutmut_*",
        ),
    ),
}


def only_mutate(targets: list[str]) -> list[str]:
    return [f"{t}*" if t.endswith("/") else t for t in targets]


def prepare(workdir: Path, name: str, fresh: bool) -> None:
    group = GROUPS[name]
    if fresh and workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".hypothesis")
    for folder in ("src", "tests", "examples"):
        shutil.copytree(REPO / folder, workdir / folder, ignore=ignore, dirs_exist_ok=True)
    shared = workdir / "shared"
    if not shared.exists() and (REPO.parent / "shared").exists():
        shared.symlink_to((REPO.parent / "shared").resolve(), target_is_directory=True)
    settings: dict[str, object] = {
        "source_paths": ["src"],
        "only_mutate": only_mutate(group.mutate),
        "also_copy": ["examples"],
        "pytest_add_cli_args_test_selection": group.tests,
        # one process: mutmut maps calls
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-n0", "-m", "not slow"],
    }
    if group.timeout_multiplier is not None:
        settings["timeout_multiplier"] = group.timeout_multiplier
    if group.per_test_setup:
        conftest = workdir / "tests" / "conftest.py"
        conftest.write_text(
            conftest.read_text(encoding="utf-8") + group.per_test_setup, encoding="utf-8"
        )
    section = "\n[tool.mutmut]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items())
    (workdir / "pyproject.toml").write_text(
        (REPO / "pyproject.toml").read_text(encoding="utf-8") + section, encoding="utf-8"
    )


def mutmut(workdir: Path, *args: str, timeout: float | None = None) -> int:
    command = [str(Path(sys.executable).with_name("mutmut")), *args]
    try:
        return subprocess.run(command, cwd=workdir, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        print(f"stopped after {timeout:.0f} s: the figures below cover the mutants run so far")
        return -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds for mutmut run")
    parser.add_argument("--fresh", action="store_true", help="discard earlier results")
    parser.add_argument(
        "--remap", action="store_true", help="map tests to functions anew, keeping the results"
    )
    parser.add_argument("mutants", nargs="*", help="re-run only these mutants (names or globs)")
    args = parser.parse_intermixed_args()
    workdir = args.workdir or Path(tempfile.gettempdir()) / "vaultctx-mutation" / args.group
    prepare(workdir, args.group, args.fresh)
    if args.remap:
        (workdir / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    started = time.monotonic()
    mutants = args.mutants or list(GROUPS[args.group].only)
    mutmut(workdir, "run", "--max-children", str(args.max_children), *mutants, timeout=args.timeout)
    print(f"mutmut run: {time.monotonic() - started:.0f} s")
    mutmut(workdir, "export-cicd-stats")
    stats_file = workdir / "mutants" / "mutmut-cicd-stats.json"
    if stats_file.exists():
        stats = json.loads(stats_file.read_text(encoding="utf-8"))
        print(json.dumps(stats))
        # A mutant no selected test even calls is a survivor too: nothing keeps that promise.
        alive = stats["survived"] + stats["no_tests"]
        tried = alive + stats["killed"] + stats["timeout"] + stats["suspicious"] + stats["segfault"]
        if tried:
            print(f"surviving (incl. no tests) {alive} of {tried}: {alive / tried:.1%}")
    mutmut(workdir, "results")


if __name__ == "__main__":
    main()
