"""Review flows in tmp: a private data dir (index, ledger, saved lists), no keyring, and a model
that is the real client library talking to the OpenAI wire fake.

tests/review/conftest.py makes fixtures of ``isolate`` (autouse) and ``fake_server``; a test
module elsewhere defines the same two fixtures in two lines each, so that its in-process vaults
keep their ledger out of the user's real data folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY
from tests.agent.fakes import OpenAIFake
from tests.ledger.conftest import isolate_data_dir
from vaultctx.text_model import TextModel


def isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENAI_TEST", KEY)
    return isolate_data_dir(tmp_path / "data", monkeypatch)


def fake_server() -> Iterator[OpenAIFake]:
    with OpenAIFake() as server:
        yield server


def model_for(fake: OpenAIFake, tmp_path: Path) -> TextModel:
    """``BackendTextModel`` over the fake, as ``vaultctx ask --backend openai`` builds it."""
    from vaultctx.agent.complete import BackendTextModel
    from vaultctx.agent.settings import load_agent_settings

    settings = load_agent_settings(
        None,
        {
            "backend": "openai",
            "model": "gpt-fake",
            "base_url": f"{fake.base_url}/v1",
            "api_key_secret": "openai-test",
        },
        user_config=tmp_path / "no-user-config.toml",
    )
    return BackendTextModel(settings)


def cli_toml(fake: OpenAIFake) -> str:
    return (
        f'[agent]\nbackend = "openai"\nmodel = "gpt-fake"\nbase_url = "{fake.base_url}/v1"\n'
        'api_key_secret = "openai-test"\n'
    )
