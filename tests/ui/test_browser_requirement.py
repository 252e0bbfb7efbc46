"""The browser tests skip without chromium on a developer's machine, and never in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui import browser


def test_without_chromium_the_browser_tests_skip_locally(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        browser.require_browser()


@pytest.mark.parametrize("value", ["1", "true"])
def test_without_chromium_the_browser_tests_fail_in_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser tests"):
        browser.require_browser()
