"""Non-UTF-8 sources keep their names (issue 18, class 6).

A property test writes definitions whose names hold non-ASCII letters in every way a file can be
encoded — a PEP 263 / Ruby magic comment (Latin-1, cp1252, ISO-8859-15), a UTF-8 byte-order mark,
plain UTF-8, and undeclared Latin-1 — and checks that every definition, call and import comes out
under its real name, with name spans that are exact bytes of the file. Through the whole service:
``café_func`` in a Latin-1 file is found by that name (symbol and search) and its anchor is exact.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.parse.encoding import declared_encoding, source_codec
from lazy_intel.parse.extract import extract_facts
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree

LETTERS = "abcxyzéèêàçüöñßøå"
CJK = "abc中文函数数据"

ENCODINGS = [
    ("latin-1", b"# -*- coding: latin-1 -*-\n"),
    ("cp1252", b"# vim: set fileencoding=cp1252 :\n"),
    ("iso8859-15", b"#!/usr/bin/env python\n# coding=iso-8859-15\n"),
    ("ruby-style", b"# encoding: latin-1\n"),
    ("utf-8-bom", codecs.BOM_UTF8),
    ("utf-8", b""),
    ("undeclared latin-1", b""),
    ("gbk", b"# -*- coding: gbk -*-\n"),
    ("euc-jp", b"# coding: euc-jp\n"),
    ("utf-8 with a stray byte", b"# \xff\n"),
]
MULTI_BYTE = {"gbk", "euc-jp"}


def _encode(text: str, how: str) -> bytes:
    codec = {
        "latin-1": "latin-1",
        "cp1252": "cp1252",
        "iso8859-15": "iso8859-15",
        "ruby-style": "latin-1",
        "utf-8-bom": "utf-8",
        "utf-8": "utf-8",
        "undeclared latin-1": "latin-1",
        "gbk": "gbk",
        "euc-jp": "euc-jp",
        "utf-8 with a stray byte": "utf-8",
    }[how]
    return text.encode(codec)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], tuple[str, bytes]]:
    which = draw(st.sampled_from(ENCODINGS))
    alphabet = CJK if which[0] in MULTI_BYTE else LETTERS
    names = st.text(alphabet=alphabet, min_size=1, max_size=8).map(lambda s: "f_" + s)
    return draw(st.lists(names, min_size=1, max_size=4, unique=True)), which


@settings(max_examples=80, derandomize=True, deadline=None)
@given(case=cases())
def test_names_survive_every_encoding(case: tuple[list[str], tuple[str, bytes]]) -> None:
    names, (how, header) = case
    body = "".join(f"def {name}(x):\n    return {names[0]}(x)\n\n\n" for name in names)
    body += f"from pkg.{names[-1]} import {names[-1]}\n"
    source = header + _encode(body, how)
    facts = extract_facts("m.py", "python", source)
    assert facts.error is None
    assert [s.name for s in facts.symbols] == names
    for symbol in facts.symbols:  # spans are exact bytes of the file
        assert source[symbol.name_start_byte : symbol.name_end_byte] == _encode(symbol.name, how)
    calls = {r.name for r in facts.references if r.kind == "call"}
    assert names[0] in calls, calls
    assert any(i.module == f"pkg.{names[-1]}" and i.name == names[-1] for i in facts.imports), facts.imports


def test_what_the_declaration_decides() -> None:
    assert declared_encoding(b"# -*- coding: latin-1 -*-\nx = 1\n") == "iso8859-1"
    assert declared_encoding(b"#!/bin/sh\n# coding: cp1252\n") == "cp1252"
    assert declared_encoding(b"\n\n# coding: latin-1\n") is None  # only the first two lines count
    assert declared_encoding(b"# coding: no-such-codec\n") is None
    assert declared_encoding(b"# coding: utf-16\n") is None  # not ASCII-compatible: not honoured
    assert declared_encoding(codecs.BOM_UTF8 + b"x = 1\n") == "utf-8"
    assert source_codec(b"x = 1\n") == "utf-8"


def test_a_utf8_file_with_one_stray_byte_keeps_its_other_names() -> None:
    source = "def naïve():\n    pass\n\n\ndef café():\n    pass\n".encode() + b"# \xff\n"
    facts = extract_facts("m.py", "python", source)
    assert [s.name for s in facts.symbols] == ["naïve", "café"]


def test_cafe_func_in_a_latin1_file_is_found_by_its_name(make_repo, tmp_path: Path) -> None:
    data = "# -*- coding: latin-1 -*-\n\n\ndef café_func(x):\n    return x\n".encode("latin-1")
    undeclared = "def über_helper():\n    return café_func(1)\n".encode("latin-1")
    root = make_repo({"pkg/__init__.py": ""})
    write_tree(root, {"pkg/legacy.py": data, "pkg/plain.py": undeclared})
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    try:
        ws.sync()

        def run(**args: object) -> dict[str, object]:
            return execute({"freshness": "fast", **args}, lambda _r: ws, ws.settings).to_dict()

        found = run(operation="symbol", symbol="café_func")
        assert found["status"] == "ok", found
        (item,) = found["items"]
        assert item["symbol"]["name"] == "café_func"
        anchor = item["anchor"]
        assert anchor["path"] == "pkg/legacy.py"
        assert data[anchor["start_byte"] : anchor["end_byte"]] == b"def caf\xe9_func(x):\n    return x"
        helper = run(operation="symbol", symbol="über_helper")
        assert helper["status"] == "ok" and helper["items"][0]["symbol"]["name"] == "über_helper"
        search = run(operation="search", query="café_func")
        assert search["status"] == "ok" and search["items"][0]["anchor"]["path"] == "pkg/legacy.py", search
        callers = run(operation="callers", symbol="café_func")
        assert [c["caller"]["name"] for c in callers["items"] if c["kind"] == "call"] == ["über_helper"]
    finally:
        ws.close()
