"""Small real models made by the tests: an ONNX embedding-table model with a word-level tokenizer.

The graph is ``Gather(table, input_ids)`` -> token vectors ``[batch, seq, dim]``; the provider mean-pools
them. It runs in the real onnxruntime with a real ``tokenizers`` tokenizer, in milliseconds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

WORDS = (
    "def class return self request session send hook hooks register redirect resolve parse config "
    "value error list dict read write file path json load save open close data user name"
)
VOCAB = ["[PAD]", "[UNK]", *sorted(set(WORDS.split()))]

need_onnx = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("onnx", "onnxruntime", "tokenizers")),
    reason="onnx, onnxruntime and tokenizers are not installed (installed by .ci/dense-install.sh)",
)


def make_onnx_model(directory: Path, dim: int, seed: int) -> Path:
    """Write ``model.onnx`` and ``tokenizer.json`` for a ``dim``-dimensional embedding table."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers

    directory.mkdir(parents=True, exist_ok=True)
    table = np.random.default_rng(seed).standard_normal((len(VOCAB), dim)).astype(np.float32)
    table[0] = 0.0
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)],
        "embedding_table",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", dim])],
        [numpy_helper.from_array(table, "table")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(directory / "tokenizer.json"))
    return directory
