"""The tsconfig/jsconfig path mapping (graph/tsconfig.py, pure)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.graph.tsconfig import (
    MAX_EXTENDS,
    ConfigFile,
    PathMapping,
    effective_mappings,
    is_config_name,
    mapped_bases,
    read_config_file,
    strip_jsonc,
)


def _mappings(files: dict[str, str]) -> dict[str, PathMapping]:
    read = {p: read_config_file(p, t.encode()) for p, t in files.items()}
    return effective_mappings({p: c for p, c in read.items() if c is not None})


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
    assert _mappings({"tsconfig.json": '{"compilerOptions": {"strict": true}}'}) == {}
    assert read_config_file("tsconfig.json", b"{ not json") is None
    assert read_config_file("tsconfig.json", b"[]") is None
    assert read_config_file("tsconfig.json", b'{"extends": 3}') == ConfigFile("tsconfig.json", (), None, None)
    mapping = _mappings(
        {"web/tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"], "x": 3}}}'}
    )
    assert mapping == {"web": PathMapping("web", "web", (("@/*", ("src/*",)),), "web")}
    root = _mappings({"tsconfig.json": '{"compilerOptions": {"baseUrl": "./"}}'})
    assert root == {"": PathMapping("", "", (), "")}  # the tree's root, declared
    assert is_config_name("tsconfig.base.json") and is_config_name("jsconfig.json")
    assert not is_config_name("package.json") and not is_config_name("tsconfig.txt")


def test_the_nearest_config_and_the_longest_pattern_apply() -> None:
    configs = {
        "": PathMapping("", "src", (("@/*", ("*",)), ("@/ui/*", ("components/ui/*", "legacy/*"))), ""),
        "pkg": PathMapping("pkg", None, (("lib", ("./vendor/lib.ts",)),), "pkg"),
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
    assert mapped_bases({"": PathMapping("", "..", (), "")}, "a.ts", "x") == []  # outside the tree


def test_extends_inherits_what_a_config_does_not_declare() -> None:
    """The compiler's rules: a base's baseUrl stays relative to the base; inherited paths resolve
    against that baseUrl, or without one against the directory of the config that declared them;
    the config's own options win; a list of bases, later ones winning; `.json` may be left out."""
    files = {
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": "src", "paths": {"@/*": ["app/*"]}}}',
        "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
        "apps/api/tsconfig.json": (
            '{"extends": "../../tsconfig.base", "compilerOptions": {"paths": {"#/*": ["lib/*"]}}}'
        ),
        "libs/paths.json": '{"compilerOptions": {"paths": {"@x": ["x.ts"]}}}',
        "libs/tsconfig.paths.json": '{"compilerOptions": {"paths": {"@x": ["y.ts"]}}}',
        "libs/ui/tsconfig.json": '{"extends": ["../tsconfig.paths.json", "./nothing.json"]}',
        "pkg/tsconfig.json": '{"extends": "@tsconfig/node18/tsconfig.json"}',
    }
    got = _mappings(files)
    assert mapped_bases(got, "apps/web/main.ts", "@/core") == ["src/app/core", "src/@/core"]
    # its own paths replace the base's; the base's baseUrl still applies, as the compiler has it
    assert mapped_bases(got, "apps/api/main.ts", "#/db") == ["src/lib/db", "src/#/db"]
    assert mapped_bases(got, "apps/api/main.ts", "@/core") == ["src/@/core"]
    # no baseUrl: paths resolve against the directory of the base that declared them
    assert mapped_bases(got, "libs/ui/button.ts", "@x") == ["libs/y.ts"]
    assert "pkg" not in got  # a package base (node_modules) maps nothing here
    assert "" not in got  # tsconfig.base.json applies to nothing by itself


def test_extends_cycles_and_long_chains_stop() -> None:
    cyclic = {
        "a/tsconfig.json": '{"extends": "../b/tsconfig.json"}',
        "b/tsconfig.json": '{"extends": "../a/tsconfig.json", "compilerOptions": {"baseUrl": "."}}',
    }
    got = _mappings(cyclic)
    assert got["a"].base_url == "b" and got["b"].base_url == "b"
    chain = {f"c{i}/tsconfig.json": f'{{"extends": "../c{i + 1}/tsconfig.json"}}' for i in range(20)}
    chain["c20/tsconfig.json"] = '{"compilerOptions": {"baseUrl": "."}}'
    got = _mappings(chain)
    assert got["c20"].base_url == "c20"
    assert f"c{20 - MAX_EXTENDS + 1}" in got and f"c{20 - MAX_EXTENDS}" not in got
