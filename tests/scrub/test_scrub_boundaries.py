"""The scrubber at its decision boundaries: each case is the smallest change that flips a verdict
(one character of length, one bit of entropy, one line, one letter's case), so a rule that drifts
by one step fails here. Values are made up for the test; none is a real credential.

Vendor-shaped tokens that only vaultctx's own rules catch (gitleaks' rules need a vendor keyword
nearby or a fixed length) check those rules under their own names.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string

import pytest

from vaultctx.scrub import compiled_rules, scrub_secrets
from vaultctx.scrub.patterns import (
    PRIORITY_ASSIGNMENT,
    PRIORITY_GENERIC,
    PRIORITY_STRUCTURAL,
    PRIORITY_VENDOR,
    compile_go_regex,
    shannon_entropy,
    translate_go_regex,
)
from vaultctx.scrub.scrubber import _Finding, _redact

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
VALUE = "a8Fk3Lm9Qz2Xv7TbQw1"  # 19 characters, mixed: plausible for every assignment rule


def fake(alphabet: str, length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def b64url_json(value: dict[str, object]) -> str:
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def scrubbed(text: str) -> str:
    return scrub_secrets(text).text


# --- shapes only vaultctx's own rules catch ----------------------------------------------------

MAILCHIMP = fake(HEX, 32, 1)
TEST_PYPI = "pypi-AgENdGVzdC5weXBpLm9yZw" + fake(ALNUM, 60, 2)
OPENAI_30_30 = f"sk-{fake(ALNUM, 30, 3)}T3BlbkFJ{fake(ALNUM, 30, 4)}"
UNSIGNED_JWT = f"{b64url_json({'alg': 'none'})}.{b64url_json({'sub': '1234567890'})}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key {MAILCHIMP}-us12 end", "key [REDACTED:mailchimp-api-key]-us12 end"),
        (f"id Q{MAILCHIMP}-us12 end", f"id Q{MAILCHIMP}-us12 end"),  # part of a longer word
        (f"upload with {TEST_PYPI}", "upload with [REDACTED:pypi-upload-token]"),
        (f"k {OPENAI_30_30} end", "k [REDACTED:openai-api-key] end"),
        (f"t {UNSIGNED_JWT} end", "t [REDACTED:jwt] end"),
        # a JWT assigned to a password is named by the more specific rule
        (f"password = {UNSIGNED_JWT}", "password = [REDACTED:jwt]"),
        # The shortest Artifactory shapes detect-secrets knows (AKC + 10, AP + hex digit + 8):
        # with every character distinct they still hold under 4 bits of entropy.
        ("X-JFrog-Art-Api: AKC7qL2mX9pR4", "X-JFrog-Art-Api: [REDACTED:artifactory-credential]"),
        (
            "<password>AP3k9Qm2xLw</password>",
            "<password>[REDACTED:artifactory-credential]</password>",
        ),
        # A random CI job token whose letters happen to repeat (3.86 bits): gitleaks has no rule
        # for this shape, so ours must not ask for more entropy than random tokens can have.
        ("job glcbt-egqyiidbZlKczddtZgmFi ok", "job [REDACTED:gitlab-token] ok"),
        # A filler after a vendor prefix is no credential (as ghp_xxxx…).
        ("secret sq0csp-" + "x" * 43 + " end", "secret sq0csp-" + "x" * 43 + " end"),
    ],
)
def test_shapes_only_our_rules_know(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


def test_every_rule_names_a_marker_that_later_passes_leave_alone() -> None:
    """A marker is recognised by its shape, ``[REDACTED:`` and a lowercase name, so a rule named
    otherwise would leave markers a second pass (the indexer, then an output path) scrubs into."""
    for rule in compiled_rules().rules:
        assert re.fullmatch(r"[a-z0-9-]+", rule.name), rule.name
        marked = f"password = [REDACTED:{rule.name}] and password = [REDACTED:{rule.name}]x9Tq2zzz"
        assert scrubbed(marked) == marked


# --- structural rules' plausibility checks -----------------------------------------------------


def test_a_jwt_needs_a_json_header() -> None:
    look_alike = f"eyJ{fake(ALNUM, 10, 1)}.ey{fake(ALNUM, 10, 2)}"
    assert scrubbed(f"x: {look_alike}") == f"x: {look_alike}"
    header = b64url_json({"alg": "HS256", "xy": 1})
    assert len(header) % 4 == 2  # decoding needs two "=" of padding put back
    assert scrubbed(f"x: {header}.{b64url_json({'sub': 'ada'})}") == "x: [REDACTED:jwt]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bearer abcdefg1abcdefg1", "Bearer [REDACTED:bearer-token]"),  # exactly 3.0 bits
        ("Bearer abcdefg1abcdefg", "Bearer abcdefg1abcdefg"),  # just under 3.0 bits
        ("bearer abcdefghijklmnop", "bearer abcdefghijklmnop"),  # a word, however varied
        ("Bearer your_token_here_123", "Bearer your_token_here_123"),  # a stand-in
        ("Authorization: abcdefg1", "Authorization: [REDACTED:authorization-header]"),
        ("Authorization: Token abcdefgh", "Authorization: Token abcdefgh"),
    ],
)
def test_bearer_and_authorization_values_must_look_random(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


@pytest.mark.parametrize(
    ("password", "redacted"),
    [
        ("12345", False),  # a port: host:12345@ is not a password
        ("123456", True),
        ("pw9Xz", True),
        ("changeme", False),
        ("secretpw", True),
        ("00000000", True),  # a weak password is a password still
    ],
)
def test_url_credentials(password: str, redacted: bool) -> None:
    for host in ("db.internal", "Db.internal"):
        text = f"url https://user:{password}@{host}/x"
        expected = f"url https://user:[REDACTED:url-credentials]@{host}/x" if redacted else text
        assert scrubbed(text) == expected


END = "-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"prose\nAbCdEfGh1234567\n{END}", f"prose\nAbCdEfGh1234567\n{END}"),  # 15 chars
        (f"prose\nAbCdEfGh12345678\n{END}", "[REDACTED:private-key]"),  # 16 chars
        (f"prose\nAbCdEfGh12345678\n  \t{END}", "[REDACTED:private-key]"),
        (f"\nAbCdEfGh12345678\n{END}", "\n[REDACTED:private-key]"),
        (
            f"x\nAbCdEfGh12345678\nnot key: line\nQWERTYUIOPasdfghjkl\n{END}\nafter",
            "x\nAbCdEfGh12345678\nnot key: line\n[REDACTED:private-key]\nafter",
        ),
        # an END marker in prose does not hide a key tail further on
        (
            f"a stray {END} in prose\nAbCdEfGh12345678\n{END}",
            f"a stray {END} in prose\n[REDACTED:private-key]",
        ),
        # a chunk that starts inside the key, whatever follows the END line
        (f"AbCdEfGh12345678\n{END}\nthanks\n", "[REDACTED:private-key]\nthanks\n"),
    ],
)
def test_a_key_whose_begin_was_cut_off(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


# --- assignment rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # length: 6 for a password, 12 for a secret or token, 16 for an API key
        ("password = k9Tq2z", "password = [REDACTED:password-assignment]"),
        ("password = k9Tq2", "password = k9Tq2"),
        ("secret = a8Fk3Lm9Qz2X", "secret = [REDACTED:secret-assignment]"),
        ("secret = a8Fk3Lm9Qz2", "secret = a8Fk3Lm9Qz2"),
        ("api_key = a8Fk3Lm9Qz2Xv7Tb", "api_key = [REDACTED:api-key-assignment]"),
        # the value repeats the key's own name
        ("db_pass2=DB_PASS2", "db_pass2=DB_PASS2"),
        ("set db_pass2=DB_PASS2", "set db_pass2=DB_PASS2"),
        ("--db-pass2 db-pass2", "--db-pass2 db-pass2"),
        ("--db-pass2 db-pass3", "--db-pass2 [REDACTED:password-assignment]"),
        # values that are not secrets
        ("password = abcdefgh", "password = abcdefgh"),
        ("password = ~abcdefgh~", "password = ~abcdefgh~"),
        ("password = 12345678", "password = 12345678"),
        ("password = ab\\cd1234", "password = ab\\cd1234"),
        ("password = EXAMPLE_KEY2x", "password = EXAMPLE_KEY2x"),
        ('DB_PASSWORD="CHANGE_ME"', 'DB_PASSWORD="CHANGE_ME"'),  # stand-ins in capitals too
        ("password = YOUR_PASSWORD_HERE", "password = YOUR_PASSWORD_HERE"),
        # where the key word sits in the name
        ("pwd = k9Tq2zzz", "pwd = [REDACTED:password-assignment]"),
        ("dbpassword = k9Tq2zzz", "dbpassword = [REDACTED:password-assignment]"),
        ("dbPASS = k9Tq2zzz", "dbPASS = [REDACTED:password-assignment]"),
        ("DbPass = k9Tq2zzz", "DbPass = [REDACTED:password-assignment]"),
        ("passwordV2 = k9Tq2zzz", "passwordV2 = [REDACTED:password-assignment]"),
        ("APIKEY = a8Fk3Lm9Qz2Xv7Tb", "APIKEY = [REDACTED:api-key-assignment]"),
        ("bypass = k9Tq2zzz", "bypass = k9Tq2zzz"),
        ("passwordless = k9Tq2zzz", "passwordless = k9Tq2zzz"),
        ("password_file = k9Tq2zzz", "password_file = k9Tq2zzz"),
        ("public_key = a8Fk3Lm9Qz2Xv7TbQw", "public_key = a8Fk3Lm9Qz2Xv7TbQw"),
        ("csrf_token = a8Fk3Lm9Qz2Xv7TbQw", "csrf_token = a8Fk3Lm9Qz2Xv7TbQw"),
        # only the key's own name counts, not a word earlier in the text
        (
            "Notes on the csrf middleware and the login form, kept here for the team.\n"
            "service_token = a8Fk3Lm9Qz2Xv7TbQw",
            "Notes on the csrf middleware and the login form, kept here for the team.\n"
            "service_token = [REDACTED:token-assignment]",
        ),
        # a bare space is an operator only after a --flag, before a value that is not a flag
        ("the token a8Fk3Lm9Qz2Xv7Tb is", "the token a8Fk3Lm9Qz2Xv7Tb is"),
        ("--password k9Tq2zzz", "--password [REDACTED:password-assignment]"),
        ("--password -k9Tq2zzz", "--password -k9Tq2zzz"),
    ],
)
def test_assignments(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


def test_a_rejected_value_does_not_stop_the_next_one() -> None:
    assert scrubbed("password = abc\npassword = k9Tq2zzz") == (
        "password = abc\npassword = [REDACTED:password-assignment]"
    )
    assert scrubbed(f"author_token = {VALUE}\ntoken = {VALUE}") == (
        f"author_token = {VALUE}\ntoken = [REDACTED:token-assignment]"
    )


# --- gitleaks' allowlists, as the scrubber applies them -----------------------------------------

MOUNT = "RUN --mount=type=secret,id=x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # generic-api-key's "match" allowlist sees the name before the keyword (author_token)
        (f"author_token = {VALUE}", f"author_token = {VALUE}"),
        (f"x author_token = {VALUE}", f"x author_token = {VALUE}"),
        (f"token = {VALUE}", "token = [REDACTED:token-assignment]"),
        # its "line" allowlist (a Docker secret mount) holds on the secret's own line only
        (f"{MOUNT} api_token = {VALUE}", f"{MOUNT} api_token = {VALUE}"),
        (f"api_token = {VALUE} {MOUNT}", f"api_token = {VALUE} {MOUNT}"),
        (f"{MOUNT} api_token = {VALUE}\nnext", f"{MOUNT} api_token = {VALUE}\nnext"),
        (f"first\n--mount=type=secret,id=x api_token = {VALUE}", None),
        (f"{MOUNT}\napi_token = {VALUE}", f"{MOUNT}\napi_token = [REDACTED:token-assignment]"),
        (f"api_token = {VALUE}\n{MOUNT}", f"api_token = [REDACTED:token-assignment]\n{MOUNT}"),
        # the line is the match's own, however many lines come before or after it
        (
            f"api_token = {VALUE}\n{MOUNT}\nnext",
            f"api_token = [REDACTED:token-assignment]\n{MOUNT}\nnext",
        ),
        (
            f"intro\n{MOUNT}\napi_token = {VALUE}",
            f"intro\n{MOUNT}\napi_token = [REDACTED:token-assignment]",
        ),
    ],
)
def test_allowlists_read_the_right_text(text: str, expected: str | None) -> None:
    assert scrubbed(text) == (text if expected is None else expected)


# --- redaction mechanics -----------------------------------------------------------------------


def test_a_fixed_length_vendor_token_is_redacted_to_its_end() -> None:
    token = "ghp_" + fake(ALNUM, 36, 7) + "Z"  # one character longer than the format
    assert scrubbed(f"{token} tail") == "[REDACTED:github-pat] tail"


def test_existing_markers() -> None:
    glued = "password=[REDACTED:password-assignment]x9Tq2zzz"
    assert scrubbed(glued) == glued
    assert scrubbed("password: k9Tq2zzz [REDACTED:password-assignment]") == (
        "password: [REDACTED:password-assignment] [REDACTED:password-assignment]"
    )


def test_overlapping_findings_become_one_marker_to_their_furthest_end() -> None:
    """Findings overlapping the first are one redaction, up to the end of whichever reaches
    furthest, named after the most specific rule; a finding that starts where another ends is
    a secret of its own."""
    text = "0123456789abcdefghij tail"
    findings = [
        _Finding(0, 6, "generic-api-key", PRIORITY_GENERIC),
        _Finding(2, 8, "github-pat", PRIORITY_VENDOR),
        _Finding(4, 12, "token-assignment", PRIORITY_ASSIGNMENT),
        _Finding(12, 20, "jwt", PRIORITY_STRUCTURAL),
    ]
    result = _redact(text, findings)
    assert result.text == "[REDACTED:github-pat][REDACTED:jwt] tail"
    assert result.counts == {"github-pat": 1, "jwt": 1}


def test_offsets_survive_a_letter_that_lowercases_to_two() -> None:
    token = "ghp_" + fake(ALNUM, 36, 8)
    assert "İ".lower() != "i" and len("İ".lower()) == 2
    assert scrubbed(f"İ {token}") == "İ [REDACTED:github-pat]"
    assert scrubbed("İ PASSWORD = k9Tq2zzz") == "İ PASSWORD = [REDACTED:password-assignment]"


# --- the pieces ----------------------------------------------------------------------------------


def test_shannon_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("ab") == 1.0
    assert shannon_entropy("abcdefgh") == 3.0
    assert shannon_entropy("aab") == pytest.approx(0.9182958340544896)


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        # the flag holds to the end of its enclosing group, across the group's later branches
        (r"x(?:y(?i)(?:a|b)c|d)e", ["xyAce", "xyBCe", "xDe", "xde"], ["Xyace", "xYace", "xyacE"]),
        (r"a(?i)b(?:c|d)(e)|f", ["aBDE", "abce", "F"], ["Abce", "abc"]),
        (r"x(?:(?i)(?:a(?:b|c))d|e)f", ["xABDf", "xEf", "xacdf"], ["XAbdf", "xabdF"]),
        (r"a(?i)[^b]|[c]", ["aX", "C"], ["B", "aB"]),  # a "|" after a negated class
    ],
)
def test_a_mid_pattern_flag_keeps_go_scope(
    pattern: str, matches: list[str], misses: list[str]
) -> None:
    regex = compile_go_regex(pattern)
    assert [text for text in matches + misses if regex.fullmatch(text)] == matches


def test_dot_plus_and_dot_star_are_bounded() -> None:
    assert translate_go_regex(r"a.+b.*c") == r"a.{1,1000}b.{0,1000}c"


def test_posix_classes_are_spelled_out_class_by_class() -> None:
    assert translate_go_regex(r"[[:alpha:]_].*[[:digit:]]x.*") == (
        r"[a-zA-Z_].{0,1000}[0-9]x.{0,1000}"
    )
    assert translate_go_regex(r"x[[:alpha:][:digit:]]") == "x[a-zA-Z0-9]"


def test_compiling_the_rules_is_timed() -> None:
    assert 0 < compiled_rules().compile_seconds < 60
