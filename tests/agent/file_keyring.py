"""A real ``keyring`` backend for tests, kept in a JSON file named by $VAULTCTX_TEST_KEYRING.

Selected with ``PYTHON_KEYRING_BACKEND=tests.agent.file_keyring.FileKeyring``, keyring's own
switch, so subprocesses (the CLI) reach it exactly as they would reach the OS keyring.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ["VAULTCTX_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path().write_text(json.dumps(data))
