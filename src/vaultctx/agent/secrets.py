"""API keys: kept in the OS keyring under a name; settings hold only that name.

macOS Keychain, Windows Credential Locker and the Secret Service (GNOME Keyring, KWallet) are
reached through ``keyring``. Where no keyring exists (a headless server, CI) the key is read from an
environment variable instead: the secret's name itself, or the name in upper case with every other
character turned into ``_`` (``openai-work`` → ``OPENAI_WORK``), as most shells cannot export a
name with a dash. A key is never printed, logged or stored anywhere else by vaultctx.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from vaultctx.errors import VaultctxError
from vaultctx.os_keyring import delete_password, read_password, write_password
from vaultctx.os_keyring import keyring_backend as _keyring_backend

SERVICE = "vaultctx"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class SecretError(VaultctxError):
    """A secret cannot be stored or found; the suggestion says where to put it."""


def check_secret_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise SecretError(
            f"{name!r} is not a usable secret name",
            "use letters, digits, '.', '_' or '-' (up to 64), e.g. openai-work",
        )
    return name


def env_names(name: str) -> tuple[str, ...]:
    """The environment variables that may hold the secret ``name``, in the order they are read."""
    upper = re.sub(r"[^A-Za-z0-9]", "_", name).upper()
    return (name,) if upper == name else (name, upper)


def get_secret(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The secret from the keyring, else from the environment; None when neither has it."""
    check_secret_name(name)
    backend = _keyring_backend()
    value = read_password(backend, SERVICE, name) if backend is not None else None
    if value:
        return value  # else (none, or a locked keyring) the environment may still have it
    environ = os.environ if env is None else env
    for variable in env_names(name):
        if environ.get(variable):
            return environ[variable]
    return None


def require_secret(name: str | None, backend: str) -> str:
    """The key ``backend`` needs, or an error that says how to provide it."""
    if not name:
        raise SecretError(
            f"the {backend} backend needs an API key, and no api_key_secret is set",
            f'run `vaultctx secret set {backend}` and add api_key_secret = "{backend}" under '
            "[agent] in vaultctx.toml (or pass --api-key-secret)",
        )
    value = get_secret(name)
    if value is None:
        where = " or ".join(env_names(name))
        raise SecretError(
            f"no secret named {name!r} in the keyring or the environment",
            f"run `vaultctx secret set {name}` (or, without a keyring, set {where})",
        )
    return value


def set_secret(name: str, value: str) -> str:
    """Store ``value`` as ``name``; returns the keyring's name for the message."""
    check_secret_name(name)
    if not value:
        raise SecretError("the secret is empty", "paste the key when asked")
    return write_password(
        _keyring_backend(),
        SERVICE,
        name,
        value,
        error=SecretError,
        what=repr(name),
        otherwise=f"set the environment variable {env_names(name)[-1]} to the key",
    )


def delete_secret(name: str) -> bool:
    """Remove ``name`` from the keyring; False when it was not there."""
    check_secret_name(name)
    return delete_password(_keyring_backend(), SERVICE, name)
