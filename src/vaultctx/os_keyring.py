"""The OS keyring, reached through ``keyring`` when it is installed (the ``agent`` extra).

One place decides what "no keyring" means (the package is missing, or it found only its ``fail``
backend: a headless server, CI) and what a locked or broken keyring reads as (nothing), so the
agent's API keys (agent/secrets.py) and the PostgreSQL password (index/postgres/connect.py) behave
alike. Callers word their own errors: each knows the other place its secret may live.
"""

from __future__ import annotations

from typing import Any

from vaultctx.errors import VaultctxError


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


def write_password(
    backend: Any,
    service: str,
    username: str,
    value: str,
    *,
    error: type[VaultctxError],
    what: str,
    otherwise: str,
) -> str:
    """Store ``value``; returns the keyring's name for the message. ``what`` names the secret in
    errors, ``otherwise`` is the other home it may have ("set the environment variable X")."""
    if backend is None:
        raise error(f"this system has no keyring to store {what} in", f"{otherwise} instead")
    import keyring.errors

    try:
        backend.set_password(service, username, value)
    except keyring.errors.KeyringError as exc:
        raise error(
            f"the keyring refused to store {what} ({type(exc).__name__})",
            f"unlock your keyring and try again, or {otherwise}",
        ) from None
    return type(backend).__name__


def delete_password(backend: Any, service: str, username: str) -> bool:
    """Remove the entry; False when there is no keyring or no such entry."""
    if backend is None:
        return False
    import keyring.errors

    try:
        backend.delete_password(service, username)
    except keyring.errors.PasswordDeleteError:
        return False
    return True
