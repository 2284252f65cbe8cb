import gc
import tracemalloc

from lazy_intel.text import tokens
from lazy_intel.text.tokens import WORD_CACHE_MAX, index_text


def test_the_word_cache_stays_bounded_while_new_identifiers_keep_arriving() -> None:
    # a long-running server meets new identifiers with every edit: what the tokenizer remembers
    # must not grow with them (120,000 distinct words once held some 70 MB)
    tokens._word_text.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(60_000):
            index_text(f"edit_marker_{n} Worker{n}")
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert retained < 8_000_000, f"{retained / 1e6:.1f} MB retained after 120,000 distinct words"
    assert WORD_CACHE_MAX * 200 < 8_000_000  # the bound itself fits the budget above


def test_cached_words_give_the_same_tokens() -> None:
    first = index_text("getUserName HTTPServerError max_retries")
    assert first == "getusername get user name httpservererror http server error max_retries max retries"
    assert index_text("getUserName HTTPServerError max_retries") == first
