"""Note templates (docs/organize.md#templates): the notes in the template folder
(``template_folder`` under [agent], "Templates" by default), whose ``{{placeholders}}`` applying
a template fills in.

One implementation for ``vaultctx template`` and the agent's template tools: each caller names
itself in the ``ChangeContext`` it passes, and words its own failures from the errors raised here.
Filling is a literal replace-all of ``{{key}}`` by its value, never a regular expression, so
``$1``, backslashes and braces in a value go in as written; placeholders left without a value are
reported. Every write goes through the ``Vault`` change methods: confined, atomic, re-indexed, in
the change ledger.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext
    from vaultctx.vault.scanner import IgnoreRule

PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}")
# A template is read whole: far more than any template holds.
TEMPLATE_TOKENS = 10_000_000


class TemplateFolderExcludedError(VaultctxError):
    """The template folder is one vaultctx does not serve: ``rule`` excludes it."""

    def __init__(self, folder: str, rule: IgnoreRule | None = None) -> None:
        from vaultctx.vault.scanner import rule_fix, rule_named

        # Kept for the assistant's own wording of the refusal (agent/template_tools.py).
        self.folder = folder
        self.named = rule_named(rule)
        self.fix = rule_fix(rule)
        super().__init__(
            f"the template folder {folder}/ is excluded from the index by {self.named}, and "
            "vaultctx reads and writes only notes it serves",
            f"{self.fix}, or set template_folder under [agent] in vaultctx.toml to another folder",
        )


class TemplateNameError(VaultctxError):
    """A template name that is a path (or empty) rather than a file name."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"a template name is a file name without a folder: {name!r}",
            "give a name such as `Meeting`",
        )
        self.name = name


class TemplateNotFoundError(VaultctxError):
    def __init__(self, name: str, path: str) -> None:
        super().__init__(
            f"template not found: {name} ({path})",
            "run `vaultctx template list` to see the saved templates",
        )
        self.name = name
        self.path = path


@dataclass(frozen=True)
class SavedTemplate:
    path: str
    created: bool  # False: an existing template was overwritten
    record_id: str | None
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AppliedTemplate:
    path: str  # the note created
    template: str  # the template's path
    leftovers: list[str]  # placeholders without a value, each once, in order of appearance
    record_id: str | None
    notices: list[str] = field(default_factory=list)


def template_path(vault: Vault, folder: str, name: str) -> str:
    """``{folder}/{name}.md``; a name that is a path, or a folder vaultctx does not serve, is an
    error (nothing outside the template folder is ever a template)."""
    check_template_folder(vault, folder)
    cleaned = name.strip()
    if cleaned.lower().endswith(".md"):
        cleaned = cleaned[:-3]
    if not cleaned or any(sep in unquote(cleaned) for sep in ("/", "\\")):
        raise TemplateNameError(name)
    return f"{folder}/{cleaned}.md"


def check_template_folder(vault: Vault, folder: str) -> None:
    """A ``TemplateFolderExcludedError`` when ``folder`` or a folder above it is excluded."""
    from vaultctx.vault.scanner import load_ignore_rules

    rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
    parts = folder.split("/")
    if any(rules.excludes_folder("/".join(parts[:depth])) for depth in range(1, len(parts) + 1)):
        raise TemplateFolderExcludedError(folder, rules.excluding_rule(folder, folder=True))


def list_templates(vault: Vault, folder: str) -> list[str] | None:
    """The template names (file names without ``.md``), case-insensitively sorted; None when the
    template folder does not exist yet."""
    from vaultctx.vault.folders import list_vault_folder
    from vaultctx.vault.scanner import load_ignore_rules

    check_template_folder(vault, folder)
    rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
    entries = list_vault_folder(vault.path, folder, rules)
    if entries is None:
        return None
    return sorted(
        (e.name[:-3] for e in entries if not e.is_folder and e.name.lower().endswith(".md")),
        key=lambda name: (name.casefold(), name),
    )


def read_template(vault: Vault, path: str) -> str | None:
    """The template's whole text; None when there is no note at exactly ``path``."""
    from vaultctx.notes import NoteNotFoundError

    try:
        note = vault.read_note(path, max_tokens=TEMPLATE_TOKENS)
    except NoteNotFoundError:
        return None
    # read_note finds a note by its name elsewhere too; a template is only one in the folder.
    return note.text if note.path == path else None


def save_template(vault: Vault, path: str, content: str, *, change: ChangeContext) -> SavedTemplate:
    """The template at ``path`` (from ``template_path``) created, or overwritten if it exists."""
    if read_template(vault, path) is not None:
        replaced = vault.replace_note(path, content, change=change)
        return SavedTemplate(path, False, replaced.record_id, replaced.notices)
    created = vault.create_note(path, content, change=change)
    return SavedTemplate(path, True, created.record_id, created.notices)


def apply_template(
    vault: Vault,
    path: str,
    output: str,
    variables: Mapping[str, str],
    *,
    change: ChangeContext,
) -> AppliedTemplate:
    """A new note at ``output`` (an existing file there is refused, nothing written): the template
    at ``path`` with every ``{{key}}`` replaced by its value."""
    template = read_template(vault, path)
    if template is None:
        name = path.rsplit("/", 1)[-1].removesuffix(".md")
        raise TemplateNotFoundError(name, path)
    text = fill(template, variables)
    created = vault.create_note(output, text, change=change)
    return AppliedTemplate(
        path=created.paths[0] if created.paths else output,
        template=path,
        leftovers=leftover_placeholders(text),
        record_id=created.record_id,
        notices=created.notices,
    )


def fill(template: str, variables: Mapping[str, str]) -> str:
    """Every ``{{key}}`` replaced by its value, literally, in one pass over the template: a value
    is never searched again, so a ``{{other}}`` inside it stays as written."""
    parts: list[str] = []
    done = 0  # template[:done] is in parts
    start = template.find("{{")
    while start != -1:
        end = template.find("}}", start + 2)
        if end == -1:
            break
        key = template[start + 2 : end]
        if key in variables:
            parts += [template[done:start], variables[key]]
            done = end + 2
            start = template.find("{{", done)
        else:
            start = template.find("{{", start + 1)
    parts.append(template[done:])
    return "".join(parts)


def leftover_placeholders(text: str) -> list[str]:
    """The ``{{...}}`` still in ``text``, each once, in order of appearance."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))
