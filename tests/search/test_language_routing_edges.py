"""``route_question`` at its edges: an empty index, a share exactly at each threshold (English's
own, 15 %, and every other language's, 1 %), and a single chunk in another language."""

from __future__ import annotations

from vaultctx.search.language_routing import Route, route_question


def test_an_empty_index_routes_as_an_english_vault() -> None:
    assert route_question("en", {}) == Route(1.0, True, False, multilingual_foreign_only=True)
    assert route_question("ko", {}) == Route(1.0, False, True, multilingual_foreign_only=True)


def test_english_at_exactly_its_share_is_read() -> None:
    route = route_question("en", {"en": 3, "ko": 17})  # 15 % exactly
    assert route == Route(1.0, True, True, multilingual_foreign_only=True)


def test_another_language_at_exactly_one_percent_is_read() -> None:
    route = route_question("ko", {"ko": 1, "en": 99})
    assert route == Route(1.0, False, True, multilingual_foreign_only=True)
    # Under English's 15 % yet read: the bar for other languages is 1 %.
    assert route_question("ko", {"ko": 10, "en": 90}).keyword_scale == 1.0


def test_a_single_chunk_in_another_language_is_reached() -> None:
    route = route_question("en", {"ko": 1})
    assert route == Route(0.0, english_vectors=False, multilingual=True)
