"""The model a one-shot command (``clip``, ``tags``) asks, from the same flags and settings as
``vaultctx ask``.

"No model configured" is a state, not an error: ``clip`` works without one. So the settings are
read without the agent's packages, which are required only once a model is actually set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.cli.model_options import NO_MODEL_FLAGS

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.cli.model_options import ModelFlags
    from vaultctx.text_model import TextModel


def configured_text_model(
    vault: Vault, model_flags: ModelFlags = NO_MODEL_FLAGS
) -> tuple[TextModel | None, int]:
    """The configured model (None when no ``[agent] model`` is set, nor ``--model`` given) and
    the ``[agent] max_tokens`` its one call may use."""
    from vaultctx.agent.settings import load_agent_settings

    settings = load_agent_settings(vault.path, model_flags.overrides())
    if not settings.model:
        return None, settings.max_tokens
    from vaultctx.agent.backends import require_agent_extra

    require_agent_extra()
    from vaultctx.agent.complete import BackendTextModel

    return BackendTextModel(settings), settings.max_tokens


def triage_model(vault: Vault, model_flags: ModelFlags, *, offline: bool) -> TextModel | None:
    """The model that scores signals: the configured one (``[agent] model``, or ``--model``);
    None without one, or with ``--offline``: the offline heuristic."""
    return None if offline else configured_text_model(vault, model_flags)[0]


def required_text_model(
    vault: Vault, model_flags: ModelFlags, needed_for: str
) -> tuple[TextModel, int]:
    """``configured_text_model`` for a command that has nothing to do without a model
    (``needed_for``: what the model gives it, e.g. "the proposals come from a model")."""
    from vaultctx.errors import VaultctxError

    found, max_tokens = configured_text_model(vault, model_flags)
    if found is None:
        raise VaultctxError(
            f"{needed_for}, and none is configured",
            "set [agent] model in your own vaultctx.toml (the user config folder; docs/agent.md), "
            "or pass --model",
        )
    return found, max_tokens


def second_brain_model(
    vault: Vault,
    model_flags: ModelFlags,
    needed_for: str = "this Second Brain command asks a model",
) -> TextModel:
    """The model a Second Brain command asks, once Second Brain is known to be on (so a vault
    that has not turned it on is told so, not asked for a backend); no model configured is a
    refusal saying what the model is ``needed_for`` and how to set one."""
    from vaultctx.brain.settings import load_second_brain_settings

    load_second_brain_settings(vault.path).require_enabled()
    return required_text_model(vault, model_flags, needed_for)[0]


def second_brain_vault_and_model(
    vault: str | None,
    db: str | None,
    model_flags: ModelFlags,
    needed_for: str = "this Second Brain command asks a model",
) -> tuple[Vault, TextModel]:
    """The vault a Second Brain command works on and the model it asks (``second_brain_model``),
    from the command's ``--vault``, ``--db`` and model options."""
    from vaultctx.cli.common import open_vault

    handle = open_vault(vault, db)
    return handle, second_brain_model(handle, model_flags, needed_for)
