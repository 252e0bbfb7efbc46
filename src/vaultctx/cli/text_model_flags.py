"""The model a one-shot command (``clip``, ``tags``) asks, from the same flags and settings as
``vaultctx ask``.

"No model configured" is a state, not an error: ``clip`` works without one. So the settings are
read without the agent's packages, which are required only once a model is actually set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel


def configured_text_model(vault: Vault, **flags: Any) -> tuple[TextModel | None, int]:
    """The configured model (None when no ``[agent] model`` is set, nor ``--model`` given) and
    the ``[agent] max_tokens`` its one call may use."""
    from vaultctx.agent.settings import load_agent_settings

    settings = load_agent_settings(vault.path, flags)
    if not settings.model:
        return None, settings.max_tokens
    from vaultctx.agent.backends import require_agent_extra

    require_agent_extra()
    from vaultctx.agent.complete import BackendTextModel

    return BackendTextModel(settings), settings.max_tokens


def second_brain_model(vault: Vault, **flags: Any) -> TextModel:
    """The model a Second Brain command asks, once Second Brain is known to be on (so a vault
    that has not turned it on is told so, not asked for a backend); a model must be set."""
    from vaultctx.agent.complete import BackendTextModel
    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.cli.agent_cmds import agent_settings

    load_second_brain_settings(vault.path).require_enabled()
    return BackendTextModel(agent_settings(vault, **flags))
