"""The OS keyring, reached through ``keyring`` when it is installed (the ``agent`` extra).

One place decides what "no keyring" means (the package is missing, or it found only its ``fail``
backend: a headless server, CI) and what a locked or broken keyring reads as (nothing), so the
agent's API keys (agent/secrets.py) and the PostgreSQL password (index/postgres/connect.py) behave
alike. Callers word their own errors: each knows the other place its secret may live.
"""

from __future__ import annotations

from typing import Any


def keyring_backend() -> Any | None:
    """The OS keyring, or None when this system has none (keyring's ``fail`` backend)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    backend = keyring.get_keyring()
    return None if isinstance(backend, fail.Keyring) else backend


def read_password(backend: Any, service: str, username: str) -> str | None:
    """The stored value, or None when there is none or the keyring cannot be read (locked,
    broken): the caller's other sources may still have it."""
    import keyring.errors

    try:
        value = backend.get_password(service, username)
    except keyring.errors.KeyringError:
        return None
    return str(value) if value else None
