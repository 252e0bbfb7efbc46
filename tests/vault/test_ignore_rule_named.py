"""A refusal because of the ignore rules names the rule: its pattern and where it is written
(a line of `.indexignore`, the `ignore` setting of vaultctx.toml, or a default), so the user
knows what to change. Real vaults in tmp dirs, exact texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.tool_support import call
from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, isolate_data_dir
from vaultctx.api import Vault
from vaultctx.capture import CaptureError
from vaultctx.organize.templates import TemplateFolderExcludedError, list_templates
from vaultctx.vault.folders import list_vault_folder
from vaultctx.vault.paths import UnsafePathError, resolve_vault_file
from vaultctx.vault.scanner import IgnoreRule, load_ignore_rules
from vaultctx.vault.writes import NoteChangeError

SETTING = 'the pattern "private/" in the ignore setting of vaultctx.toml'


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    root = make_vault(
        tmp_path / "vault",
        {
            "vaultctx.toml": 'ignore = ["private/", "00-inbox/", "Templates/"]\n',
            ".indexignore": "# drafts stay out\n\ndrafts/\n",
            "private/Diary.md": "secret\n",
            "drafts/Idea.md": "half\n",
            "Plan.md": "# Plan\n",
        },
    )
    return Vault(root, db=tmp_path / "index.db")


def test_a_change_refused_by_the_ignore_setting_names_it(vault: Vault) -> None:
    with pytest.raises(NoteChangeError) as refused:
        vault.create_note("private/New.md", "x", change=AGENT)
    assert refused.value.message == (
        "path refused: private/New.md is excluded by the vault's ignore rules "
        f"({SETTING}), so tools never read, change, move or delete it; nothing was changed"
    )


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("private/Diary.md", SETTING),
        ("drafts/Idea.md", 'the pattern "drafts/" on line 3 of .indexignore'),
        ("Board.excalidraw.md", 'the default pattern "*.excalidraw.md"'),
    ],
)
def test_a_read_refused_by_a_rule_names_the_rule(vault: Vault, path: str, rule: str) -> None:
    rules = load_ignore_rules(vault.path, vault.config.settings.ignore)[0]
    with pytest.raises(UnsafePathError) as refused:
        resolve_vault_file(vault.path, path, rules)
    assert refused.value.reason == f"is excluded from the index by {rule}"


def test_browsing_an_ignored_folder_names_the_rule(vault: Vault) -> None:
    rules = load_ignore_rules(vault.path, vault.config.settings.ignore)[0]
    with pytest.raises(UnsafePathError) as refused:
        list_vault_folder(vault.path, "private", rules)
    assert refused.value.reason == f"is excluded from the index by {SETTING}"


def test_of_two_equal_lines_the_later_one_decides_and_is_named(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {".indexignore": "private/\n", "private/a.md": "a"})
    rules = load_ignore_rules(root, ("private/",))[0]
    assert rules.excluding_rule("private/a.md", folder=False) == IgnoreRule(
        "private/", "vaultctx.toml"
    )
    assert load_ignore_rules(root)[0].excluding_rule("private/a.md", folder=False) == IgnoreRule(
        "private/", ".indexignore", 1
    )
    assert rules.excluding_rule("notes/a.md", folder=False) is None


def test_capture_into_an_ignored_inbox_names_the_rule_and_its_fix(vault: Vault) -> None:
    with pytest.raises(CaptureError) as refused:
        vault.capture("Kept out of the index.")
    assert refused.value.message == (
        'the inbox 00-inbox/ is excluded by the ignore rules (the pattern "00-inbox/" in the '
        "ignore setting of vaultctx.toml), and capture writes only where vaultctx reads; "
        "nothing was written"
    )
    assert refused.value.suggestion == (
        "set inbox_folder in vaultctx.toml to a folder that is indexed, or remove "
        '"00-inbox/" from the ignore setting in vaultctx.toml'
    )


def test_an_ignored_template_folder_names_the_rule_to_the_user_and_the_model(
    vault: Vault,
) -> None:
    with pytest.raises(TemplateFolderExcludedError) as refused:
        list_templates(vault, "Templates")
    rule = 'the pattern "Templates/" in the ignore setting of vaultctx.toml'
    assert refused.value.message == (
        f"the template folder Templates/ is excluded from the index by {rule}, and vaultctx "
        "reads and writes only notes it serves"
    )
    assert refused.value.suggestion == (
        'remove "Templates/" from the ignore setting in vaultctx.toml, or set template_folder '
        "under [agent] in vaultctx.toml to another folder"
    )
    told = call(vault, "list_templates", template_folder="Templates")
    assert f"the template folder Templates/ is excluded from the index by {rule}," in told
    assert 'tell the user to remove "Templates/" from the ignore setting in vaultctx.toml' in told


def test_a_default_rule_is_lifted_in_indexignore_and_a_pattern_is_shown_escaped() -> None:
    default = IgnoreRule("node_modules/", "default")
    assert default.fix == 'add the line "!node_modules/" to .indexignore'
    # A pattern is the vault's text: a terminal escape in it is shown, not obeyed.
    hostile = str(IgnoreRule("a\x1b]52;c;x\x07/", ".indexignore", 2))
    assert "\x1b" not in hostile and "\x07" not in hostile
    assert hostile == 'the pattern "a\\u001b]52;c;x\\u0007/" on line 2 of .indexignore'
