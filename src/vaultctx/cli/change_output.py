"""How a command that made one change reports it: ``--json`` as the result's dictionary, else
its message and then the change's notices (e.g. the index could not be updated)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.ledger.context import Change


class ChangeResult(Protocol):
    @property
    def message(self) -> str: ...

    @property
    def change(self) -> Change: ...

    def as_dict(self) -> dict[str, object]: ...


def print_change_result(result: ChangeResult, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    print(printable(result.message))
    for notice in result.change.notices:
        print(printable(f"note: {notice}"))
