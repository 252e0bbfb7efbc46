"""Hook events in the exact shapes of Claude Code's hooks reference (code.claude.com/docs/en/hooks).

Common fields first (session, transcript, cwd, permission mode, event name), then each event's own:
``prompt`` for UserPromptSubmit; ``tool_name``, ``tool_input`` and ``tool_use_id`` for PreToolUse;
``tool_response`` for PostToolUse (Bash: stdout, stderr, interrupted, isImage); ``error`` and
``is_interrupt`` for PostToolUseFailure.
"""

from __future__ import annotations

import json
import uuid
from typing import Any


def common(session_id: str | None = None) -> dict[str, Any]:
    """The fields every event has; a new session each time unless one is given."""
    return {
        "session_id": session_id or str(uuid.uuid4()),
        "transcript_path": "/Users/me/.claude/projects/demo/00893aaf-19fa-41d2.jsonl",
        "cwd": "/Users/me/projects/billing",
        "permission_mode": "default",
    }


def user_prompt_submit(prompt: str, session_id: str | None = None) -> dict[str, Any]:
    return {**common(session_id), "hook_event_name": "UserPromptSubmit", "prompt": prompt}


def pre_tool_use(tool_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        **common(),
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC123",
    }


def write_input(file_path: str, content: str) -> dict[str, Any]:
    return {"file_path": file_path, "content": content}


def edit_input(file_path: str, old: str, new: str) -> dict[str, Any]:
    return {"file_path": file_path, "old_string": old, "new_string": new, "replace_all": False}


def bash_input(command: str) -> dict[str, Any]:
    return {"command": command, "description": "Run it", "timeout": 120000}


def post_tool_use_bash(command: str, stdout: str, stderr: str = "") -> dict[str, Any]:
    return {
        **common(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": bash_input(command),
        "tool_response": {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": False,
            "isImage": False,
        },
        "tool_use_id": "toolu_01ABC123",
    }


def post_tool_use_failure_bash(command: str, error: str) -> dict[str, Any]:
    return {
        **common(),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": bash_input(command),
        "tool_use_id": "toolu_01ABC123",
        "error": error,
        "is_interrupt": False,
    }


def as_stdin(event: dict[str, Any]) -> str:
    return json.dumps(event)
