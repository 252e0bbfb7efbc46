"""Which notes the review queue has shown, and when, and which the user opened in Obsidian
(brain/obsidian_opens.py): kept per vault in the user's state dir
(``platformdirs.user_state_dir("vaultctx")/brain/<vault>-review-queue.json``), never in a note.

The file is small and disposable: at most 2000 entries of each (the most recent kept), written
atomically; a file that cannot be read as this format is started afresh with a notice rather
than stopping the queue, since losing it only means a note may be shown again sooner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from vaultctx.atomic_write import write_atomically
from vaultctx.config import APP_NAME, default_db_path

MAX_ENTRIES = 2000
_VERSION = 1


@dataclass
class ReviewState:
    surfaced: dict[str, float] = field(default_factory=dict)  # path → when shown (epoch seconds)
    notices: list[str] = field(default_factory=list)
    opened: dict[str, float] = field(default_factory=dict)  # path → when opened in Obsidian
    open_files: list[str] = field(default_factory=list)  # Obsidian's list as last seen


def state_file(vault: Path) -> Path:
    name = default_db_path(vault).stem
    return Path(platformdirs.user_state_dir(APP_NAME)) / "brain" / f"{name}-review-queue.json"


def load_review_state(path: Path) -> ReviewState:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ReviewState()
    except (OSError, UnicodeDecodeError) as exc:
        return ReviewState(notices=[_reset(path, str(exc))])
    try:
        data = json.loads(raw)
        entries = data["surfaced"]
        if data.get("version") != _VERSION or not isinstance(entries, dict):
            raise ValueError("not this format")
        surfaced = {str(p): float(t) for p, t in entries.items()}
        opened = {str(p): float(t) for p, t in data.get("opened", {}).items()}
        open_files = [str(p) for p in data.get("open_files", [])][:MAX_ENTRIES]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return ReviewState(notices=[_reset(path, str(exc) or type(exc).__name__)])
    return ReviewState(surfaced, opened=opened, open_files=open_files)


def save_review_state(
    path: Path,
    surfaced: dict[str, float],
    opened: dict[str, float] | None = None,
    open_files: list[str] | None = None,
) -> None:
    """The newest ``MAX_ENTRIES`` entries of each, written atomically (private to the user)."""
    payload = {
        "version": _VERSION,
        "surfaced": _newest(surfaced),
        "opened": _newest(opened or {}),
        "open_files": (open_files or [])[:MAX_ENTRIES],
    }
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n", mode=0o600)


def _newest(entries: dict[str, float]) -> dict[str, float]:
    newest = sorted(entries.items(), key=lambda item: (-item[1], item[0]))[:MAX_ENTRIES]
    return dict(sorted(newest))


def _reset(path: Path, problem: str) -> str:
    return (
        f"the review queue's history {path} could not be read ({problem}); it starts afresh, "
        "so recently shown notes may be shown again"
    )
