from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""import React, { useState as useS, useEffect } from 'react';
import * as path from "node:path";
import './polyfill.js';
const fs = require('fs');
const { readFile, writeFile: wf } = require('fs/promises');
export { helper } from './helper.js';
export * from './all.js';

export const MAX_RETRIES = 3;

/**
 * An HTTP client.
 */
export class Client extends mixins.Base {
  static defaults = { retries: MAX_RETRIES };

  /** Builds one. */
  constructor(opts) {
    super(opts);
    this.opts = opts;
  }

  // Sends a request.
  async send(req) {
    const res = await this.transport.fetch(req.url);
    return new Response(res);
  }
}

// Adds two numbers.
export function add(a, b) {
  return a + b;
}

const mul = (a, b) => a * b;
Client.prototype.close = function () { return shutdown(this); };
module.exports.handler = async function (event) { return util.format(event); };

const api = {
  get(url) { return fetch(url); },
  post: (url, body) => fetch(url, { body }),
};

export function View() {
  return <Layout.Page><Button label="x" /></Layout.Page>;
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/client.js", "javascript", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_javascript_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "MAX_RETRIES", "constant", "export const MAX_RETRIES = 3;")
    client = assert_symbol(
        SOURCE, f, "Client", "class", snippet_between(SOURCE, "class Client", "Response(res);\n  }\n}")
    )
    assert client.doc == "An HTTP client."
    assert client.signature == "class Client extends mixins.Base"
    assert client.parent is None
    assert_symbol(SOURCE, f, "Client.defaults", "field", "static defaults = { retries: MAX_RETRIES }")
    ctor = assert_symbol(
        SOURCE,
        f,
        "Client.constructor",
        "constructor",
        snippet_between(SOURCE, "constructor(opts)", "= opts;\n  }"),
    )
    assert ctor.doc == "Builds one."
    assert ctor.parent == "Client"
    send = assert_symbol(
        SOURCE, f, "Client.send", "method", snippet_between(SOURCE, "async send(req)", "(res);\n  }")
    )
    assert send.doc == "Sends a request."
    assert send.signature == "async send(req)"
    add = assert_symbol(SOURCE, f, "add", "function", "function add(a, b) {\n  return a + b;\n}")
    assert add.doc == "Adds two numbers."
    assert add.signature == "function add(a, b)"
    assert_symbol(SOURCE, f, "mul", "function", "const mul = (a, b) => a * b;")
    close = assert_symbol(
        SOURCE, f, "Client.close", "method", "Client.prototype.close = function () { return shutdown(this); }"
    )
    assert close.parent == "Client"
    assert_symbol(
        SOURCE,
        f,
        "handler",
        "function",
        "module.exports.handler = async function (event) { return util.format(event); }",
    )
    assert_symbol(SOURCE, f, "api", "variable", snippet_between(SOURCE, "const api", "};"))
    assert_symbol(SOURCE, f, "api.get", "method", "get(url) { return fetch(url); }")
    assert_symbol(SOURCE, f, "api.post", "method", "post: (url, body) => fetch(url, { body })")
    names = {s.qualified_name for s in f.symbols}
    assert "fs" not in names  # a require() binding is an import, not a variable


def test_javascript_references() -> None:
    refs = references(facts())
    assert ("Base", "inherit", "Client", "mixins") in refs
    assert ("fetch", "call", "Client.send", "this.transport") in refs
    assert ("Response", "instantiate", "Client.send", None) in refs
    assert ("shutdown", "call", "Client.close", None) in refs
    assert ("format", "call", "handler", "util") in refs
    assert ("fetch", "call", "api.post", None) in refs
    assert ("Page", "call", "View", "Layout") in refs
    assert ("Button", "call", "View", None) in refs
    assert not any(name == "require" for name, *_ in refs)
    send_call = next(r for r in facts().references if r.name == "fetch" and r.receiver)
    assert SOURCE[send_call.start_byte : send_call.end_byte] == b"this.transport.fetch(req.url)"


def test_javascript_imports() -> None:
    assert imports(facts()) == {
        ("react", None, "React", False),
        ("react", "useState", "useS", False),
        ("react", "useEffect", None, False),
        ("node:path", None, "path", False),
        ("./polyfill.js", None, None, False),
        ("fs", None, "fs", False),
        ("fs/promises", "readFile", None, False),
        ("fs/promises", "writeFile", "wf", False),
        ("./helper.js", "helper", None, False),
        ("./all.js", None, None, True),
    }
