"""A model's change is confirmed by default: ``chat`` and the web UI ask before each one unless the
user's own settings turn ``confirm_changes`` off; a vault's settings cannot (docs/agent.md,
"Confirmation"). The questions themselves are tested on a real terminal
(tests/agent/test_chat_confirm_pty.py) and in a real browser (tests/ui/test_ui_chat.py)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from tests.clean_env import ENGINE_OFF
from tests.conftest import make_vault
from tests.ledger.conftest import isolate_data_dir
from vaultctx.agent.settings import AgentSettings, load_agent_settings
from vaultctx.api import Vault
from vaultctx.cli.agent_cmds import open_session
from vaultctx.ui.chat import ChatRooms

KEY = "sk-test-0123456789abcdefghijklmnop"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    for name in list(os.environ):
        if name.startswith("VAULTCTX_"):
            monkeypatch.delenv(name)
    for name, value in ENGINE_OFF.items():  # the loop above drops the suite's setting
        monkeypatch.setenv(name, value)
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setattr(platformdirs, "user_config_dir", lambda name: str(config / name))
    monkeypatch.setenv("OPENAI_TEST", KEY)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    return make_vault(tmp_path / "vault", {"a.md": "# A\n\nA note.\n"})


def _user_settings(text: str) -> None:
    file = Path(platformdirs.user_config_dir("vaultctx")) / "vaultctx.toml"
    file.parent.mkdir(parents=True, exist_ok=True)
    agent = (
        '[agent]\nbackend = "openai"\nmodel = "gpt-5.2"\n'
        'base_url = "http://127.0.0.1:9/v1"\napi_key_secret = "openai-test"\n'
    )
    file.write_text(agent + text, encoding="utf-8")


def _chat_confirms(vault: Path) -> bool:
    session, _ = open_session(str(vault), str(vault.parent / "index.db"))
    try:
        return session.confirm_policy.enabled
    finally:
        session.vault.close()


def _ui_confirms(vault: Path) -> bool:
    rooms = ChatRooms(Vault(vault, db=vault.parent / "index.db"))
    session, _ = rooms._open("k" * 20)
    try:
        return session.confirm_policy.enabled and session.confirm_policy.ask is not None
    finally:
        session.vault.close()


def test_the_setting_is_on_unless_set() -> None:
    assert AgentSettings().confirm_changes is True


def test_chat_and_the_web_ui_confirm_changes_by_default(vault: Path) -> None:
    _user_settings("")
    assert load_agent_settings(vault).confirm_changes is True
    assert _chat_confirms(vault)
    assert _ui_confirms(vault)


def test_the_users_own_settings_turn_it_off_and_a_vaults_cannot(vault: Path) -> None:
    (vault / "vaultctx.toml").write_text("[agent]\nconfirm_changes = false\n", encoding="utf-8")
    _user_settings("")
    assert _chat_confirms(vault) and _ui_confirms(vault)
    (vault / "vaultctx.toml").unlink()
    _user_settings("confirm_changes = false\n")
    assert not _chat_confirms(vault)
    assert not _ui_confirms(vault)
