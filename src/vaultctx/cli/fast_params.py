"""Option values converted without pydantic when the conversion is plain.

typer (0.26 and later) converts every given option through a pydantic ``TypeAdapter``: importing
pydantic and building the adapters costs ~0.14 s of CPU in every process, a third of a no-op
``vaultctx index`` (docs/benchmarks.md, "Wall-clock start-up"). Most values need no such
machinery: a string stays the string, ``--limit 5`` is ``int("5")``, ``--mode bm25`` is one of
its choices. This module gives typer a runtime parameter that converts those values itself and
hands anything else to typer's own (built on first need, so its error messages are typer's):
a value that is not plain ASCII digits, a number outside its bounds, a choice that does not
match, a path, a file, a date, a list.

It replaces one function of typer's private API (``typer.core.build_runtime_param``); when
typer's internals differ from what this expects, nothing is replaced and typer works as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

_MISSING = object()


def install() -> None:
    """Make typer build its pydantic conversion only for values that need it (idempotent)."""
    try:
        import typer.core as core
        from typer._coercion import RuntimeParam, TypeDescriptor
        from typer._param_types import coerce_cli_choice
        from typer._typing import is_literal_type, literal_values
    except ImportError:  # another typer: leave it as it is
        return
    found = getattr(core, "build_runtime_param", None)
    if found is None or getattr(found, "vaultctx_lazy", False):
        return
    original: Callable[[TypeDescriptor], RuntimeParam] = found

    def plain(descriptor: TypeDescriptor, value: Any, ctx: Any) -> Any:
        """The converted value, or ``_MISSING`` when typer's own conversion must decide."""
        info = descriptor.parameter_info
        annotation = descriptor.annotation
        if descriptor.file_annotation is not None or info.parser is not None:
            return _MISSING
        if annotation is str:
            return value if isinstance(value, str) else _MISSING
        if annotation is int:
            if isinstance(value, bool):
                return _MISSING
            if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
                number = int(value)
            elif isinstance(value, int):
                number = value
            else:
                return _MISSING
            low, high = info.min, info.max
            if (low is not None and number < low) or (high is not None and number > high):
                return _MISSING  # typer clamps or reports it
            return number
        choices: tuple[Any, ...] | None = None
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            choices = tuple(annotation)
        elif is_literal_type(annotation):
            choices = literal_values(annotation)
        if choices is not None and isinstance(value, str | Enum):
            try:
                return coerce_cli_choice(
                    value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx
                )
            except ValueError:
                return _MISSING  # typer words the error
        return _MISSING

    @dataclass(frozen=True)
    class PlainFirstRuntimeParam(RuntimeParam):
        descriptor: TypeDescriptor
        typer_own: list[Any] = field(default_factory=list)  # typer's param, built on first need

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            converted = plain(self.descriptor, value, ctx)
            if converted is not _MISSING:
                return converted
            if not self.typer_own:
                self.typer_own.append(original(self.descriptor))
            return self.typer_own[0]._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: TypeDescriptor) -> Any:
        if descriptor.file_annotation is not None:
            return original(descriptor)  # opens files: typer's own, and it needs no pydantic
        return PlainFirstRuntimeParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
        )

    build_runtime_param.vaultctx_lazy = True  # type: ignore[attr-defined]
    setattr(core, "build_runtime_param", build_runtime_param)  # noqa: B010 (private to typer)
