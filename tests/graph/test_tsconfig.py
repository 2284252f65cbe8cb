"""The tsconfig/jsconfig path mapping (graph/tsconfig.py, pure)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.graph.tsconfig import PathMapping, mapped_bases, parse_config, strip_jsonc

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
def test_plain_json_is_left_as_it_is(value: object) -> None:
    """Strings that look like comments or trailing commas (`"// x"`, `"a,]"`) are not touched."""
    text = json.dumps(value)
    assert json.loads(strip_jsonc(text)) == value


def test_comments_and_trailing_commas_go() -> None:
    text = '{\n  // line\n  "a": "http://x", /* block\n */ "b": [1, 2,],\n}\n'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x", "b": [1, 2]}


def test_what_a_config_declares() -> None:
    assert parse_config("", b'{"compilerOptions": {"strict": true}}') is None
    assert parse_config("", b"{ not json") is None
    assert parse_config("", b"[]") is None
    mapping = parse_config(
        "web", b'{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"], "x": 3}}}'
    )
    assert mapping == PathMapping("web", ".", (("@/*", ("src/*",)),))


def test_the_nearest_config_and_the_longest_pattern_apply() -> None:
    configs = {
        "": PathMapping("", "src", (("@/*", ("*",)), ("@/ui/*", ("components/ui/*", "legacy/*")))),
        "pkg": PathMapping("pkg", None, (("lib", ("./vendor/lib.ts",)),)),
    }
    assert mapped_bases(configs, "src/main.ts", "@/ui/button") == [
        "src/components/ui/button",
        "src/legacy/button",
        "src/ui/button",
        "src/@/ui/button",
    ]
    assert mapped_bases(configs, "pkg/a.ts", "lib") == ["pkg/vendor/lib.ts"]  # no baseUrl: paths only
    assert mapped_bases(configs, "pkg/a.ts", "other") == []
    assert mapped_bases({"web": configs["pkg"]}, "src/a.ts", "lib") == []  # not under the config
    assert mapped_bases({"": PathMapping("", "..", ())}, "a.ts", "x") == []  # outside the tree
