"""Matching index sites with live-server sites: properties over random spans, and the cases."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.service.site_match import Site, match_sites


def test_nested_calls_pair_with_the_smallest_site() -> None:
    index = [Site("outer", "a.py", 0, 12), Site("inner", "a.py", 2, 8)]
    live = [Site("t1", "a.py", 0, 1), Site("t2", "a.py", 2, 3), Site("t3", "b.py", 2, 3)]
    found = match_sites(index, live)
    assert set(found.pairs) == {("outer", "t1"), ("inner", "t2")}
    assert found.index_only == () and found.live_only == ("t3",)


def test_an_import_statement_holds_several_names_and_unmatched_index_sites_stay() -> None:
    index = [Site("imp", "m.py", 0, 31), Site("call", "m.py", 40, 50)]
    found = match_sites(index, [Site("a", "m.py", 19, 24), Site("b", "m.py", 26, 31)])
    assert found.pairs == (("imp", "a"), ("imp", "b")) and found.index_only == ("call",)


spans = st.tuples(st.sampled_from(["a.py", "b.py"]), st.integers(0, 40), st.integers(0, 10))


@given(st.lists(spans, max_size=12), st.lists(spans, max_size=12))
def test_every_site_is_accounted_for_once(index_raw, live_raw) -> None:  # type: ignore[no-untyped-def]
    index = [Site(("i", n), p, s, s + w) for n, (p, s, w) in enumerate(index_raw)]
    live = [Site(("l", n), p, s, s + w) for n, (p, s, w) in enumerate(live_raw)]
    found = match_sites(index, live)
    paired_live = [lk for _, lk in found.pairs]
    assert sorted(paired_live + list(found.live_only)) == sorted(s.key for s in live)
    assert len(set(paired_live)) == len(paired_live)
    paired_index = {ik for ik, _ in found.pairs}
    assert paired_index.isdisjoint(found.index_only)
    assert paired_index | set(found.index_only) == {s.key for s in index}
    spans_of = {s.key: s for s in index + live}
    for ik, lk in found.pairs:
        i, t = spans_of[ik], spans_of[lk]
        assert i.path == t.path and i.start <= t.start <= t.end <= i.end
        # no smaller index span also holds the live site
        assert not any(
            o.path == t.path
            and o.start <= t.start
            and t.end <= o.end
            and o.start < o.end
            and o.end - o.start < i.end - i.start
            for o in index
        )
    for lk in found.live_only:
        t = spans_of[lk]
        assert not any(
            o.path == t.path and o.start <= t.start and t.end <= o.end and o.start < o.end for o in index
        )
