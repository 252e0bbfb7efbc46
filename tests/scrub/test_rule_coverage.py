"""Every bundled gitleaks rule is either compiled or reported as skipped with a reason, and the only
rules skipped are those with no regex to run on text: no vendor rule can drop out silently.

Fake secrets come from a seeded RNG in the vendor's format, as in test_scrubber.py.
"""

from __future__ import annotations

import json
import random
import string

import pytest

from vaultctx.scrub import compiled_rules, scrub_secrets
from vaultctx.scrub.patterns import GITLEAKS_RULES_PATH

ALNUM = string.ascii_letters + string.digits


def bundled_rules() -> list[dict[str, object]]:
    rules: list[dict[str, object]] = json.loads(GITLEAKS_RULES_PATH.read_text("utf-8"))["rules"]
    return rules


def test_every_bundled_rule_is_compiled_or_reported() -> None:
    compiled = compiled_rules()
    names = {rule.name for rule in compiled.rules}
    bundled = {str(rule["id"]) for rule in bundled_rules()}
    without_regex = {str(rule["id"]) for rule in bundled_rules() if "regex" not in rule}
    assert set(compiled.gitleaks_skipped) == without_regex
    assert bundled - without_regex <= names
    assert compiled.gitleaks_compiled == len(bundled - without_regex)


def fake(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


@pytest.mark.parametrize("kind", ["xoxp", "xoxe"])
def test_a_slack_user_token_is_redacted_by_its_rule(kind: str) -> None:
    digits = "0123456789"
    token = (
        f"{kind}-{fake(digits, 10, 1)}-{fake(digits, 12, 2)}-{fake(digits, 13, 3)}-"
        f"{fake(ALNUM, 32, 4)}"
    )
    result = scrub_secrets(f"export SLACK_USER={token} # rotate monthly")
    assert result.text == "export SLACK_USER=[REDACTED:slack-user-token] # rotate monthly"
