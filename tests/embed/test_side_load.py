"""embed/side_load.py: a model part loaded in a thread, its value or error handed back."""

from __future__ import annotations

import threading

import pytest

from vaultctx.embed.side_load import SideLoad


def test_the_value_is_loaded_in_another_thread_and_handed_back() -> None:
    caller = threading.get_ident()
    loaded = SideLoad(threading.get_ident, "test-side-load")
    assert loaded.result() != caller
    assert loaded.result() == loaded.result()  # asked twice, loaded once


def test_an_error_while_loading_is_raised_in_the_callers_thread() -> None:
    def broken() -> int:
        raise ValueError("tokenizer.json is not JSON")

    loaded = SideLoad(broken, "test-side-load")
    with pytest.raises(ValueError, match="not JSON"):
        loaded.result()
    assert not any(t.name == "test-side-load" and t.is_alive() for t in threading.enumerate())
