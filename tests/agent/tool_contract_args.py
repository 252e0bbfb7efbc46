"""Arguments each built-in tool accepts against the example vault (with a template ``T`` in
``Templates/``), for tests that need every tool to succeed once."""

from __future__ import annotations

from typing import Any

GOOD_ARGUMENTS: dict[str, dict[str, Any]] = {
    "search_vault": {"query": "sqlite"},
    "read_note": {"path": "daily/2024-03-12.md"},
    "create_note": {"path": "new/Idea.md", "content": "# Idea"},
    "edit_note": {"path": "daily/2024-03-12.md", "content": "rewritten"},
    "append_to_note": {"path": "daily/2024-03-12.md", "content": "more"},
    "list_files": {"folder": "daily"},
    "get_active_note": {},
    "open_note": {"path": "daily/2024-03-12.md"},
    "list_templates": {},
    "save_template": {"name": "Weekly", "content": "# {{week}}"},
    "apply_template": {"template_name": "T", "output_path": "out/New.md", "variables": {"x": "1"}},
    "move_file": {"source_path": "daily/2024-03-13.md", "destination_path": "moved/Day.md"},
    "delete_file": {"path": "daily/2024-03-14.md"},
}
