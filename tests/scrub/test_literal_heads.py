"""``literal_heads``: the texts every match must start with. The scrubber runs a rule only where
one of them starts, so a head that is too long (or a prefix marked complete too early) would make
a rule skip real secrets; each case below stops a prefix at the first atom that is not a literal.
"""

from __future__ import annotations

from itertools import product

import pytest

from vaultctx.scrub.patterns import literal_heads


@pytest.mark.parametrize(
    ("pattern", "heads"),
    [
        (r"\x41bc", {"abc"}),  # a hex escape is its character, lowercased
        (r"a?b", {"ab", "b"}),
        (r"(?:ab|cd)e", {"abe", "cde"}),
        (r"(?:ab|c\w)x", {"ab", "c"}),  # one open branch ends the known prefix
        (r"(?:ab{2})c", {"ab"}),  # a repeated atom ends it too
        (r"(?:ab*)c", {"a"}),
        (r"(?:a\w)c", {"a"}),
        (r"xa*b", {"x"}),
        (r"x[^ab]c", {"x"}),  # a negated class, a range or a class escape is no literal
        (r"x[X-Z]c", {"x"}),
        (r"x[\S]c", {"x"}),
        (r"a[_.-]b", {"a_b", "a.b", "a-b"}),  # a hyphen at either end is a member
        (r"a[\-_]b", {"a-b", "a_b"}),  # and so is an escaped one
        (r"a\.b", {"a.b"}),  # an escaped punctuation mark is that character
        (r"a.b", {"a"}),  # any character
        (r"^AXb", {"axb"}),  # anchors match no text; letters are literals, lowercased
        (r"xa+b", {"xa"}),  # one or more: the known prefix ends after the first
        (r"xa{1}b", {"xab"}),  # counted repeats: exactly one is the atom itself
        (r"xa{1,}b", {"xa"}),
        (r"xa{0,1}b", {"xab", "xb"}),
        (r"xa{,1}b", {"xab", "xb"}),
        (r"xa??b", {"xab", "xb"}),  # a lazy marker changes nothing
        (r"xa?Xb", {"xaxb", "xxb"}),  # and is read only right after a quantifier
        (r"[x]y[z]", {"xyz"}),  # a class of one
        (r"[]a]b", {"]b", "ab"}),  # a leading "]" is a member, not the end of the class
        (r"[\]x]a", {"]a", "xa"}),  # and so is an escaped one anywhere
        (r"(?:a\|b|c)d", {"a|bd", "cd"}),  # an escaped "|" is text, not a branch
        (r"(?:[|]x|ab)c", {"|xc", "abc"}),  # and so is one inside a class
    ],
)
def test_heads_stop_at_the_first_atom_that_is_not_literal(pattern: str, heads: set[str]) -> None:
    assert literal_heads(pattern) == heads


def test_up_to_64_heads_are_listed() -> None:
    assert literal_heads("[ab]" * 6) == {"".join(p) for p in product("ab", repeat=6)}
    assert literal_heads("[ab]" * 6 + "[cd]") is None  # 128: too many to be worth it


@pytest.mark.parametrize("pattern", [r"a(?#note)b", r"(?P<n>a)(?P=n)b", r"ab(?(1)c|d)"])
def test_a_group_it_does_not_know_makes_the_heads_unknown(pattern: str) -> None:
    """A comment, a backreference or a conditional is not read as literal text."""
    assert literal_heads(pattern) is None
