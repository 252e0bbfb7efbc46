"""Templates: notes in the template folder (``template_folder`` under [agent], "Templates" by
default) whose ``{{placeholders}}`` ``apply_template`` fills in.

Filling is a literal replace-all of ``{{key}}`` by its value, never a regular expression, so
``$1``, backslashes and braces in a value go in as written; placeholders left without a value are
named in the result so the model can fill them with ``edit_note``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from vaultctx.agent import tool_results as texts

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext

PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}")
# A template is read whole: far more than any template holds.
TEMPLATE_TOKENS = 10_000_000


async def list_templates(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.vault.folders import list_vault_folder
    from vaultctx.vault.scanner import load_ignore_rules

    folder = context.template_folder
    excluded = _excluded_folder(context, "list_templates")
    if excluded is not None:
        return excluded
    rules, _ = load_ignore_rules(context.vault.path, context.vault.config.settings.ignore)
    entries = list_vault_folder(context.vault.path, folder, rules)
    if entries is None:
        return (
            f"The template folder {folder}/ does not exist yet; "
            "it is created when a template is saved with save_template."
        )
    names = sorted(
        (e.name[:-3] for e in entries if not e.is_folder and e.name.lower().endswith(".md")),
        key=lambda name: (name.casefold(), name),
    )
    if not names:
        return texts.NO_TEMPLATES
    return "\n".join(f"{number}. 📋 {name}" for number, name in enumerate(names, start=1))


async def save_template(context: ToolContext, args: dict[str, Any]) -> str:
    path = _template_path(context, args["name"], "save_template")
    if path.startswith(texts.ERROR_PREFIX):
        return path
    if _exists(context, path):
        context.vault.replace_note(
            path, args["content"], change=context.change("save_template", path)
        )
        return f"Template updated: {path}"
    context.vault.create_note(path, args["content"], change=context.change("save_template", path))
    return f"Template saved: {path}"


async def apply_template(context: ToolContext, args: dict[str, Any]) -> str:
    name, output = args["template_name"], args["output_path"]
    path = _template_path(context, name, "apply_template")
    if path.startswith(texts.ERROR_PREFIX):
        return path
    variables = _variables(args.get("variables", {}))
    if isinstance(variables, str):
        return variables
    template = _read_template(context, path)
    if template is None:
        return texts.failed(
            "apply_template",
            f"template not found: {name} ({path})",
            "use list_templates to see the saved templates",
        )
    text = fill(template, variables)
    change = context.vault.create_note(
        output, text, change=context.change("apply_template", output)
    )
    created = f"Note created: {change.paths[0] if change.paths else output}"
    left = list(dict.fromkeys(PLACEHOLDER.findall(text)))
    if left:
        created += f"\n⚠️ Unsubstituted variables remain: {', '.join(left)}"
    return created


def fill(template: str, variables: dict[str, str]) -> str:
    """Every ``{{key}}`` replaced by its value, literally."""
    for key, value in variables.items():
        template = template.replace("{{" + key + "}}", value)
    return template


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


def _excluded_folder(context: ToolContext, tool: str) -> str | None:
    """The failure text when the template folder is one vaultctx does not serve (the agent
    reads and writes only notes it serves), else None."""
    from vaultctx.vault.scanner import load_ignore_rules

    rules, _ = load_ignore_rules(context.vault.path, context.vault.config.settings.ignore)
    parts = context.template_folder.split("/")
    if not any(
        rules.excludes_folder("/".join(parts[:depth])) for depth in range(1, len(parts) + 1)
    ):
        return None
    return texts.failed(
        tool,
        f"the template folder {context.template_folder}/ is excluded from the index "
        "(.indexignore or a default), and the assistant only reads and writes notes vaultctx "
        "serves",
        "tell the user to remove it from .indexignore or to set template_folder under [agent] "
        "to another folder",
    )


def _template_path(context: ToolContext, name: str, tool: str) -> str:
    """``{folder}/{name}.md``, or the failure text for a name that is a path or a template
    folder the assistant may not use."""
    excluded = _excluded_folder(context, tool)
    if excluded is not None:
        return excluded
    cleaned = name.strip()
    if cleaned.lower().endswith(".md"):
        cleaned = cleaned[:-3]
    if not cleaned or any(sep in unquote(cleaned) for sep in ("/", "\\")):
        return texts.failed(
            tool,
            f"a template name is a file name without a folder: {name!r}",
            "give a name such as `Meeting`",
        )
    return f"{context.template_folder}/{cleaned}.md"


def _exists(context: ToolContext, path: str) -> bool:
    return _read_template(context, path) is not None


def _read_template(context: ToolContext, path: str) -> str | None:
    """The template's whole text; None when there is no note at exactly ``path``."""
    from vaultctx.notes import NoteNotFoundError

    try:
        note = context.vault.read_note(path, max_tokens=TEMPLATE_TOKENS)
    except NoteNotFoundError:
        return None
    # read_note finds a note by its name elsewhere too; a template is only one in the folder.
    return note.text if note.path == path else None
