"""The four chat backends as pydantic-ai models, built only from what the settings name.

pydantic-ai's providers fall back to ambient credentials (``OPENAI_API_KEY``,
``GEMINI_API_KEY``, ``AWS_*``, the default AWS profile, an EC2 role) when a key is not passed.
vaultctx never does: every client here is built with an explicit key (or none, for Ollama), so
an answer is always paid for by the account the user named, and a key set for some other program
is never sent to an endpoint vaultctx was pointed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultctx.agent.secrets import require_secret
from vaultctx.agent.settings import DEFAULT_REGION, AgentSettings
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.models import Model

AGENT_EXTRA = "pip install 'vaultctx[agent]'"
# botocore's credential providers that read the environment or the machine, not the profile.
AMBIENT_METHODS = ("env", "container-role", "iam-role", "boto-config", "ec2-credentials-file")
# Credential sources a named AWS profile may resolve to; never the environment or a machine role.
PROFILE_METHODS = frozenset(
    {
        "shared-credentials-file",
        "config-file",
        "sso",
        "custom-process",
        "assume-role",
        "assume-role-with-web-identity",
        "login",
    }
)


class BackendError(VaultctxError):
    """A backend cannot be set up (a missing model, key, profile or package)."""


def require_agent_extra() -> None:
    """A one-line error naming the install command when the agent's packages are missing."""
    try:
        import pydantic_ai  # noqa: F401
    except ImportError:
        raise BackendError(
            "the agent needs packages that are not installed", f"run: {AGENT_EXTRA}"
        ) from None


@dataclass(frozen=True)
class Backend:
    """A ready model and how to describe it without revealing the key."""

    name: str
    model_name: str
    endpoint: str
    model: Model


def build_backend(settings: AgentSettings) -> Backend:
    require_agent_extra()
    if not settings.model:
        raise BackendError(
            f"no {settings.backend} model is set",
            f"pass --model NAME or set model under [agent] in vaultctx.toml; "
            f"`vaultctx models --backend {settings.backend}` lists them",
        )
    builder = _BUILDERS[settings.backend]
    model, endpoint = builder(settings, settings.model)
    return Backend(settings.backend, settings.model, endpoint, model)


def _openai(settings: AgentSettings, model_name: str) -> tuple[Model, str]:
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    endpoint = settings.endpoint() or ""
    if "/v1" not in endpoint:
        raise BackendError(
            f"the OpenAI base_url {endpoint} has no /v1 in its path",
            f"give the API root including /v1, e.g. {endpoint}/v1",
        )
    key = require_secret(settings.api_key_secret, "openai")
    client = openai_client(endpoint, key, settings.timeout)
    provider = OpenAIProvider(openai_client=client)
    if openai_api(model_name) == "responses":
        return OpenAIResponsesModel(model_name, provider=provider), endpoint
    return OpenAIChatModel(model_name, provider=provider), endpoint


def openai_api(model_name: str) -> str:
    """Which of OpenAI's APIs a chat with ``model_name`` goes through: ``responses`` for the
    models that cannot take tools with reasoning over Chat Completions, else ``chat``.

    From gpt-5.4 on, OpenAI answers a Chat Completions request that carries function tools and a
    reasoning effort other than ``none`` with a 400: "Function tools with reasoning_effort are
    not supported for gpt-5.6-sol in /v1/chat/completions. To use function tools, use
    /v1/responses or set reasoning_effort to 'none'" (OpenAI developer community, "Gpt-5.6 chat
    completion reasoning effort"). pydantic-ai refuses such a request itself before sending it
    (``OpenAIModelProfile.openai_chat_function_tools_require_reasoning_off``, verified live on
    gpt-5.4, gpt-5.6 and gpt-6, pydantic-ai 2.78's docs) and points at ``OpenAIResponsesModel``.
    Every turn offers tools, and gpt-5.6 on takes no effort of ``none``, so on Chat Completions
    each question was refused at every effort level. The Responses API carries both, and hands
    the model's reasoning back between tool rounds (OpenAI cookbook, "Better performance from
    reasoning models using the Responses API"). Other OpenAI-compatible servers (vLLM, LM Studio,
    llama.cpp) mostly serve only Chat Completions, so everything else stays there.
    """
    from pydantic_ai.providers.openai import OpenAIProvider

    from vaultctx.agent.effort import LATEST_GPT, gpt_version

    profile = OpenAIProvider.model_profile(model_name) or {}
    refused = bool(profile.get("openai_chat_function_tools_require_reasoning_off", False))
    version = gpt_version(model_name)
    return "responses" if refused or (version is not None and version >= LATEST_GPT) else "chat"


def _ollama(settings: AgentSettings, model_name: str) -> tuple[Model, str]:
    from pydantic_ai.models.ollama import OllamaModel
    from pydantic_ai.providers.ollama import OllamaProvider

    root = ollama_root(settings)
    # Ollama needs no key; a placeholder keeps the client from sending OPENAI_API_KEY there.
    client = openai_client(f"{root}/v1", "ollama", settings.timeout)
    return OllamaModel(model_name, provider=OllamaProvider(openai_client=client)), root


def ollama_root(settings: AgentSettings) -> str:
    """Ollama's own address: its OpenAI-compatible API is under ``/v1``, the native one under
    ``/api``; a base_url given either way is accepted."""
    root = settings.endpoint() or ""
    return root[: -len("/v1")] if root.endswith("/v1") else root


def openai_client(base_url: str, key: str, timeout: float) -> Any:
    from openai import AsyncOpenAI

    from vaultctx.agent.loop_http import loop_safe_client

    # No silent retries: a 429's Retry-After is the user's to see (backends.describe_failure).
    # The HTTP client keeps a connection pool per event loop (agent/loop_http.py).
    return AsyncOpenAI(
        base_url=base_url,
        api_key=key,
        max_retries=0,
        timeout=timeout,
        http_client=loop_safe_client(timeout),
    )


def _gemini(settings: AgentSettings, model_name: str) -> tuple[Model, str]:
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    key = require_secret(settings.api_key_secret, "gemini")
    endpoint = settings.base_url or "https://generativelanguage.googleapis.com"
    provider = GoogleProvider(api_key=key, base_url=settings.base_url)
    _no_google_retries(provider)
    return GoogleModel(model_name, provider=provider), endpoint


def _no_google_retries(provider: Any) -> None:
    """google-genai retries 429 and 5xx on its own (for up to a minute): off, as for OpenAI."""
    client = getattr(provider, "client", None)
    options = getattr(getattr(client, "_api_client", None), "_http_options", None)
    if options is not None and hasattr(options, "retry_options"):
        from google.genai import types

        options.retry_options = types.HttpRetryOptions(attempts=1)


def _bedrock(settings: AgentSettings, model_name: str) -> tuple[Model, str]:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    region = settings.region or DEFAULT_REGION
    client = bedrock_client("bedrock-runtime", settings, region)
    endpoint = str(client.meta.endpoint_url)
    return BedrockConverseModel(
        model_name, provider=BedrockProvider(bedrock_client=client)
    ), endpoint


def bedrock_client(service: str, settings: AgentSettings, region: str) -> Any:
    """A boto3 client authenticated by the named profile or the named Bedrock API key, and by
    nothing else: neither ``AWS_*`` variables, nor the default profile, nor an instance role."""
    if settings.api_key_secret and settings.profile:
        raise BackendError(
            "both a Bedrock API key (api_key_secret) and an AWS profile are set",
            "keep one of them under [agent] in vaultctx.toml",
        )
    if settings.api_key_secret:
        return _bearer_client(
            service, require_secret(settings.api_key_secret, "bedrock"), region, settings
        )
    if settings.profile:
        return _profile_client(service, settings.profile, region, settings)
    raise BackendError(
        "the bedrock backend needs an AWS profile or a Bedrock API key",
        'set profile = "NAME" (a profile in ~/.aws/config) or run `vaultctx secret set bedrock` '
        'and set api_key_secret = "bedrock" under [agent]',
    )


def _client_config(signature: str, settings: AgentSettings) -> Any:
    from botocore.config import Config

    return Config(
        signature_version=signature,
        retries={"max_attempts": 1, "mode": "standard"},
        read_timeout=settings.timeout,
        connect_timeout=min(settings.timeout, 10.0),
    )


def _bearer_client(service: str, token: str, region: str, settings: AgentSettings) -> Any:
    import boto3
    from botocore.session import Session
    from botocore.tokens import FrozenAuthToken

    class KeyOnlySession(Session):  # type: ignore[misc]
        """Signs with the Bedrock API key and has no other credentials to fall back on."""

        def get_auth_token(self, **_: Any) -> FrozenAuthToken:
            return FrozenAuthToken(token)

        def get_credentials(self) -> None:
            return None

    session = boto3.Session(botocore_session=KeyOnlySession(), region_name=region)
    endpoint = settings.base_url if settings.base_url else None
    return session.client(service, endpoint_url=endpoint, config=_client_config("bearer", settings))


def _profile_client(service: str, profile: str, region: str, settings: AgentSettings) -> Any:
    import boto3
    from botocore.exceptions import BotoCoreError, ProfileNotFound
    from botocore.session import Session

    core = Session(profile=profile)
    try:
        resolver = core.get_component("credential_provider")
        for method in AMBIENT_METHODS:  # never asked, so never a metadata-service timeout
            resolver.remove(method)
        credentials = core.get_credentials()
    except ProfileNotFound:
        raise BackendError(
            f"no AWS profile named {profile!r}",
            "check the [profile NAME] sections of ~/.aws/config (or run `aws configure --profile "
            f"{profile}`)",
        ) from None
    except BotoCoreError as exc:
        raise BackendError(
            f"AWS profile {profile!r} cannot be used: {exc}", "fix the profile in ~/.aws/config"
        ) from None
    if credentials is None or credentials.method not in PROFILE_METHODS:
        raise BackendError(
            f"AWS profile {profile!r} has no credentials of its own",
            "add keys, SSO or credential_process to that profile; vaultctx does not use "
            "environment variables or instance roles",
        )
    frozen = credentials.get_frozen_credentials()
    endpoint = settings.base_url if settings.base_url else None
    return boto3.Session(
        aws_access_key_id=frozen.access_key,
        aws_secret_access_key=frozen.secret_key,
        aws_session_token=frozen.token,
        region_name=region,
    ).client(service, endpoint_url=endpoint, config=_client_config("v4", settings))


_BUILDERS = {"openai": _openai, "ollama": _ollama, "gemini": _gemini, "bedrock": _bedrock}
