"""``[second_brain] link_threshold`` and ``duplicate_threshold``: the measured defaults, a value
of the user's, and a clear error for anything that is not a similarity."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.brain.settings import (
    DEFAULT_DUPLICATE_THRESHOLD,
    DEFAULT_LINK_THRESHOLD,
    load_second_brain_settings,
)
from vaultctx.config import ConfigError


def settings_of(tmp_path: Path, toml: str) -> object:
    (tmp_path / "vaultctx.toml").write_text(toml, encoding="utf-8")
    return load_second_brain_settings(tmp_path, user_config_dir=tmp_path / "none")


def test_the_measured_defaults(tmp_path: Path) -> None:
    settings = load_second_brain_settings(tmp_path, user_config_dir=tmp_path / "none")
    assert (settings.link_threshold, settings.duplicate_threshold) == (0.89, 0.99)
    assert (DEFAULT_LINK_THRESHOLD, DEFAULT_DUPLICATE_THRESHOLD) == (0.89, 0.99)


def test_values_of_the_users(tmp_path: Path) -> None:
    settings = settings_of(
        tmp_path, "[second_brain]\nlink_threshold = 0.8\nduplicate_threshold = 1\n"
    )
    assert (settings.link_threshold, settings.duplicate_threshold) == (0.8, 1.0)  # type: ignore[attr-defined]


@pytest.mark.parametrize("value", ["0", "1.5", "-0.2", '"high"', "true"])
@pytest.mark.parametrize("key", ["link_threshold", "duplicate_threshold"])
def test_anything_else_is_an_error_naming_the_key(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(ConfigError) as error:
        settings_of(tmp_path, f"[second_brain]\n{key} = {value}\n")
    assert f"[second_brain] {key} must be a number above 0 and at most 1" in error.value.message


def test_an_unknown_key_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        settings_of(tmp_path, "[second_brain]\nlink_treshold = 0.9\n")
    assert "link_threshold" in error.value.suggestion
