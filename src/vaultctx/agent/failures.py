"""A backend's failure as one line that names the fix.

pydantic-ai sorts every provider's errors into categories (rate limit, authentication, model not
found, connection, timeout, ...); each category gets one message here, with the backend's name and
address, so "401" becomes "check the key stored as openai-work"; what to do when a backend cannot
be reached is the backend's own (``LLMBackend.unreachable_fix``). The provider's own message is
kept only when short, and passes through the scrubber: an error body may echo a key.
"""

from __future__ import annotations

from vaultctx.agent.llm_backends.base import NETWORK_FIX
from vaultctx.agent.llm_backends.registry import UnknownBackendError, get_backend
from vaultctx.errors import VaultctxError


class BackendFailure(VaultctxError):
    """The backend could not answer; ``partial`` says whether some of the answer had arrived."""


def describe_failure(
    exc: BaseException, *, backend: str, model: str, endpoint: str, secret: str | None
) -> BackendFailure:
    from pydantic_ai import exceptions as errors

    where = f"{backend} at {endpoint}" if endpoint else backend
    key_fix = (
        f"store the right key with `vaultctx secret set {secret}`"
        if secret
        else f"run `vaultctx secret set {backend}` and set api_key_secret under [agent]"
    )
    if isinstance(exc, errors.ModelAuthenticationError):
        return BackendFailure(f"{where} refused the key{_status(exc)}", key_fix)
    if isinstance(exc, errors.ModelNotFoundError):
        return BackendFailure(
            f"{where} has no model {model!r}{_status(exc)}",
            f"pick one that `vaultctx models --backend {backend}` lists",
        )
    if isinstance(exc, errors.ModelRateLimitError):
        wait = f"; it asks to wait {exc.retry_after:.0f} s" if exc.retry_after else ""
        after = f"in {exc.retry_after:.0f} s" if exc.retry_after else "in a minute"
        return BackendFailure(f"{where} is rate limiting requests{wait}", f"try again {after}")
    for kinds, problem, fix in _plain_failures(exc, backend, where, model):
        if isinstance(exc, kinds):
            return BackendFailure(problem, fix)
    return BackendFailure(
        f"{where} failed: {type(exc).__name__}: {_short(str(exc))}",
        "try again; set VAULTCTX_DEBUG=1 to see the details",
    )


def _plain_failures(
    exc: BaseException, backend: str, where: str, model: str
) -> list[tuple[type[BaseException] | tuple[type[BaseException], ...], str, str]]:
    """The categories whose message needs nothing but the place, the model and the error's own
    status and text: (pydantic-ai's error types, problem, fix), checked in this order."""
    from pydantic_ai import exceptions as errors

    return [
        (
            errors.ModelQuotaExceededError,
            f"{where} says the account's quota or credit is used up",
            "check billing or quota for this key, or switch backend with --backend",
        ),
        (
            errors.ModelContextWindowExceededError,
            f"the question, passages and attachments are too long for {model}",
            "attach fewer or shorter files, lower context_tokens, or start a new chat (/new)",
        ),
        (
            errors.ModelTimeoutError,
            f"{where} did not answer in time",
            "try again, or raise timeout under [agent] in vaultctx.toml",
        ),
        (errors.ModelConnectionError, *_connection(exc, backend, where)),
        (
            (errors.ModelUnavailableError, errors.ModelServerError),
            f"{where} failed to answer{_status(exc)}{_detail(exc)}",
            "try again in a moment",
        ),
        (
            errors.ModelRequestRejectedError,
            f"{where} rejected the request{_status(exc)}{_detail(exc)}",
            "check the model name and the attachments; `vaultctx models` lists models",
        ),
        (
            errors.UnexpectedModelBehavior,
            f"{where} sent a response that could not be read ({_short(str(exc))})",
            "try again; if it persists, check that base_url points at the right kind of server",
        ),
    ]


def _connection(exc: BaseException, backend: str, where: str) -> tuple[str, str]:
    if getattr(exc, "phase", None) == "read":
        return f"the connection to {where} broke off while the answer was arriving", "try again"
    try:
        fix = get_backend(backend).unreachable_fix
    except UnknownBackendError:  # describing one failure must not raise another
        fix = NETWORK_FIX
    return f"cannot reach {where}", fix


def _status(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    return f" (HTTP {status})" if status else ""


def _detail(exc: BaseException) -> str:
    text = _short(getattr(exc, "message", "") or str(exc))
    return f": {text}" if text else ""


def _short(text: str, limit: int = 160) -> str:
    from vaultctx.scrub import scrub_secrets

    one_line = " ".join(scrub_secrets(text).text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
