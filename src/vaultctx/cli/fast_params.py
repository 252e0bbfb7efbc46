"""Option values converted without pydantic when the conversion is plain.

typer (0.26 and later) converts every given option through a pydantic ``TypeAdapter``: importing
pydantic and building the adapters costs ~0.14 s of CPU in every process, a third of a no-op
``vaultctx index`` (docs/benchmarks.md, "Wall-clock start-up"). Most values need no such
machinery: a string stays the string, ``--limit 5`` is ``int("5")``. This module gives typer a
runtime parameter that converts those two itself and hands anything else to typer's own (built
on first need, so its error messages are typer's): a value that is not plain ASCII digits, a
number outside its bounds, a float, a path, a file, a date, a list.

typer offers no public way to do this: its only conversion hooks (``parser=``, ``callback=``)
run through the same adapter or after it, and its options cannot be given another class. So this
replaces one function of typer's private API (``typer.core.build_runtime_param``), and imports
nothing else of it but the base class of what that function returns; when typer's internals
differ from what this expects, nothing is replaced and typer works as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_MISSING = object()


def plain_value(annotation: Any, low: float | None, high: float | None, value: Any) -> Any:
    """``value`` converted to ``annotation`` when that is plain (a string; ASCII digits within
    ``low``..``high``), else ``_MISSING``: typer's own conversion decides (or words the error)."""
    if annotation is str:
        return value if isinstance(value, str) else _MISSING
    if annotation is not int or isinstance(value, bool):
        return _MISSING
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        number = int(value)
    elif isinstance(value, int):
        number = value
    else:
        return _MISSING
    if (low is not None and number < low) or (high is not None and number > high):
        return _MISSING  # typer clamps or reports it
    return number


def install() -> None:
    """Make typer build its pydantic conversion only for values that need it (idempotent)."""
    try:
        import typer.core as core
        from typer._coercion import RuntimeParam
    except ImportError:  # another typer: leave it as it is
        return
    found = getattr(core, "build_runtime_param", None)
    if found is None or getattr(found, "vaultctx_lazy", False):
        return
    typers_own: Callable[[Any], Any] = found

    @dataclass(frozen=True)
    class PlainFirstRuntimeParam(RuntimeParam):
        descriptor: Any  # typer's TypeDescriptor
        built: list[Any] = field(default_factory=list)  # typer's own param, on first need

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            if info.parser is None:
                converted = plain_value(self.annotation, info.min, info.max, value)
                if converted is not _MISSING:
                    return converted
            if not self.built:
                self.built.append(typers_own(self.descriptor))
            return self.built[0]._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None:
            return typers_own(descriptor)  # opens files: typer's own, and it needs no pydantic
        return PlainFirstRuntimeParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
        )

    build_runtime_param.vaultctx_lazy = True  # type: ignore[attr-defined]
    setattr(core, "build_runtime_param", build_runtime_param)  # noqa: B010 (private to typer)
