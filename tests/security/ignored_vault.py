"""A vault whose ignore rules hide private notes, each holding a canary no tool may ever show.

``journal/private/`` and ``diary/`` are ignored folders, ``*.secret.md`` ignored files; the parent
``journal/`` holds a note that is not ignored, so moving or deleting it would carry the private
folder along. ``notes/Later.md`` is indexed first and ignored afterwards (a rule the user added
since the last index run), so the index holds its text while the rules exclude it.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_vault
from vaultctx.api import Vault

DREAM = "CANARY-DREAM-71c4e0"
DIARY = "CANARY-DIARY-5e1f9a"
SECRET = "CANARY-SECRET-c08d2b"
LATER = "CANARY-LATER-9b3e47"
CANARIES = (DREAM, DIARY, SECRET, LATER)

IGNORE_RULES = "journal/private/\ndiary/\n*.secret.md\n"
VAULT_SETTINGS = "# the vault's own settings\n"
NOTES = {
    "journal/today.md": "# Today\n\nA walk to the lighthouse. See [[Plan]].\n",
    "journal/private/Dream.md": f"# Dream\n\nThe lighthouse dream again. {DREAM}\n",
    "diary/Entry.md": f"# Entry\n\nDear diary, the lighthouse keeper. {DIARY}\n",
    "notes/Plan.md": "# Plan\n\nShip the lighthouse guide. See [[Later]].\n",
    "notes/plan.secret.md": f"# Secret plan\n\nThe lighthouse code. {SECRET}\n",
    "notes/Later.md": f"# Later\n\nLighthouse ideas for later, see [[Plan]]. {LATER}\n",
    "Templates/Daily.md": "# {{title}}\n\nLighthouse log.\n",
}
IGNORED_FILES = (
    "journal/private/Dream.md",
    "diary/Entry.md",
    "notes/plan.secret.md",
    "notes/Later.md",
)


def ignored_vault(root: Path, db: Path) -> Vault:
    """The vault at ``root``, indexed into ``db``, with ``notes/Later.md`` ignored after."""
    make_vault(root, NOTES)
    (root / ".indexignore").write_text(IGNORE_RULES, encoding="utf-8")
    (root / "vaultctx.toml").write_text(VAULT_SETTINGS, encoding="utf-8")
    vault = Vault(root, db=db)
    vault.index(fast=True)
    with (root / ".indexignore").open("a", encoding="utf-8") as rules:
        rules.write("notes/Later.md\n")
    return vault


def leaked(text: str) -> list[str]:
    return [canary for canary in CANARIES if canary in text]
