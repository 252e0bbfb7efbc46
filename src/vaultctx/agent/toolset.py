"""The tools as pydantic-ai sees them, and the guard every tool call of a turn passes through.

``VaultToolset`` offers the built-in tools (agent/tool_list.py) with their JSON schemas as written;
pydantic-ai does not validate the arguments, because the common contract (agent/tool_contract.py)
must answer a wrong argument in its own words instead of a retry prompt.

``GuardedToolset`` wraps every toolset of a turn (ours, and the MCP servers' ones beside it):

- a tool that changes the vault, or any ``mcp_*`` tool, is confirmed first when
  ``confirm_changes`` is on (agent/confirm.py); a denial is returned to the model, not run;
- an exception becomes a failure text, so a broken tool never ends the chat;
- each result updates the failure tracker; once it says stop, the round's remaining calls are
  not run;
- each call is recorded for the turn (``Turn.tool_calls``: the transcript and ``--json``).

A call to a tool no toolset offers never reaches a toolset: the tool loop hands it to
``ToolGuard.refuse_unoffered``, which answers it, counts it and records it like any other call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry, ToolFailed
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
from pydantic_core import SchemaValidator, core_schema

from vaultctx.agent import tool_results as texts
from vaultctx.agent.brain_tools import not_offered
from vaultctx.agent.confirm import (
    MCP_PREFIX,
    ConfirmPolicy,
    ConfirmRequest,
    change_preview,
    shortened_arguments,
)
from vaultctx.agent.failure_tracker import FailureTracker
from vaultctx.agent.tool_contract import ToolContext, ToolSpec, exception_result, run_tool
from vaultctx.agent.tool_list import agent_tools
from vaultctx.agent.wording import localise

if TYPE_CHECKING:
    from vaultctx.api import Vault

# The arguments reach the tool as the model sent them; the contract checks them.
_ANY_ARGUMENTS = SchemaValidator(core_schema.any_schema())
# Retries pydantic-ai allows for arguments that are not JSON at all (every other problem is a
# tool result, counted by the failure tracker instead).
_MALFORMED_ARGUMENT_RETRIES = 2

ToolCallSink = Callable[[dict[str, Any]], None]


class VaultToolset(AbstractToolset[Any]):
    """The built-in tools over one turn's ``ToolContext``."""

    def __init__(self, context: ToolContext, specs: Sequence[ToolSpec] | None = None) -> None:
        self.context = context
        chosen = agent_tools(brain=False) if specs is None else specs
        self.specs = {spec.name: spec for spec in chosen}

    @property
    def id(self) -> str:
        return "vaultctx"

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=name,
                    description=spec.description,
                    parameters_json_schema=dict(spec.parameters),
                    sequential=True,
                ),
                max_retries=_MALFORMED_ARGUMENT_RETRIES,
                args_validator=_ANY_ARGUMENTS,
            )
            for name, spec in self.specs.items()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        return await run_tool(self.specs[name], tool_args, self.context)


@dataclass
class ToolGuard:
    """One turn's tool state: the failure tracker, the calls made and the denials."""

    vault: Vault
    policy: ConfirmPolicy
    template_folder: str = "Templates"
    tracker: FailureTracker = field(default_factory=FailureTracker)
    calls: list[dict[str, Any]] = field(default_factory=list)
    denied: int = 0
    on_call: ToolCallSink | None = None
    language: str = "en"  # of the results' first lines (agent/wording.py)

    async def run(self, name: str, args: dict[str, Any], call: Callable[[], Any]) -> Any:
        if self.tracker.stopped:
            return self._record(name, args, texts.NOT_RUN, count=False)
        if self.policy.applies_to(name) and not await self._allowed(name, args):
            self.denied += 1
            return self._record(name, args, texts.DENIED)
        try:
            result = await call()
        except (CallDeferred, ApprovalRequired):
            raise
        except (ModelRetry, ToolFailed) as exc:
            result = texts.failed(name, str(exc))
        except Exception as exc:  # a failing tool is the model's to handle, never the chat's end
            result = exception_result(name, exc)
        return self._record(name, args, result)

    def refuse_unoffered(self, name: str, args: dict[str, Any]) -> str:
        """The answer to a call of a tool this turn does not offer ("Unknown tool: X", or "Second
        Brain is turned off"): a failure like any other, so three of them stop the loop."""
        if self.tracker.stopped:
            return str(self._record(name, args, texts.NOT_RUN, count=False))
        return str(self._record(name, args, not_offered(name)))

    async def _allowed(self, name: str, args: dict[str, Any]) -> bool:
        if self.policy.ask is None:
            return False
        preview = change_preview(self.vault, name, args, template_folder=self.template_folder)
        decision = await self.policy.ask(ConfirmRequest(name, dict(args), preview))
        if decision == "always":
            self.policy.always = True
        return decision in ("yes", "always")

    def _record(self, name: str, args: dict[str, Any], result: Any, *, count: bool = True) -> Any:
        if isinstance(result, str) and (not name.startswith(MCP_PREFIX) or _ours(result)):
            result = localise(result, self.language)
        text = result if isinstance(result, str) else str(result)
        if count:
            self.tracker.update(name, text)
        call = {
            "name": name,
            "args": shortened_arguments(args),
            "result_summary": texts.summary(text),
        }
        self.calls.append(call)
        if self.on_call is not None:
            self.on_call(call)
        return result


def _ours(result: str) -> bool:
    """vaultctx's own text about an MCP tool's call (a failure, a denial), not the server's
    answer, which reaches the model in the server's words."""
    return texts.is_tool_error(result) or result in (texts.DENIED, texts.NOT_RUN)


@dataclass
class GuardedToolset(WrapperToolset[Any]):
    """Any toolset, with every call passed through the turn's ``ToolGuard``."""

    guard: ToolGuard = field(kw_only=True)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        args = tool_args if isinstance(tool_args, dict) else {"arguments": tool_args}
        return await self.guard.run(
            name, args, lambda: self.wrapped.call_tool(name, tool_args, ctx, tool)
        )
