"""Every definition the index extracts can be asked about by the name it reports.

A property over the symbols of a fixture of names that are not plain identifiers, in eleven
languages: JavaScript private members (`Ky.#normalize`), `$` names, Ruby's `empty?`, `save!`,
`name=`, `==`, Rust raw identifiers (`r#type`), C++ operators and destructors, Kotlin backquoted
names, Scala and Swift operator methods. `symbol` and `references` with a symbol's qualified name and
path must find it: `#` was read as Ruby's `Class#method` separator, so `Ky.#normalize` and `r#type`
were "not defined" (found by the references benchmark on sindresorhus/ky); a Kotlin backquoted name
was cut at its space (`K.space``), and Scala's and Swift's operator methods were not definitions.
"""

from __future__ import annotations

from pathlib import Path

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "a.ts": (
        "export class Ky {\n"
        "  #normalize(x: number) { return x; }\n"
        "  static #count = 0;\n"
        "  $el = 1;\n"
        "  get value() { return this.#normalize(1); }\n"
        "  run() { return this.#normalize(2) + Ky.#count; }\n"
        "}\n"
        "export function $http() { return new Ky(); }\n"
        "export const _private_$ = () => 1;\n"
    ),
    "b.rb": (
        "class Box\n"
        "  def empty?\n"
        "    true\n"
        "  end\n"
        "  def save!\n"
        "    1\n"
        "  end\n"
        "  def name=(v)\n"
        "    @name = v\n"
        "  end\n"
        "  def ==(other)\n"
        "    true\n"
        "  end\n"
        "  def self.build\n"
        "    new\n"
        "  end\n"
        "end\n"
    ),
    "c.rs": (
        "pub struct S;\n"
        "impl S {\n"
        "    pub fn r#type(&self) -> i32 { 1 }\n"
        "}\n"
        "pub fn r#match() -> i32 { S.r#type() }\n"
    ),
    "d.cpp": (
        "struct V {\n"
        "  bool operator==(const V& o) const { return true; }\n"
        "  V& operator+=(const V& o) { return *this; }\n"
        "  ~V() {}\n"
        "};\n"
        "namespace ns { int f() { return 1; } }\n"
    ),
    "e.kt": ("class K {\n    fun `with space`() = 1\n    fun normal() = `with space`()\n}\n"),
    "f.scala": ("class M {\n  def +(o: M): M = this\n  def unary_- : M = this\n  def ok(): Int = 1\n}\n"),
    "g.php": (
        "<?php\n"
        "class P {\n"
        "  public function __construct() {}\n"
        "  public static function make() { return new P(); }\n"
        "}\n"
        "function helper_fn() { return 1; }\n"
    ),
    "h.swift": (
        "struct W {\n"
        "  static func == (a: W, b: W) -> Bool { return true }\n"
        "  func plain() -> Int { return 1 }\n"
        "}\n"
    ),
    "i.go": (
        "package main\n"
        "type T struct{}\n"
        "func (t *T) M() int { return 1 }\n"
        "func (T) V() int { return 2 }\n"
        "func main() { _ = (&T{}).M() }\n"
    ),
    "j.java": ("class J<T> {\n  J() {}\n  <U> U gen(U u) { return u; }\n  class Inner { void in() {} }\n}\n"),
    "k.cs": (
        "class C {\n"
        "  public static C operator +(C a, C b) { return a; }\n"
        "  public int this[int i] => i;\n"
        "  ~C() {}\n"
        "  public int P { get; set; }\n"
        "}\n"
    ),
}

EXPECTED = {
    ("a.ts", "Ky.#normalize"),
    ("a.ts", "Ky.#count"),
    ("a.ts", "Ky.$el"),
    ("a.ts", "$http"),
    ("b.rb", "Box.empty?"),
    ("b.rb", "Box.save!"),
    ("b.rb", "Box.name="),
    ("b.rb", "Box.=="),
    ("c.rs", "S.r#type"),
    ("c.rs", "r#match"),
    ("d.cpp", "V.operator=="),
    ("d.cpp", "V.~V"),
    ("e.kt", "K.with space"),
    ("f.scala", "M.+"),
    ("h.swift", "W.=="),
}


def test_every_extracted_symbol_is_found_by_its_own_name(make_repo) -> None:  # type: ignore[no-untyped-def]
    root = make_repo(FILES)
    settings = load_settings()
    ws = Workspace.open(Path(root), settings=settings)
    try:
        ws.sync()
        with ws.read() as view:
            rows = view.conn.execute(
                "SELECT f.path, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id"
            ).fetchall()
        assert set(rows) >= EXPECTED, sorted(EXPECTED - set(rows))
        missed = []
        for path, qualified in rows:
            for operation in ("symbol", "references"):
                request = {
                    "operation": operation,
                    "symbol": qualified,
                    "relativePath": path,
                    "freshness": "fast",
                }
                answer = execute(request, lambda _r: ws, settings).to_dict()
                if answer["status"] == "error":
                    missed.append((operation, path, qualified, answer.get("code")))
        assert not missed, missed
        # ... and by its qualified name written with its file, as a pytest node id or `file:name`
        # (``requests.split_symbol_location``), without relativePath: the same definition
        for path, qualified in rows:
            for written in (f"{path}::{qualified}", f"{path}:{qualified}", f"./{path}::{qualified}"):
                for operation in ("symbol", "references"):
                    request = {"operation": operation, "symbol": written, "freshness": "fast"}
                    answer = execute(request, lambda _r: ws, settings).to_dict()
                    paths = {i["anchor"]["path"] for i in answer.get("items", ()) if i["kind"] == "symbol"}
                    if answer["status"] == "error" or (operation == "symbol" and paths != {path}):
                        missed.append((operation, written, answer.get("code"), sorted(paths)))
        assert not missed, missed
        # Ruby's and JSDoc's `Class#method` still names `Class.method`
        answer = execute(
            {"operation": "symbol", "symbol": "Box#empty?", "freshness": "fast"}, lambda _r: ws, settings
        )
        assert [i.anchor.path for i in answer.items if i.kind == "symbol"] == ["b.rb"]
    finally:
        ws.close()
