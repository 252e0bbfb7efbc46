"""One place to find an LLM backend by name; every module that treats backends differently asks
here instead of comparing names.

The built-in backends are registered below, each by the module that defines it (its ``BACKEND``),
imported on first use. A plug-in package adds one the way remote embedding engines are added
(embed/registry.py): an entry point in the ``vaultctx.llm_backends`` group whose object is an
``LLMBackend``, found when its name is first asked for; ``register_backend`` does the same from
code. Kept light: the entry points are read only for a name that is not built in, and the
backend modules import their client libraries only when they build a client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from vaultctx.agent.llm_backends.base import LLMBackend
from vaultctx.config import ConfigError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

BACKEND_GROUP = "vaultctx.llm_backends"
# Built-in backends by name, in the order messages list them: the module holding each BACKEND.
BUILT_IN = {
    "openai": "vaultctx.agent.llm_backends.openai",
    "ollama": "vaultctx.agent.llm_backends.ollama",
    "gemini": "vaultctx.agent.llm_backends.gemini",
    "bedrock": "vaultctx.agent.llm_backends.bedrock",
}
# The backend ``vaultctx ask`` talks to when none is set: a local one, so nothing leaves the
# machine until the user names a provider.
DEFAULT_BACKEND = "ollama"
# Backends ready by name: built-ins and plug-ins once loaded, and any registered from code.
BACKENDS: dict[str, LLMBackend] = {}


class UnknownBackendError(ConfigError):
    """No backend is registered under that name; the suggestion lists the ones that are."""


def register_backend(backend: LLMBackend) -> None:
    """Make ``backend`` available under its name (replacing one of that name)."""
    if not backend.name:
        raise ValueError(f"{type(backend).__name__} has no name")
    BACKENDS[backend.name] = backend


def builtin_names() -> list[str]:
    """Built-in and registered names, without reading the entry points (for help text)."""
    return list(dict.fromkeys([*BUILT_IN, *BACKENDS]))


def backend_names() -> list[str]:
    """Every backend that can be chosen: built-in, registered, then installed plug-ins."""
    return list(dict.fromkeys([*builtin_names(), *(point.name for point in _entry_points())]))


def get_backend(name: str, source: str = "") -> LLMBackend:
    """The backend called ``name``; ``source`` (where the name was read) starts the error."""
    if name in BACKENDS:
        return BACKENDS[name]
    backend = _load(name)
    if backend is None:
        where = f"{source}: " if source else ""
        raise UnknownBackendError(
            f"{where}unknown backend {name!r}",
            f"use one of: {', '.join(backend_names())} (or install the package of a backend "
            f"that registers itself under the {BACKEND_GROUP} entry points)",
        )
    register_backend(backend)
    return backend


def or_list(names: list[str]) -> str:
    """``a, b, c or d``, for help text and suggestions."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _load(name: str) -> LLMBackend | None:
    if name in BUILT_IN:
        found: object = importlib.import_module(BUILT_IN[name]).BACKEND
    else:
        points = [point for point in _entry_points() if point.name == name]
        if not points:
            return None
        try:
            found = points[0].load()
        except ImportError as exc:
            raise UnknownBackendError(
                f"the {name} backend needs a package that is not installed ({exc.name or exc})",
                f"install it, or choose another backend: {', '.join(builtin_names())}",
            ) from exc
    if not isinstance(found, LLMBackend) or found.name != name:
        raise UnknownBackendError(
            f"the {name} backend's entry point gives {type(found).__name__}, not a backend "
            f"named {name!r}",
            f"point its {BACKEND_GROUP} entry point at an LLMBackend whose name is {name!r}",
        )
    return found


def _entry_points() -> list[EntryPoint]:
    from importlib.metadata import entry_points

    return list(entry_points(group=BACKEND_GROUP))
