"""The conversation store sits below ``api`` and the agent: it may use the configuration, the
error type, the scrubber and the safe file writer, and nothing else of vaultctx."""

from __future__ import annotations

from tests.test_architecture import import_graph

ALLOWED = ("vaultctx.config", "vaultctx.errors", "vaultctx.atomic_write", "vaultctx.scrub")
PACKAGE = "vaultctx.conversations"


def test_the_store_imports_only_what_lies_below_it() -> None:
    outside = {
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if module == PACKAGE or module.startswith(f"{PACKAGE}.")
        for target in targets
        if not target.startswith((PACKAGE, *ALLOWED))
    }
    assert outside == set()
