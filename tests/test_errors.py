"""One error type: every error a person or a model can act on is a ``VaultctxError`` carrying a
message and the fix, so the CLI, the MCP server and the hooks report each one the same way."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import vaultctx
from vaultctx.errors import VaultctxError
from vaultctx.search.filters import InvalidFilterError, parse_condition
from vaultctx.vault.paths import VaultAccessError

# Exceptions that never leave vaultctx: each is caught where it is raised and becomes a skipped
# file, an HTTP status or a fallback, never a message for the user.
INTERNAL = {
    "vaultctx.scrub.patterns._Unknown",  # control flow inside the scrubber
    "vaultctx.agent.mcp_config._DuplicateKey",  # control flow: becomes the ConfigError naming it
}
# Modules that need the MCP SDK or an optional engine; imported all the same when present.
SKIP_MODULES = {"vaultctx.__main__", "vaultctx.hooks.__main__", "vaultctx.engine.__main__"}


def exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(vaultctx.__path__, "vaultctx."):
        if module_info.name in SKIP_MODULES:
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_error_a_user_can_meet_is_a_vaultctx_error() -> None:
    classes = exception_classes()
    assert "vaultctx.config.ConfigError" in classes, "the walk found the modules"
    stray = sorted(
        name
        for name, cls in classes.items()
        if name not in INTERNAL and not issubclass(cls, VaultctxError)
    )
    assert stray == [], f"derive these from VaultctxError, or list them as internal: {stray}"
    assert set(classes) >= INTERNAL, "an internal error was renamed or removed"


def test_errors_keep_the_builtin_kinds_callers_catch() -> None:
    from vaultctx.atomic_write import UnsafeWriteError
    from vaultctx.config import ConfigError
    from vaultctx.index.run_lock import LockHeldError

    assert issubclass(ConfigError, ValueError)
    assert issubclass(LockHeldError, OSError)
    assert issubclass(UnsafeWriteError, OSError)


def test_an_invalid_filter_is_not_a_vault_access_error() -> None:
    with pytest.raises(InvalidFilterError) as raised:
        parse_condition("rating")
    assert not isinstance(raised.value, VaultAccessError)
    assert isinstance(raised.value, VaultctxError) and raised.value.suggestion


def test_one_line_joins_the_problem_and_its_fix() -> None:
    error = VaultctxError("no index at /tmp/x.db", "run `vaultctx index`")
    assert str(error) == "no index at /tmp/x.db"
    assert error.one_line() == "no index at /tmp/x.db; run `vaultctx index`"
