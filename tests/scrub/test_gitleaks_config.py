"""How a gitleaks config becomes rules, on a small config of our own written the way gitleaks
writes its (JSON from gitleaks' TOML): what is compiled, skipped with which reason, and how each
kind of allowlist applies to text that has no file path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vaultctx.scrub import scrubber
from vaultctx.scrub.patterns import Rule, load_gitleaks_rules
from vaultctx.scrub.scrubber import _findings

CONFIG: dict[str, Any] = {
    "allowlist": {
        "paths": [r"(?i)\.png$"],
        "regexes": [r"^PLACEHOLDER\w*$"],
        "stopwords": ["NotASecretAtAll"],
    },
    "rules": [
        {"id": "path-only", "path": r"\.p12$"},
        {"id": "nested-set", "regex": r"acme_[[a-z]]{8}", "keywords": ["acme_"]},
        {
            "id": "acme-token",
            "regex": r"(?i)[\w.-]{0,40}?acme_tok(?:en)?\s*=\s*([A-Za-z0-9]{12,})",
            "keywords": ["ACME_TOK"],
            "entropy": 3,
            "allowlists": [
                {"condition": "AND", "paths": [r"\.env$"], "regexTarget": "line", "regexes": ["x"]},
                {"paths": [r"fixtures/"]},
                {"paths": [r"docs/"], "regexes": [r"^skipme"]},  # either may hold: kept
                {"regexTarget": "line", "regexes": [r"# not a secret"]},
                {"regexTarget": "match", "regexes": [r"^test[_.]"]},
                {"regexes": [r"^0{12}"], "stopwords": ["SAMPLEVALUE"]},
                {"stopwords": ["ExampleOnly"]},
            ],
        },
        {"id": "gamma-key", "regex": r"[\w.-]{0,20}?gamma_key=(\w{10})", "keywords": ["gamma_key"]},
        {
            "id": "beta-key",
            "regex": r"beta-([a-z]{4})-([A-Z0-9]{16})",
            "secretGroup": 2,
            "keywords": ["beta-"],
        },
        {"id": "jwt", "regex": r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", "keywords": ["eyJ"]},
    ],
}


@pytest.fixture
def loaded(tmp_path: Path) -> tuple[dict[str, Rule], Any, dict[str, str]]:
    """Loaded per test (it takes milliseconds), so each test sees a fresh load."""
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(CONFIG), encoding="utf-8")
    rules, global_allowlist, skipped = load_gitleaks_rules(path)
    return {rule.name: rule for rule in rules}, global_allowlist, skipped


def test_rules_python_cannot_run_are_skipped_with_the_reason(loaded: Any) -> None:
    rules, _, skipped = loaded
    assert set(rules) == {"acme-token", "gamma-key", "beta-key", "jwt"}
    assert skipped["path-only"] == "matches file paths only"
    assert skipped["nested-set"].startswith("Python re rejects it: ")
    assert "nested set" in skipped["nested-set"]


def test_keywords_entropy_and_the_lazy_left_context(loaded: Any) -> None:
    rules, _, _ = loaded
    acme: Rule = rules["acme-token"]
    assert acme.keywords == ("acme_tok",)
    assert (acme.entropy, rules["beta-key"].entropy) == (3.0, 0.0)
    # The leading lazy [\w.-]{0,40}? is dropped for speed and its reach remembered; the (?i)
    # before it is kept.
    assert acme.left_context == 40 and rules["beta-key"].left_context == 0
    assert acme.regex.pattern.startswith("(?i)") and "{0,40}" not in acme.regex.pattern
    assert rules["gamma-key"].left_context == 20
    assert rules["gamma-key"].regex.pattern == r"gamma_key=(\w{10})"
    assert acme.regex.search("ACME_TOKEN = a1B2c3D4e5F6") is not None


def test_secret_group_and_validators(loaded: Any) -> None:
    rules, _, _ = loaded
    assert rules["beta-key"].groups == (2,)
    assert rules["acme-token"].groups == (1,)
    assert len(rules["jwt"].validators) == 1 and rules["beta-key"].validators == ()


def test_go_semantics_of_word_classes(loaded: Any) -> None:
    rules, _, _ = loaded
    # RE2's \w and \s are ASCII: a Korean letter or a non-breaking space does not match them.
    assert rules["acme-token"].regex.search("acme_token\u00a0=\u00a0a1B2c3D4e5F6") is None


def test_only_allowlists_that_can_hold_without_a_path_are_kept(loaded: Any) -> None:
    rules, _, _ = loaded
    targets = [allowlist.target for allowlist in rules["acme-token"].allowlists]
    assert targets == ["secret", "line", "match", "secret", "secret"]


@pytest.mark.parametrize(
    ("secret", "match", "line", "allowed"),
    [
        ("a1B2c3D4e5F6", "acme_token = a1B2c3D4e5F6", "acme_token = a1B2c3D4e5F6", False),
        (
            "a1B2c3D4e5F6",
            "acme_token = a1B2c3D4e5F6",
            "x acme_token = a1B2c3D4e5F6 # not a secret",
            True,
        ),
        ("a1B2c3D4e5F6", "test_acme_token = a1B2c3D4e5F6", "test_acme_token = a1B2c3D4e5F6", True),
        ("000000000000x", "acme_token = 000000000000x", "acme_token = 000000000000x", True),
        ("xxSampleValuexx", "acme_token = xxSampleValuexx", "acme_token = xxSampleValuexx", True),
        ("SampleValue", "acme_token = SampleValue", "acme_token = SampleValue", True),
        ("SampleValu", "acme_token = SampleValu", "acme_token = SampleValu", False),
        ("skipme12345678", "acme_token = skipme12345678", "acme_token = skipme12345678", True),
        ("anExampleOnly1", "acme_token = anExampleOnly1", "acme_token = anExampleOnly1", True),
    ],
)
def test_each_allowlist_reads_its_target(
    loaded: Any, secret: str, match: str, line: str, allowed: bool
) -> None:
    rules, _, _ = loaded
    verdict = any(a.allows(secret, match, line) for a in rules["acme-token"].allowlists)
    assert verdict is allowed


def test_the_global_allowlist_reads_the_secret(loaded: Any) -> None:
    _, global_allowlist, _ = loaded
    assert global_allowlist.target == "secret"
    assert global_allowlist.allows("PLACEHOLDER_1", "k = PLACEHOLDER_1", "k = PLACEHOLDER_1")
    assert global_allowlist.allows("xnotasecretatallx", "k = x", "k = x")
    assert not global_allowlist.allows("a1B2c3D4e5F6", "PLACEHOLDER = a1B2c3D4e5F6", "PLACEHOLDER")


def test_a_config_without_a_global_allowlist(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    beta = next(rule for rule in CONFIG["rules"] if rule["id"] == "beta-key")
    path.write_text(json.dumps({"rules": [beta]}), encoding="utf-8")
    rules, global_allowlist, skipped = load_gitleaks_rules(path)
    assert [rule.name for rule in rules] == ["beta-key"] and skipped == {}
    assert global_allowlist.regexes == () and global_allowlist.stopwords == frozenset()
    assert not global_allowlist.allows("anything", "anything", "anything")


def test_a_rule_without_keywords_runs_on_every_text(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    rule = {"id": "delta-key", "regex": r"\bdelta_([a-z0-9]{12})\b"}
    path.write_text(json.dumps({"rules": [rule]}), encoding="utf-8")
    rules, _, skipped = load_gitleaks_rules(path)
    assert [(r.name, r.keywords) for r in rules] == [("delta-key", ())] and skipped == {}


def test_the_scrubber_compiles_a_config_without_gitleaks_generic_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our assignment rules borrow the allowlists of gitleaks' generic-api-key rule; a rule set
    without it (a trimmed or future gitleaks config) still compiles, to our rules without them."""
    path = tmp_path / "rules.json"
    beta = next(rule for rule in CONFIG["rules"] if rule["id"] == "beta-key")
    path.write_text(json.dumps({"rules": [beta]}), encoding="utf-8")
    monkeypatch.setattr(scrubber, "load_gitleaks_rules", lambda: load_gitleaks_rules(path))
    compiled = scrubber._compile()
    names = [rule.name for rule in compiled.rules]
    assert names[0] == "beta-key" and "password-assignment" in names
    assignment = next(rule for rule in compiled.rules if rule.name == "password-assignment")
    assert assignment.allowlists == ()


def test_the_entropy_limit_is_exclusive_and_a_weak_value_does_not_stop_the_next(
    loaded: Any,
) -> None:
    """gitleaks keeps a secret only above its rule's entropy: 16 characters of 8 symbols, each
    twice, hold exactly 3 bits; one more symbol is enough."""
    rule = loaded[0]["acme-token"]
    assert rule.entropy == 3

    def found(text: str) -> list[str]:
        return [text[f.start : f.end] for f in _findings(rule, rule.regex.finditer(text), text, ())]

    assert found("acme_token = abcdefghabcdefgh") == []
    assert found("acme_token = abcdefghabcdefgi") == ["abcdefghabcdefgi"]
    assert found("acme_token = aaaaaaaaaaaa\nacme_token = a1B2c3D4e5F6g7") == ["a1B2c3D4e5F6g7"]


def test_a_match_allowlist_sees_the_key_name_only_back_to_its_start(loaded: Any) -> None:
    """The rule's leading ``[\\w.-]{0,40}?`` was stripped for speed; the allowlist reading the
    match sees it rebuilt from the name characters just before the match, no further."""
    rule = loaded[0]["acme-token"]
    text = "see test_acme_token = a1B2c3D4e5F6g7"
    assert _findings(rule, rule.regex.finditer(text), text, ()) == []
