from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""import type { Request, Response } from './http';
import { Injectable as Svc } from '@angular/core';
import fs = require('fs');
export * as codecs from './codecs';

/** Retry options. */
export interface Options extends BaseOptions, Partial<Extra> {
  retries: number;
  backoff(attempt: number): number;
}

export type Handler = (req: Request) => Promise<Response>;

export enum Color { Red, Green = 2 }

export namespace Http.Internal {
  export function encode(body: Body): string {
    return JSON.stringify(body);
  }
}

// The cache-backed service.
@Svc({ providedIn: 'root' })
export class Service<T> extends BaseService<T> implements Loader, Disposable {
  private readonly cache: Map<string, T> = new Map();
  onEvent = (e: Event): void => { this.emit(e); };

  constructor(private http: HttpClient) {
    super();
  }

  /** Loads one item. */
  public async get(id: string): Promise<T | undefined> {
    return this.cache.get(id) ?? Service.fallback<T>(id);
  }
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/service.ts", "typescript", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_typescript_definitions() -> None:
    f = facts()
    options = assert_symbol(
        SOURCE, f, "Options", "interface", snippet_between(SOURCE, "interface Options", "number;\n}")
    )
    assert options.doc == "Retry options."
    assert options.signature == "interface Options extends BaseOptions, Partial<Extra>"
    assert_symbol(SOURCE, f, "Options.retries", "field", "retries: number")
    assert_symbol(SOURCE, f, "Options.backoff", "method", "backoff(attempt: number): number")
    assert_symbol(SOURCE, f, "Handler", "type", "type Handler = (req: Request) => Promise<Response>;")
    assert_symbol(SOURCE, f, "Color", "enum", "enum Color { Red, Green = 2 }")
    assert_symbol(SOURCE, f, "Color.Red", "constant", "Red")
    assert_symbol(SOURCE, f, "Color.Green", "constant", "Green = 2")
    internal = assert_symbol(
        SOURCE, f, "Http.Internal", "module", snippet_between(SOURCE, "namespace Http", "}\n}")
    )
    assert internal.name == "Internal"
    encode = assert_symbol(
        SOURCE,
        f,
        "Http.Internal.encode",
        "function",
        snippet_between(SOURCE, "function encode", "(body);\n  }"),
    )
    assert encode.parent == "Http.Internal"
    service = assert_symbol(
        SOURCE, f, "Service", "class", snippet_between(SOURCE, "class Service<T>", "(id);\n  }\n}")
    )
    assert service.doc == "The cache-backed service."
    assert service.signature == ("class Service<T> extends BaseService<T> implements Loader, Disposable")
    assert_symbol(SOURCE, f, "Service.cache", "field", "private readonly cache: Map<string, T> = new Map()")
    assert_symbol(SOURCE, f, "Service.onEvent", "method", "onEvent = (e: Event): void => { this.emit(e); }")
    assert_symbol(
        SOURCE,
        f,
        "Service.constructor",
        "constructor",
        "constructor(private http: HttpClient) {\n    super();\n  }",
    )
    get = assert_symbol(
        SOURCE, f, "Service.get", "method", snippet_between(SOURCE, "public async get", "(id);\n  }")
    )
    assert get.doc == "Loads one item."
    assert get.signature == "public async get(id: string): Promise<T | undefined>"


def test_typescript_references() -> None:
    refs = references(facts())
    assert ("BaseOptions", "inherit", "Options", None) in refs
    assert ("Partial", "inherit", "Options", None) in refs
    assert ("BaseService", "inherit", "Service", None) in refs
    assert ("Loader", "implement", "Service", None) in refs
    assert ("Disposable", "implement", "Service", None) in refs
    assert ("Svc", "call", None, None) in refs
    assert ("Map", "instantiate", "Service.cache", None) in refs
    assert ("Map", "type", "Service.cache", None) in refs
    assert ("HttpClient", "type", "Service.constructor", None) in refs
    assert ("Body", "type", "Http.Internal.encode", None) in refs
    assert ("stringify", "call", "Http.Internal.encode", "JSON") in refs
    assert ("emit", "call", "Service.onEvent", "this") in refs
    assert ("get", "call", "Service.get", "this.cache") in refs
    assert ("fallback", "call", "Service.get", "Service") in refs


def test_typescript_imports() -> None:
    assert imports(facts()) == {
        ("./http", "Request", None, False),
        ("./http", "Response", None, False),
        ("@angular/core", "Injectable", "Svc", False),
        ("fs", None, "fs", False),
        ("./codecs", None, "codecs", False),
    }


TYPES = b"""import { Base, Props, errs } from './base';
export type O = Options['baseUrl'];
export type K = keyof Shape;
export type Cond<T> = T extends Narrow ? Yes : No;
export function isHttp(e: unknown): e is HttpError { return e instanceof HttpError || e instanceof errs.Timeout; }
export const y = x as Cast;
export const w = v satisfies Checked;
let f: (a: Arg) => Ret;
let t: [First, Second] = [first, second];
let z: Promise<A | B>[] = [];
let i: A2 & B2;
let n: ns.Deep;
export class Box<T extends Bound> implements Shape {
  m<K>(k: K): Map<K, T> { return new Map(); }
}
interface Shape { p: Item }
"""


def test_every_type_name_in_a_typescript_type_is_a_reference_at_any_depth() -> None:
    """A `type_identifier` is a name in a type wherever it sits (the rules read a type annotation, a
    type argument and a union's members only: `x as Cast`, `e is HttpError`, `Options['baseUrl']`,
    `keyof Shape`, conditional types, tuples, function types, intersections were missed); a
    definition's own name and a type parameter (and its uses inside its declaration) are not;
    `instanceof` names the class tested (JavaScript too). Found by the references benchmark on
    sindresorhus/ky (tsserver as the truth)."""
    facts = extract_facts("src/types.ts", "typescript", TYPES)
    types = {(r.name, r.receiver) for r in facts.references if r.kind == "type"}
    named = {
        "Options", "Shape", "Narrow", "Yes", "No", "HttpError", "Cast", "Checked", "Arg", "Ret",
        "First", "Second", "Promise", "A", "B", "A2", "B2", "Bound", "Map", "Item",
    }  # fmt: skip
    assert {(n, None) for n in named} | {("Timeout", "errs"), ("Deep", "ns")} <= types
    assert not {"O", "K", "Cond", "T", "Box"} & {name for name, receiver in types if receiver is None}
    assert ("Deep", None) not in types  # `ns.Deep` is one reference
    js = extract_facts("a.js", "javascript", b"function f(e) { return e instanceof Box; }\n")
    assert ("Box", "type") in {(r.name, r.kind) for r in js.references}
