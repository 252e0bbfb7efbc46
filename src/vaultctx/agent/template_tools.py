"""The agent's template tools: ``list_templates``, ``save_template``, ``apply_template``.

The work is ``vaultctx.organize.templates``, which ``vaultctx template`` runs too; this module
words its results and failures for the model (which tool to use next, what to tell the user).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.organize import templates

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext


async def list_templates(context: ToolContext, args: dict[str, Any]) -> str:
    folder = context.template_folder
    try:
        names = templates.list_templates(context.vault, folder)
    except templates.TemplateFolderExcludedError as exc:
        return _excluded_folder(exc, "list_templates")
    if names is None:
        return (
            f"The template folder {folder}/ does not exist yet; "
            "it is created when a template is saved with save_template."
        )
    if not names:
        return texts.NO_TEMPLATES
    return "\n".join(f"{number}. 📋 {name}" for number, name in enumerate(names, start=1))


async def save_template(context: ToolContext, args: dict[str, Any]) -> str:
    path = _template_path(context, args["name"], "save_template")
    if path.startswith(texts.ERROR_PREFIX):
        return path
    saved = templates.save_template(
        context.vault, path, args["content"], change=context.change("save_template", path)
    )
    return f"Template {'saved' if saved.created else 'updated'}: {path}"


async def apply_template(context: ToolContext, args: dict[str, Any]) -> str:
    name, output = args["template_name"], args["output_path"]
    path = _template_path(context, name, "apply_template")
    if path.startswith(texts.ERROR_PREFIX):
        return path
    variables = _variables(args.get("variables", {}))
    if isinstance(variables, str):
        return variables
    try:
        applied = templates.apply_template(
            context.vault, path, output, variables, change=context.change("apply_template", output)
        )
    except templates.TemplateNotFoundError:
        return texts.failed(
            "apply_template",
            f"template not found: {name} ({path})",
            "use list_templates to see the saved templates",
        )
    created = f"Note created: {applied.path}"
    if applied.leftovers:
        created += f"\n⚠️ Unsubstituted variables remain: {', '.join(applied.leftovers)}"
    return created


def _variables(raw: object) -> dict[str, str] | str:
    if not isinstance(raw, dict):
        return texts.failed(
            "apply_template", "`variables` must be an object of names to values", ""
        )
    variables: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, (dict, list)):
            return texts.failed(
                "apply_template", f"the value of `{key}` must be text or a number", ""
            )
        variables[str(key)] = "" if value is None else _as_text(value)
    return variables


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _excluded_folder(refused: templates.TemplateFolderExcludedError, tool: str) -> str:
    """The failure text when the template folder is one vaultctx does not serve (the agent
    reads and writes only notes it serves), naming the rule that excludes it."""
    return texts.failed(
        tool,
        f"the template folder {refused.folder}/ is excluded from the index by {refused.named}, "
        "and the assistant only reads and writes notes vaultctx serves",
        f"tell the user to {refused.fix} or to set template_folder under [agent] to another folder",
    )


def _template_path(context: ToolContext, name: str, tool: str) -> str:
    """``{folder}/{name}.md``, or the failure text for a name that is a path or a template
    folder the assistant may not use."""
    try:
        return templates.template_path(context.vault, context.template_folder, name)
    except templates.TemplateFolderExcludedError as exc:
        return _excluded_folder(exc, tool)
    except templates.TemplateNameError as exc:
        return texts.failed(tool, exc.message, exc.suggestion)
