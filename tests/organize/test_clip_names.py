"""A clip's file name and heading come from a hostile page title: whatever it holds, the name is
one plain file name inside the clip folder."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.organize.clip import NAME_BYTES, TITLE_CHARS, clean_title, note_file_stem

HOSTILE = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('./\\:*?"<>|#^[]\x00\x01\x1f\x7f \t\n\r-~')),
        st.characters(),
    ),
    max_size=400,
)


@settings(max_examples=400, deadline=None)
@given(HOSTILE)
def test_any_title_makes_one_plain_name(title: str) -> None:
    stem = note_file_stem(title)
    name = f"{stem} 999.md"
    assert stem and stem == stem.strip()
    assert not stem.startswith(".") and ".." not in stem
    assert not any(c in stem for c in '/\\:*?"<>|#^[]')
    assert not any(unicodedata.category(c) == "Cc" for c in stem)
    assert len(stem) <= TITLE_CHARS
    assert len(name.encode("utf-8")) <= NAME_BYTES


@settings(max_examples=200, deadline=None)
@given(HOSTILE)
def test_any_title_makes_one_inert_heading_line(title: str) -> None:
    heading = clean_title(title)
    assert "\n" not in heading and "\r" not in heading
    assert re.search(r"<[A-Za-z/!?%]", heading) is None
    assert "[[" not in heading


def test_long_titles_are_cut_and_names_stay_short_in_bytes() -> None:
    assert note_file_stem("word " * 100) == ("word " * 16).strip()
    cjk = note_file_stem("漢" * 200)
    assert len(cjk) <= TITLE_CHARS and len((cjk + " 999.md").encode()) <= NAME_BYTES
    assert note_file_stem("") == "Web clip"
    assert note_file_stem("...") == "Web clip"
    assert note_file_stem("nul.txt") == "Web clip nul.txt"
