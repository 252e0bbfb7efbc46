"""Options that travel together (the four that choose a model, the five that filter a search),
declared once as a group and taken by a command as one parameter.

typer has no option groups: an option is a parameter of the command's function. So a group is a
frozen dataclass whose fields are typer options (``backend: BackendOption = None``), a command
takes one parameter annotated with it, and ``takes_option_groups`` shows typer the group's
options in that parameter's place: through the function's ``__signature__``, which
``inspect.signature`` (what typer reads) honours, no typer internals involved. ``--help`` lists
them where the parameter stands, and the command receives one value.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")


@functools.cache
def group_options(group: type) -> list[inspect.Parameter]:
    """The group's options in their order, as the parameters typer reads: each annotated with
    its ``Annotated`` typer option, with the field's default."""
    hints = typing.get_type_hints(group, include_extras=True)
    return [
        inspect.Parameter(
            field.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=field.default,
            annotation=hints[field.name],
        )
        for field in dataclasses.fields(group)
    ]


def takes_option_groups(command: Callable[..., Result]) -> Callable[..., Result]:
    """``command`` as typer should see it: each parameter annotated with a group (a dataclass)
    shown as the group's options, which arrive back as one value of the group."""
    declared = inspect.signature(command, eval_str=True)
    groups: dict[str, type] = {}
    shown: list[inspect.Parameter] = []
    for parameter in declared.parameters.values():
        group = parameter.annotation
        if not (isinstance(group, type) and dataclasses.is_dataclass(group)):
            shown.append(parameter)
            continue
        groups[parameter.name] = group
        shown.extend(option.replace(kind=parameter.kind) for option in group_options(group))
    if not groups:
        raise TypeError(f"{command.__name__} takes no option group")
    # Raises ValueError when two groups, or a group and the command, share a parameter name.
    signature = declared.replace(parameters=shown)

    @functools.wraps(command)
    def with_groups(*args: Any, **kwargs: Any) -> Result:
        for name, group in groups.items():
            given = {o.name: kwargs.pop(o.name, o.default) for o in group_options(group)}
            kwargs[name] = group(**given)
        return command(*args, **kwargs)

    with_groups.__signature__ = signature  # type: ignore[attr-defined]
    with_groups.__annotations__ = {
        **{p.name: p.annotation for p in shown},
        "return": signature.return_annotation,
    }
    return with_groups
