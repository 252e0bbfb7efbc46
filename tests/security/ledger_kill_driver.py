"""A real batch for test_ledger_write_ahead.py to kill: ``python ledger_kill_driver.py VAULT DB
STEPS``. Each step (a move, or two moves as P.A.R.A makes them, whose links are rewritten in
other notes; a rewrite of a note rewritten before; a note created in a new folder) is announced
on stdout before it starts, so the test can kill the process at a chosen point."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext


def appending(line: str) -> Callable[[str], str]:
    return lambda text: text + line


def main() -> None:
    vault_path, db, steps = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    vault = Vault(vault_path, db=db)
    with vault.change_batch(ChangeContext("kill test", source="cli"), "para") as batch:
        for step in range(steps):
            print(f"step {step}", flush=True)
            kind = step % 3
            if kind == 0 and step % 2:  # P.A.R.A's way: several moves, links planned once
                moves = {f"notes/n{step:03d}.md": f"archive/b/n{step:03d}.md"}
                moves[f"notes/n{step - 2:03d}.md"] = f"archive/b/n{step - 2:03d}.md"
                batch.move_notes(moves)
            elif kind == 0:
                batch.move(f"notes/n{step:03d}.md", f"archive/a{step % 4}/n{step:03d}.md")
            elif kind == 1:
                batch.rewrite("Hub.md", appending(f"- step {step}\n"))
            else:
                batch.create(f"new/f{step % 5}/c{step:03d}.md", f"# created at step {step}\n")
    print("done", flush=True)


if __name__ == "__main__":
    main()
