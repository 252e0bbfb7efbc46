"""Korean words as BM25 should see them: Kiwi's content morphemes, particles and endings dropped.

``볼트를`` is one unicode61 token, so ``볼트`` never finds it. Kiwi (the optional ``kiwipiepy``
extra) splits it into 볼트/NNG + 를/JKO. We replace each Hangul stretch by its content morphemes
and copy everything else verbatim, so English, numbers and identifiers keep their own tokenizer.
On ko-autorag this measured nDCG@10 0.937 (0.943 with Korean question words dropped from
queries); appending the morphemes to the original words instead measured 0.926–0.930, because
the inflected forms only add noise (docs/benchmarks.md).

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


@lru_cache(maxsize=4096)  # sections and heading contexts repeat across a note's chunks
def content_morphemes(text: str) -> str:
    """``text`` with each Hangul stretch replaced by its content morphemes, space-separated.

    Kiwi analyses the whole text (context picks the right split); its tokens outside Hangul are
    ignored and the original characters copied instead, so ``SQLITE_LOCKED`` stays one phrase.
    """
    kiwi = _load_kiwi()
    with _use_lock:
        tokens = kiwi.tokenize(text)
    pieces: list[str] = []
    copied_to = 0
    for token in tokens:
        end = token.start + token.len
        if not HANGUL_RUN.search(text, token.start, end):
            continue
        if token.start > copied_to:
            pieces.append(text[copied_to : token.start])
        copied_to = max(copied_to, end)
        pieces.append(f" {token.form} " if _keeps(token.tag) else " ")
    pieces.append(text[copied_to:])
    return "".join(pieces)
