"""The settings tab's edits to the user's own vaultctx.toml: one line changed, everything else
kept byte for byte; a file the edit cannot change cleanly is left alone with advice."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.ui.user_settings import SettingsEditError, edited_toml, set_user_setting

ORIGINAL = """# my settings
[agent]
backend = "openai"  # the one I pay for
model = "gpt-5.2"

[second_brain]
wiki_folder = "wiki"
"""


def test_a_key_is_replaced_on_its_own_line() -> None:
    edited = edited_toml(ORIGINAL, "agent", "model", "gpt-5.2-mini")
    assert edited == ORIGINAL.replace('model = "gpt-5.2"', 'model = "gpt-5.2-mini"')


def test_a_missing_key_goes_under_its_table_and_a_missing_table_at_the_end() -> None:
    edited = edited_toml(ORIGINAL, "second_brain", "enabled", True)
    assert "[second_brain]\nenabled = true\nwiki_folder" in edited
    edited = edited_toml("", "agent", "effort", "high")
    assert edited == '[agent]\neffort = "high"\n'
    edited = edited_toml("x = 1", "agent", "confirm_changes", False)
    assert edited == "x = 1\n\n[agent]\nconfirm_changes = false\n"


def test_an_empty_text_removes_the_key() -> None:
    assert 'model = "' not in edited_toml(ORIGINAL, "agent", "model", "")


def test_set_writes_only_that_value(tmp_path: Path) -> None:
    user_file = tmp_path / "vaultctx.toml"
    user_file.write_text(ORIGINAL)
    set_user_setting("effort", "high", user_file)
    set_user_setting("second_brain", True, user_file)
    text = user_file.read_text()
    assert 'effort = "high"' in text and "enabled = true" in text
    assert "# the one I pay for" in text and text.startswith("# my settings\n")


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("backend", "evilcorp", "unknown backend"),
        ("effort", "extreme", "unknown effort"),
        ("model", "a\nb = 1", "one line"),
        ("confirm_changes", "no", "must be bool"),
        ("api_key", "sk-123", "no setting"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_written(
    tmp_path: Path, name: str, value: object, problem: str
) -> None:
    user_file = tmp_path / "vaultctx.toml"
    user_file.write_text(ORIGINAL)
    with pytest.raises(SettingsEditError, match=problem):
        set_user_setting(name, value, user_file)
    assert user_file.read_text() == ORIGINAL


def test_a_value_spread_over_lines_is_left_for_the_user(tmp_path: Path) -> None:
    user_file = tmp_path / "vaultctx.toml"
    tricky = '[agent]\nmodel = """gpt\n-5"""\nbackend = "openai"\n'
    user_file.write_text(tricky)
    with pytest.raises(SettingsEditError, match="could not be changed on its own line"):
        set_user_setting("model", "gpt-5.2", user_file)
    assert user_file.read_text() == tricky
