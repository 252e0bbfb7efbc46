"""Korean words as BM25 should see them: Kiwi's content morphemes, particles and endings dropped.

``볼트를`` is one unicode61 token, so ``볼트`` never finds it. Kiwi (the optional ``kiwipiepy``
extra) splits it into 볼트/NNG + 를/JKO. We replace each Hangul stretch by its content morphemes
and copy everything else verbatim, so English, numbers and identifiers keep their own tokenizer.
On ko-autorag this measured nDCG@10 0.937 (0.943 with Korean question words dropped from
queries); appending the morphemes to the original words instead measured 0.926–0.930, because
the inflected forms only add noise (docs/benchmarks.md).

Kiwi also splits compound nouns (시중은행 → 시중 + 은행), so a question naming 시중은행 scored a
page about 지방은행 and 인터넷 뱅킹 as high as one about 시중은행 itself. Each run of nouns written
as one word is therefore also kept whole, after its parts (``시중 은행 시중은행``): the parts still
match the compound split or spaced differently, and the whole word ranks the pages that use the
compound itself first. This is what Lucene's Korean analyser (Nori) calls ``mixed`` decompounding.
On ko-autorag: nDCG@10 0.9433 → 0.9514; no other Korean set lost (docs/benchmarks.md, "Korean
compound nouns kept whole").

Kiwi costs ~2 s and ~330 MB to load, so it is loaded once per process, on the first text with
Hangul, and never for Hangul-free text.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from vaultctx.config import ConfigError
from vaultctx.text.cjk import HANGUL_RUN

# Particles (J*), endings (E*), symbols (S*), Kiwi's split-off codas (Z_*), the copula and the
# suffixes that make verbs and adjectives of nouns (설정/NNG + 하/XSV): grammar, not content.
_DROPPED_TAG_PREFIXES = ("J", "E", "S", "Z")
_DROPPED_TAGS = frozenset({"VCP", "XSV", "XSA", "XSM"})
_INSTALL_HINT = "pip install 'vaultctx[ko]'"
# Kiwi's noun tags (NNG common, NNP proper, NNB bound: 시중/NNG 은행/NNG; 2024년's 년/NNB).
_NOUN_TAG = "NN"


class KoreanAnalyzerError(ConfigError):
    """Kiwi was asked for but cannot run; the suggestion names the fix."""


class _Token(Protocol):
    form: str
    tag: str
    start: int
    len: int


class _Kiwi(Protocol):
    def tokenize(self, text: str) -> list[_Token]: ...


_load_lock = threading.Lock()
# Kiwi does not document its tokenizer as thread-safe; the calls are short, so serialise them.
_use_lock = threading.Lock()
_kiwi: _Kiwi | None = None


def kiwi_installed() -> bool:
    """Whether Kiwi can be used, found without importing it (importing and loading cost)."""
    return (
        importlib.util.find_spec("kiwipiepy") is not None
        and importlib.util.find_spec("kiwipiepy_model") is not None
    )


def kiwi_version() -> str:
    """Read from the package's own ``_version.py`` (one small file): every index run asks, the
    no-op too, and ``importlib.metadata`` scans all installed distributions for it (~20 ms).
    The metadata stays the answer when that file is not there or says something else."""
    spec = importlib.util.find_spec("kiwipiepy")
    if spec is not None and spec.origin:
        try:
            with open(Path(spec.origin).with_name("_version.py"), encoding="utf-8") as handle:
                found = _VERSION_LINE.search(handle.read(4096))
        except (OSError, UnicodeDecodeError):
            found = None
        if found:
            return found.group(1)
    from importlib.metadata import version

    return version("kiwipiepy")


_VERSION_LINE = re.compile(r"""^__version__\s*=\s*['"]([0-9][0-9A-Za-z.+-]*)['"]""", re.MULTILINE)


def kiwi_loaded() -> bool:
    """Whether this process has paid for loading Kiwi (tests check it stays False for English)."""
    return _kiwi is not None


def _load_kiwi() -> _Kiwi:
    global _kiwi
    with _load_lock:
        if _kiwi is None:
            try:
                module = importlib.import_module("kiwipiepy")
                # The multi-word dictionary costs +4 s and +190 MB and measured the same nDCG.
                kiwi: _Kiwi = module.Kiwi(load_multi_dict=False)
                kiwi.tokenize("")  # Kiwi finishes loading its model on first use
            except Exception as exc:
                raise KoreanAnalyzerError(
                    f"kiwipiepy could not load its model ({exc})",
                    f"reinstall it with `{_INSTALL_HINT}`, or set VAULTCTX_KOREAN_ANALYZER=ngram",
                ) from exc
            _kiwi = kiwi
        return _kiwi


def _keeps(tag: str) -> bool:
    return not tag.startswith(_DROPPED_TAG_PREFIXES) and tag.split("-")[0] not in _DROPPED_TAGS


class _Compound:
    """The nouns of one word as Kiwi splits them (시중 + 은행), to be kept whole as well."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.end = -1

    def continued_by(self, token: _Token) -> bool:
        """Whether ``token`` is a noun written right after the last one (no space between)."""
        return token.start == self.end and token.tag.startswith(_NOUN_TAG)

    def extend(self, token: _Token, end: int) -> None:
        if token.tag.startswith(_NOUN_TAG):
            self.parts.append(token.form)
            self.end = end

    def flush(self, pieces: list[str]) -> None:
        """Append the whole compound (only for two or more nouns) and start a new one."""
        if len(self.parts) > 1:
            pieces.append(f" {''.join(self.parts)} ")
        self.parts.clear()
        self.end = -1


@lru_cache(maxsize=4096)  # sections and heading contexts repeat across a note's chunks
def content_morphemes(text: str) -> str:
    """``text`` with each Hangul stretch replaced by its content morphemes, space-separated, and
    each compound noun also whole after its parts (see the module docstring).

    Kiwi analyses the whole text (context picks the right split); its tokens outside Hangul are
    ignored and the original characters copied instead, so ``SQLITE_LOCKED`` stays one phrase.
    """
    kiwi = _load_kiwi()
    with _use_lock:
        tokens = kiwi.tokenize(text)
    pieces: list[str] = []
    compound = _Compound()
    copied_to = 0
    for token in tokens:
        end = token.start + token.len
        if not HANGUL_RUN.search(text, token.start, end):
            compound.flush(pieces)
            continue
        if token.start > copied_to:
            pieces.append(text[copied_to : token.start])
        if not compound.continued_by(token):
            compound.flush(pieces)
        copied_to = max(copied_to, end)
        pieces.append(f" {token.form} " if _keeps(token.tag) else " ")
        compound.extend(token, end)
    compound.flush(pieces)
    pieces.append(text[copied_to:])
    return "".join(pieces)
