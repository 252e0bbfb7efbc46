"""Browser sessions of the web UI and their CSRF tokens, both derived from the run's token.

The printed token opens a session once; the cookie then holds ``<session id>.<seal>``, where the
seal is an HMAC of the id under the run's token, so the server keeps no table of sessions and a
restart (a new token) ends them all. Each session has its own CSRF token, another HMAC of the
same id: a page of another site or port cannot read it (the cookie is HttpOnly, the page's HTML
is not theirs to read), so it cannot make a change even though the browser sends the cookie
along (``SameSite`` ignores ports). Every comparison takes constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

CSRF_FIELD = "csrf_token"  # the hidden field of every form that changes something
CSRF_HEADER = "x-csrf-token"  # what the page's script sends with fetch()
CSRF_SCOPE_KEY = "vaultctx.csrf_token"  # where the guard leaves the session's token for pages
SESSION_SCOPE_KEY = "vaultctx.session"  # and the session's id, for its own CSRF check
SESSION_ID_BYTES = 18  # 24 URL-safe characters: never guessed, never repeated
_SEPARATOR = "."


class Sessions:
    """Issues and checks session cookies and CSRF tokens under one run's token."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the UI's token must not be empty")
        self._key = token.encode("utf-8")

    def new_cookie(self) -> str:
        """A fresh session: the value to store in the cookie."""
        session = secrets.token_urlsafe(SESSION_ID_BYTES)
        return f"{session}{_SEPARATOR}{self._seal('session', session)}"

    def session_of(self, cookie: str | None) -> str | None:
        """The session id of a cookie this run issued, else None."""
        if not cookie or _SEPARATOR not in cookie:
            return None
        session, _, seal = cookie.partition(_SEPARATOR)
        if not session or not secret_matches(seal, self._seal("session", session)):
            return None
        return session

    def csrf_token(self, session: str) -> str:
        """What the session's pages send with every change (hidden field or header)."""
        return self._seal("csrf", session)

    def csrf_matches(self, session: str, given: str | None) -> bool:
        return secret_matches(given, self.csrf_token(session))

    def _seal(self, purpose: str, session: str) -> str:
        # The purpose keeps a CSRF token from ever being a valid cookie seal, and back.
        message = f"vaultctx-ui\0{purpose}\0{session}".encode()
        digest = hmac.new(self._key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def secret_matches(given: str | None, expected: str) -> bool:
    """Constant-time equality: the time a guess takes says nothing about the secret."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))
