"""When to stop a tool loop that keeps failing.

Two counters, updated after every tool result: failures in a row (any success resets it), and
each tool's failures since its own last success (only that tool's success resets it). The loop
stops when either reaches ``MAX_TOOL_FAILURES``, so a model alternating a failing edit with a
successful read still stops on the third failed edit. A result is a failure exactly when it
starts with the error prefix (agent/tool_results.py); a denial by the user is not one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vaultctx.agent.tool_results import is_tool_error

MAX_TOOL_FAILURES = 3
FAILURE_STOP_MESSAGE = (
    f"Tool execution failed {MAX_TOOL_FAILURES} times (in a row or on the same tool). "
    "Stopping the tool loop to prevent further errors."
)


@dataclass
class FailureTracker:
    limit: int = MAX_TOOL_FAILURES
    consecutive: int = 0
    by_tool: dict[str, int] = field(default_factory=dict)

    def update(self, tool: str, result: object) -> bool:
        """Count ``tool``'s ``result``; True once the loop must stop."""
        if is_tool_error(result):
            self.consecutive += 1
            self.by_tool[tool] = self.by_tool.get(tool, 0) + 1
        else:
            self.consecutive = 0
            self.by_tool[tool] = 0
        return self.stopped

    @property
    def stopped(self) -> bool:
        return self.consecutive >= self.limit or any(n >= self.limit for n in self.by_tool.values())
