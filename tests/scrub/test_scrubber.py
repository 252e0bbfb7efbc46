"""Credential scrubbing (SPEC §3): vendor and generic rules, context kept, idempotence, speed paths.

Fake secrets are generated from a seeded RNG in each vendor's format instead of written out, so
no realistic-looking credential is committed to the repository. The labelled fixtures from
gitleaks' and detect-secrets' test suites are read from ``../shared/data`` and scored by
``labelled_fixtures.py``; no fixture string appears here.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import shared_data
from tests.scrub.labelled_fixtures import (
    ALTERED_TARGET,
    LABELLED,
    RECALL_TARGET,
    SHAPE_CLASSES,
    Row,
    best_pairs,
    consistent_rows,
    labelled_both_ways_across_sources,
    load_rows,
    score,
)
from vaultctx.scrub import ScrubResult, compiled_rules, scrub_secrets
from vaultctx.scrub.patterns import _VENDOR_VALIDATORS, literal_heads, translate_go_regex
from vaultctx.scrub.scrubber import _matches_at

REPO_ROOT = Path(__file__).resolve().parents[2]

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
BASE32 = string.ascii_uppercase + "234567"


def fake(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def b64url(payload: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def fake_jwt(seed: int) -> str:
    header = b64url({"alg": "HS256", "typ": "JWT"})
    claims = b64url({"sub": "1234567890", "name": "Ada Lovelace", "iat": 1516239022})
    return f"{header}.{claims}.{fake(ALNUM + '-_', 43, seed)}"


def fake_pem(seed: int, lines: int = 12) -> str:
    body = "\n".join(fake(ALNUM + "+/", 64, seed + line) for line in range(lines))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\nabcd==\n-----END RSA PRIVATE KEY-----"


# rule name -> (template with {secret}, secret factory)
VENDOR_SAMPLES: dict[str, tuple[str, Callable[[int], str]]] = {
    "aws-access-token": ("aws_access_key_id = {secret}", lambda s: "AKIA" + fake(BASE32, 16, s)),
    "github-pat": ("export GITHUB_TOKEN={secret}", lambda s: "ghp_" + fake(ALNUM, 36, s)),
    "github-fine-grained-pat": (
        "token: {secret}",
        lambda s: "github_pat_" + fake(ALNUM + "_", 82, s),
    ),
    "gitlab-pat": (
        "git clone https://oauth2:{secret}@gitlab.com/x/y.git",
        lambda s: "glpat-" + fake(ALNUM, 20, s),
    ),
    "slack-bot-token": (
        "SLACK_BOT_TOKEN={secret}",
        lambda s: (
            f"xoxb-{fake('123456789', 12, s)}-{fake('123456789', 13, s + 1)}-{fake(ALNUM, 24, s)}"
        ),
    ),
    "slack-webhook-url": (
        "webhook: {secret}",
        lambda s: (
            "https://hooks.slack.com/services/"
            + f"T{fake(BASE32, 8, s)}/B{fake(BASE32, 10, s)}/{fake(ALNUM, 24, s)}"
        ),
    ),
    "stripe-access-token": (
        "stripe.api_key = '{secret}'",
        lambda s: "sk_live_" + fake(ALNUM, 24, s),
    ),
    "openai-api-key": (
        "OPENAI_API_KEY={secret}",
        lambda s: f"sk-proj-{fake(ALNUM, 74, s)}T3BlbkFJ{fake(ALNUM, 74, s + 1)}",
    ),
    "anthropic-api-key": (
        "ANTHROPIC_API_KEY={secret}",
        lambda s: f"sk-ant-api03-{fake(ALNUM + '_-', 93, s)}AA",
    ),
    "gcp-api-key": ("const key = '{secret}';", lambda s: "AIza" + fake(ALNUM + "_-", 35, s)),
    "huggingface-access-token": (
        "login(token='{secret}')",
        lambda s: "hf_" + fake(string.ascii_letters, 34, s),
    ),
    "npm-access-token": (
        "//registry.npmjs.org/:_authToken={secret}",
        lambda s: "npm_" + fake(string.ascii_lowercase + string.digits, 36, s),
    ),
    "pypi-upload-token": (
        "password = {secret}",
        lambda s: "pypi-AgEIcHlwaS5vcmc" + fake(ALNUM, 60, s),
    ),
    "twilio-api-key": ("TWILIO_KEY_SID {secret} rotated", lambda s: "SK" + fake(HEX, 32, s)),
    "sendgrid-api-token": (
        "SENDGRID_API_KEY='{secret}'",
        lambda s: f"SG.{fake(ALNUM, 22, s)}.{fake(ALNUM, 43, s + 1)}",
    ),
    "discord-bot-token": (
        "bot.run('{secret}')",
        lambda s: f"MTk4NjIy{fake(ALNUM, 16, s)}.{fake(ALNUM, 6, s)}.{fake(ALNUM, 27, s)}",
    ),
    "discord-api-token": ("discord_token: {secret}", lambda s: fake(HEX, 64, s)),
    "telegram-bot-api-token": (
        "send via {secret} today",
        lambda s: f"{fake('123456789', 10, s)}:AA{fake(ALNUM, 33, s)}",
    ),
    "shopify-access-token": (
        "X-Shopify-Access-Token: {secret}",
        lambda s: "shpat_" + fake(HEX, 32, s),
    ),
    "digitalocean-pat": ("do_token {secret} end", lambda s: "dop_v1_" + fake(HEX, 64, s)),
    "databricks-api-token": ("host + {secret} here", lambda s: "dapi" + fake(HEX, 32, s)),
    "doppler-api-token": ("DOPPLER={secret}", lambda s: "dp.pt." + fake(ALNUM, 43, s)),
    "linear-api-key": ("linear: {secret}", lambda s: "lin_api_" + fake(ALNUM, 40, s)),
    "postman-api-token": (
        "postman {secret} ok",
        lambda s: f"PMAK-{fake(HEX, 24, s)}-{fake(HEX, 34, s + 1)}",
    ),
    "age-secret-key": (
        "# key: {secret}",
        lambda s: "AGE-SECRET-KEY-1" + fake("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, s),
    ),
    "grafana-service-account-token": (
        "grafana {secret} ok",
        lambda s: f"glsa_{fake(ALNUM, 32, s)}_{fake(HEX, 8, s)}",
    ),
    "vault-service-token": ("VAULT_TOKEN={secret}", lambda s: "hvs." + fake(ALNUM + "_-", 95, s)),
    "sentry-user-token": ("sentry {secret} ok", lambda s: "sntryu_" + fake(HEX, 64, s)),
    "pulumi-api-token": ("PULUMI_ACCESS_TOKEN={secret}", lambda s: "pul-" + fake(HEX, 40, s)),
    "square-access-token": ("square {secret} ok", lambda s: "sq0atp-" + fake(ALNUM + "_-", 22, s)),
    "heroku-api-key-v2": ("heroku {secret} ok", lambda s: "HRKU-AA" + fake(ALNUM + "_-", 58, s)),
    "mailgun-private-api-token": ("mailgun_key = {secret}", lambda s: "key-" + fake(HEX, 32, s)),
    "jwt": ("Cookie: session={secret}; Path=/", fake_jwt),
    "gitlab-token": ("trigger: {secret}", lambda s: "glptt-" + fake(ALNUM + "_-", 40, s)),
    "square-secret": ("client_secret {secret} here", lambda s: "sq0csp-" + fake(ALNUM, 43, s)),
    "softlayer-api-key": (
        "POST https://api.softlayer.com/soap/v3.1/{secret} HTTP/1.1",
        lambda s: fake(string.ascii_lowercase + string.digits, 64, s),
    ),
}


@pytest.mark.parametrize("rule", sorted(VENDOR_SAMPLES))
def test_vendor_secret_is_replaced_and_context_kept(rule: str) -> None:
    template, make_secret = VENDOR_SAMPLES[rule]
    secret = make_secret(len(rule))
    before, after = template.split("{secret}")
    result = scrub_secrets(before + secret + after)
    assert result.text == f"{before}[REDACTED:{rule}]{after}"
    assert result.counts == {rule: 1}


def test_at_least_25_distinct_vendor_rules_fire() -> None:
    fired = set()
    for rule, (template, make_secret) in VENDOR_SAMPLES.items():
        fired |= set(scrub_secrets(template.format(secret=make_secret(len(rule)))).counts)
    vendor_rules = fired - {"jwt"}
    assert len(vendor_rules) >= 25, sorted(vendor_rules)


GENERIC_CASES = [
    # (input, expected output)
    ('password: "Tr0ub4dor&3x"', 'password: "[REDACTED:password-assignment]"'),
    ("DB_PASSWORD=s9Kq2vLx7Wm", "DB_PASSWORD=[REDACTED:password-assignment]"),
    (
        '{"client_secret": "8f3kQ9zL2mXv7TbY1wNc"}',
        '{"client_secret": "[REDACTED:secret-assignment]"}',
    ),
    ("api_key = 'a8Fk3Lm9Qz2Xv7Tb1NcW5yR0'", "api_key = '[REDACTED:api-key-assignment]'"),
    ("refreshToken: 0a9F8e7D6c5B4a3Z2y1X", "refreshToken: [REDACTED:token-assignment]"),
    (
        "deploy --api-key Zq81Lm2Xv7Tb1NcW5yR0 --force",
        "deploy --api-key [REDACTED:api-key-assignment] --force",
    ),
    (
        "Server=db01;User Id=sa;Password=Xk9#mQ2vL7;Encrypt=true",
        "Server=db01;User Id=sa;Password=[REDACTED:password-assignment];Encrypt=true",
    ),
    (
        "DATABASE_URL=postgres://admin:q8Z3vN1xL5@db.internal:5432/app",
        "DATABASE_URL=postgres://admin:[REDACTED:url-credentials]@db.internal:5432/app",
    ),
    (
        'headers = {"Authorization": "Bearer 3f9a7c2e8b1d4f6a9c0e2b4d6f8a1c3e"}',
        'headers = {"Authorization": "Bearer [REDACTED:bearer-token]"}',
    ),
    (
        "Authorization: Basic dXNlcjpzM2NyM3QtcGFzcw==",
        "Authorization: Basic [REDACTED:authorization-header]",
    ),
]


@pytest.mark.parametrize(("text", "expected"), GENERIC_CASES)
def test_generic_patterns_replace_only_the_value(text: str, expected: str) -> None:
    assert scrub_secrets(text).text == expected


def test_jwt_is_replaced() -> None:
    token = fake_jwt(7)
    result = scrub_secrets(f"use {token} as the header")
    assert result.text == "use [REDACTED:jwt] as the header"


def test_private_key_block_is_replaced_whole_across_lines() -> None:
    pem = fake_pem(3)
    result = scrub_secrets(f"## Deploy key\n\n```\n{pem}\n```\n\nRotate it yearly.")
    assert result.text == "## Deploy key\n\n```\n[REDACTED:private-key]\n```\n\nRotate it yearly."


def test_private_key_cut_in_two_by_chunking_is_replaced_in_both_halves() -> None:
    pem = fake_pem(4)
    middle = len(pem) // 2
    head, tail = pem[:middle], pem[middle:]
    head_result = scrub_secrets("key follows\n" + head)
    tail_result = scrub_secrets(tail + "\nafter the key")
    assert head_result.text == "key follows\n[REDACTED:private-key]"
    assert tail_result.text.endswith("[REDACTED:private-key]\nafter the key")
    assert "-----END" not in tail_result.text
    assert not re.search(r"[A-Za-z0-9+/]{20}", head_result.text + tail_result.text)


# (prefix, a length GitLab issues, a length past its maximum for that prefix)
GITLAB_LENGTHS = [
    *((prefix, 20, 51) for prefix in ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "GR1348941")),
    ("glimt-", 25, 29),
    ("glptt-", 40, 44),
    ("gloas-", 64, 70),
]


@pytest.mark.parametrize(("prefix", "length", "too_long"), GITLAB_LENGTHS)
def test_gitlab_tokens_are_judged_by_their_whole_length(
    prefix: str, length: int, too_long: int
) -> None:
    """A GitLab prefix followed by a run longer than GitLab issues is not a GitLab token, even
    though its head has the length of one (gitleaks' GitLab rules fix a length, not an end)."""
    alphabet = HEX if prefix == "glptt-" else ALNUM + "_"
    token = prefix + fake(alphabet, length, len(prefix))
    assert token not in scrub_secrets(f"see {token} here").text
    longer = prefix + fake(alphabet, too_long, len(prefix))
    assert scrub_secrets(f"see {longer} here").total == 0


ARTIFACTORY_CONTEXTS = [
    "X-JFrog-Art-Api: {secret}",
    "<password>{secret}</password>",
    'artifactory_password="{secret}"',
    "jfrog rt ping --access-token={secret}",
    "{secret}",
]


@pytest.mark.parametrize("template", ARTIFACTORY_CONTEXTS)
@pytest.mark.parametrize(
    "make_secret",
    [
        lambda: "AKC" + fake(ALNUM, 30, 1),  # API key; gitleaks only knows AKCp + 69 characters
        lambda: "AKCp" + fake(ALNUM, 69, 2),
        lambda: "AP" + fake("0123456789ABCDEF", 1, 3) + fake(ALNUM, 24, 3),  # encrypted password
    ],
)
def test_artifactory_credentials_are_replaced(
    template: str, make_secret: Callable[[], str]
) -> None:
    secret = make_secret()
    before, after = template.split("{secret}")
    result = scrub_secrets(template.format(secret=secret))
    assert result.text.startswith(before) and result.text.endswith(after)
    assert secret not in result.text and result.total == 1


ARTIFACTORY_LOOK_ALIKES = [
    "The APDUResponseHandler class parses smart-card replies.",  # an identifier, no digit
    "AKC" + "x" * 10,  # a filler, like ghp_xxxx…
    "AP6" + "x" * 10,
    "AP6" + fake(ALNUM, 6, 4),  # too short
    "mixin" + "AKC" + fake(ALNUM, 20, 5),  # inside a word
    "data:image/png;base64," + fake(ALNUM + "+/", 30, 6) + "/AP3" + fake(ALNUM, 20, 6),
]


@pytest.mark.parametrize("text", ARTIFACTORY_LOOK_ALIKES)
def test_artifactory_look_alikes_are_left_alone(text: str) -> None:
    assert scrub_secrets(text).total == 0


PLACEHOLDERS = [
    "password: changeme",
    'password = "xxxxxxxxxx"',
    "token: ${GITHUB_TOKEN}",
    "api_key: <your-api-key>",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "password: aaaaaaaaaa",
    "password=abc",
    "secret: {{ .Values.secret }}",
    'password = os.environ["DB_PASSWORD"]',
    "token = get_token()",
    "api_key = settings.API_KEY",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $ACCESS_TOKEN",
    "postgres://user:password@localhost/db",
    "https://user:${DB_PASS}@example.com",
    "-Password 'P@ssw0rd'",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws_access_key_id = ASIA" + "Q" * 16,  # a filler in a valid shape, like the ghp_ one
    "password: ENC[AES256_GCM,data:O+5l4g==,iv:c/dS4B=,type:str]",
    "MinPasswordAge : 1.00:00:00",
    "trigger: glptt-" + "x" * 40,
    "https://api.softlayer.com/soap/v3/" + "0" * 64,
]


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_placeholders_and_references_are_left_alone(text: str) -> None:
    assert scrub_secrets(text).text == text


ORDINARY_TEXT = [
    "The API key rotation policy says every token expires after 90 days.",
    "Password managers generate a new secret for each site; never reuse one.",
    "## Access control\n\nSee [[Authentication]] and [[Tokens#Refresh]]. #security/keys",
    "```python\ndef check_password(user, password):\n    return verify(password, user.hash)\n```",
    "```powershell\n$cred = Get-Credential\nNew-PSSession -ComputerName s1 -Credential $cred\n```",
    "primary_key = 'user_id'\nsort_key: created_at\nkeyboard_shortcut: Ctrl+K",
    "Commit 3f9a7c2e8b1d4f6a9c0e2b4d6f8a1c3e5b7d9f0a fixed the tokenizer (see PR #1234).",
    "Visit https://example.com/docs?page=2&sort=asc or mailto:someone@example.com today.",
    "| key | value |\n|---|---|\n| retries | 3 |\n| timeout | 30s |",
    "비밀번호는 절대 노트에 적지 마세요. 토큰은 환경 변수로 관리합니다.",
    "> [!note] The secret to good notes is linking them.",
    # Public addresses are not credentials, and notes name servers by them (see the scrubber).
    "Resolver 1.1.1.1, NAS at 203.0.113.7:5000, mask 255.255.255.0, module 5.0.0.1.",
]


@pytest.mark.parametrize("text", ORDINARY_TEXT)
def test_ordinary_prose_code_and_markdown_are_untouched(text: str) -> None:
    result = scrub_secrets(text)
    assert result == ScrubResult(text, {})
    assert result.total == 0


def test_obsidian_help_vault_is_untouched() -> None:
    notes = sorted(shared_data("obsidian-help").rglob("*.md"))
    assert len(notes) > 300
    altered = [note.name for note in notes if scrub_secrets(note.read_text("utf-8")).total]
    assert altered == []


def every_sample() -> list[str]:
    vendor = [
        template.format(secret=make(len(rule))) for rule, (template, make) in VENDOR_SAMPLES.items()
    ]
    return [
        *vendor,
        *(text for text, _ in GENERIC_CASES),
        fake_pem(5),
        *PLACEHOLDERS,
        *ORDINARY_TEXT,
    ]


def test_scrubbing_twice_changes_nothing() -> None:
    for text in every_sample():
        once = scrub_secrets(text)
        twice = scrub_secrets(once.text)
        assert twice.text == once.text
        assert twice.counts == {}


def test_counts_add_up_over_several_secrets() -> None:
    github = "ghp_" + fake(ALNUM, 36, 11)
    text = f"a={github}\nb={github}\npassword: q8Z3vN1xL5W"
    result = scrub_secrets(text)
    assert result.counts == {"github-pat": 2, "password-assignment": 1}
    assert result.total == 3
    assert github not in result.text


FRAGMENTS = [
    "password=",
    "token: ",
    "api_key = '",
    "Bearer ",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "\n-----END RSA PRIVATE KEY-----",
    "://user:",
    "@host",
    "[REDACTED:jwt]",
    "ghp_",
    "eyJ",
    "sk-",
    "\n",
    " ",
    "curl -u ",
    '"',
]
LONGEST_MARKER = len("[REDACTED:]") + max(len(rule.name) for rule in compiled_rules().rules)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), max_size=30))
def test_scrub_never_raises_never_grows_unboundedly_and_is_idempotent(parts: list[str]) -> None:
    text = "".join(parts)
    result = scrub_secrets(text)
    assert result.total <= len(text)
    assert len(result.text) <= len(text) + result.total * LONGEST_MARKER
    assert scrub_secrets(result.text).text == result.text


@pytest.fixture(scope="module")
def labelled() -> list[Row]:
    if not LABELLED.exists():
        pytest.skip(f"shared data not found: {LABELLED}")
    return load_rows(LABELLED)


def test_labelled_fixture_targets_on_consistent_rows(labelled: list[Row]) -> None:
    """Recall >= 97 % of secret rows and <= 3 % of non-secret rows altered (issue 2, item 5).

    Asserted on the rows whose labels do not conflict (tests/scrub/labelled_fixtures.py says
    which and why). On the full file no scrubber can meet both: 90 rows carry the same text or
    the same shape with opposite labels from the two sources, which caps recall at 94.4 % with
    <= 3 % altered. ``bench/scrub_quality.py`` prints the full-file figures and the ceiling.
    """
    result = score(consistent_rows(labelled))
    assert result.recall >= RECALL_TARGET, result
    assert result.altered_rate <= ALTERED_TARGET, result


def test_conflicts_are_real_and_a_minority(labelled: list[Row]) -> None:
    """Each excluded shape class must carry opposite labels from the two sources, the classes
    must make the targets unreachable on the full file (else nothing needs excluding), and most
    rows of each label must stay, so "consistent" cannot drift into "what the scrubber gets
    right"."""
    for name, test in SHAPE_CLASSES.items():
        members = [row for row in labelled if test(row.text)]
        assert labelled_both_ways_across_sources(members), name
    reachable = [
        pair
        for pair in best_pairs(labelled)
        if pair.recall >= RECALL_TARGET and pair.altered_rate <= ALTERED_TARGET
    ]
    assert reachable == []
    kept = consistent_rows(labelled)
    for label in (True, False):
        assert sum(row.secret == label for row in kept) >= 0.8 * sum(
            row.secret == label for row in labelled
        )


def test_anchored_rules_find_what_a_full_scan_finds(labelled: list[Row]) -> None:
    """Rules run only at their keywords' offsets must match exactly as ``finditer`` would."""
    compiled = compiled_rules()
    texts = [row.text for row in labelled] + every_sample()
    for index in compiled.anchored:
        rule = compiled.rules[index]
        for text in texts:
            lowered = text.lower()
            starts = sorted(
                {
                    m.start()
                    for keyword in rule.keywords
                    for m in re.finditer(re.escape(keyword), lowered)
                }
            )
            if not starts:
                continue
            anchored = [m.span() for m in _matches_at(rule.regex, text, starts)]
            assert anchored == [m.span() for m in rule.regex.finditer(text)], rule.name


def test_go_regex_translation() -> None:
    assert translate_go_regex(r"\b(p8e-(?i)[a-z0-9]{32})") == r"\b(p8e-(?i:[a-z0-9]{32}))"
    assert translate_go_regex(r"a(?i)b|c") == r"a(?i:b)|(?i:c)"
    assert translate_go_regex(r"x[[:alnum:]]\z") == r"x[a-zA-Z0-9]\Z"
    assert translate_go_regex(r"curl.*-u") == r"curl.{0,1000}-u"


def test_literal_heads() -> None:
    assert literal_heads(r"(?i)(?:key|passw(?:or)?d|(?-i:[Aa]pi))[ \t]*=") == frozenset(
        {"key", "passwd", "password", "api"}
    )
    assert literal_heads(r"\b(ghp_[a-z]{36})") == frozenset({"ghp_"})
    assert literal_heads(r"(?<![\w-])[MNO][\w-]{23}") == frozenset("mno")
    assert literal_heads(r"[a-z]+token") is None


def test_rules_compile_once_and_report_what_was_skipped() -> None:
    compiled = compiled_rules()
    assert compiled is compiled_rules()
    assert compiled.gitleaks_compiled >= 200
    assert all(reason for reason in compiled.gitleaks_skipped.values())
    assert compiled.compile_seconds > 0


def test_vendor_validators_name_rules_that_exist() -> None:
    """A misspelt rule name would silently leave that rule unchecked."""
    names = {rule.name for rule in compiled_rules().rules}
    assert set(_VENDOR_VALIDATORS) <= names


def test_importing_compiles_nothing() -> None:
    probe = "import vaultctx.scrub.scrubber as s; assert s._compiled is None"
    subprocess.run(
        [sys.executable, "-c", probe], check=True, env={"PYTHONPATH": str(REPO_ROOT / "src")}
    )
