"""Debian's chromium driven by Playwright, for the UI's end-to-end and XSS tests.

Playwright's own browser download cannot be reached here, so the system binary is launched with
flags that keep it off the network (background services would otherwise try to call home) and
a fresh profile per test. Without chromium the tests skip with the reason, except in CI (``CI``
set, as .ci/run does), where a missing browser is a failure: CI installs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
SCREENSHOTS = Path(os.environ.get("VAULTCTX_UI_SCREENSHOTS", "/tmp/vaultctx-ui-screenshots"))


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def require_browser() -> None:
    """Skip without chromium or Playwright, with the reason; fail instead in CI."""
    missing = None
    if not os.access(CHROMIUM, os.X_OK):
        missing = f"Debian's chromium is not installed at {CHROMIUM} (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "Playwright for Python is not installed (pip install -e '.[dev]')"
    if missing is None:
        return
    if in_ci():
        pytest.fail(f"{missing}; CI must run the browser tests (.ci/run installs chromium)")
    pytest.skip(missing)


@contextmanager
def browser(profile: Path, *, locale: str = "en-US") -> Iterator[BrowserContext]:
    """A headless chromium with a new profile at ``profile``, 1280×800."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport=VIEWPORT,  # type: ignore[arg-type]
            locale=locale,
        )
        context.set_default_timeout(60_000)  # a loaded, shared machine
        try:
            yield context
        finally:
            context.close()


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"ui-{name}.png"
