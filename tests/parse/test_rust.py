from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""//! HTTP client.
use std::collections::{HashMap, hash_map::Entry as E};
use crate::io::{self, Read as R};
use super::*;
use serde::Serialize;
use tokio as rt;

mod transport;

/// Maximum retries.
pub const MAX_RETRIES: u32 = 3;

/// A client.
#[derive(Debug, Clone)]
pub struct Client<T> {
    /// Base URL.
    pub base: String,
    pub(crate) inner: T,
}

pub enum State { Idle, Busy(u32) }

/// Sends requests.
pub trait Sender: Clone + fmt::Debug {
    /// Sends one.
    fn send(&self, req: Request) -> Result<Response, Error>;
}

impl<T: Clone> Client<T> {
    /// Makes one.
    pub fn new(base: String, inner: T) -> Self {
        let cache = HashMap::new();
        Self { base, inner }
    }
}

impl<T> Sender for Client<T> {
    fn send(&self, req: Request) -> Result<Response, Error> {
        self.inner.call(req).map_err(Error::from)?;
        log!("sent");
        Ok(Response { code: 200 })
    }
}

pub mod net {
    pub fn connect(addr: &Addr) {}
}

macro_rules! log { ($m:expr) => {} }
"""


def facts() -> FileFacts:
    result = extract_facts("src/client.rs", "rust", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_rust_definitions() -> None:
    f = facts()
    retries = assert_symbol(SOURCE, f, "MAX_RETRIES", "constant", "pub const MAX_RETRIES: u32 = 3;")
    assert retries.doc == "Maximum retries."
    client = assert_symbol(
        SOURCE, f, "Client", "struct", snippet_between(SOURCE, "pub struct Client<T>", "inner: T,\n}")
    )
    assert client.doc == "A client."  # the comment sits above #[derive(..)]
    assert client.signature == "pub struct Client<T>"
    base = assert_symbol(SOURCE, f, "Client.base", "field", "pub base: String")
    assert base.doc == "Base URL."
    assert base.parent == "Client"
    inner = assert_symbol(SOURCE, f, "Client.inner", "field", "pub(crate) inner: T")
    assert inner.doc is None
    assert_symbol(SOURCE, f, "State", "enum", "pub enum State { Idle, Busy(u32) }")
    assert_symbol(SOURCE, f, "State.Busy", "constant", "Busy(u32)")
    sender = assert_symbol(
        SOURCE, f, "Sender", "trait", snippet_between(SOURCE, "pub trait Sender", "Error>;\n}")
    )
    assert sender.doc == "Sends requests."
    trait_send = assert_symbol(
        SOURCE,
        f,
        "Sender.send",
        "method",
        "fn send(&self, req: Request) -> Result<Response, Error>;",
    )
    assert trait_send.doc == "Sends one."
    new = assert_symbol(
        SOURCE, f, "Client.new", "method", snippet_between(SOURCE, "pub fn new", "inner }\n    }")
    )
    assert new.parent == "Client"
    assert new.doc == "Makes one."
    assert new.signature == "pub fn new(base: String, inner: T) -> Self"
    send = assert_symbol(
        SOURCE,
        f,
        "Client.send",
        "method",
        snippet_between(SOURCE, "fn send(&self, req: Request) -> Result<Response, Error> {", "200 })\n    }"),
    )
    assert send.parent == "Client"
    assert_symbol(SOURCE, f, "net", "module", snippet_between(SOURCE, "pub mod net", "{}\n}"))
    assert_symbol(SOURCE, f, "net.connect", "function", "pub fn connect(addr: &Addr) {}")
    assert_symbol(SOURCE, f, "log", "macro", "macro_rules! log { ($m:expr) => {} }")
    assert "transport" not in {s.qualified_name for s in f.symbols}  # `mod x;` has no body here


def test_rust_references() -> None:
    refs = references(facts())
    assert ("Sender", "implement", "Client", None) in refs
    assert ("Clone", "inherit", "Sender", None) in refs
    assert ("Debug", "inherit", "Sender", "fmt") in refs
    assert ("new", "call", "Client.new", "HashMap") in refs
    assert ("call", "call", "Client.send", "self.inner") in refs
    assert ("map_err", "call", "Client.send", "self.inner.call(req)") in refs
    assert ("log", "call", "Client.send", None) in refs
    assert ("Ok", "call", "Client.send", None) in refs
    assert ("Response", "instantiate", "Client.send", None) in refs
    assert ("Request", "type", "Client.send", None) in refs
    assert ("Addr", "type", "net.connect", None) in refs
    assert ("String", "type", "Client.base", None) in refs
    assert not any(name == "Self" for name, kind, *_ in refs if kind == "instantiate")


def test_rust_imports() -> None:
    assert imports(facts()) == {
        ("std::collections", "HashMap", None, False),
        ("std::collections", "hash_map::Entry", "E", False),
        ("crate::io", None, None, False),
        ("crate::io", "Read", "R", False),
        ("super", None, None, True),
        ("serde", "Serialize", None, False),
        ("tokio", None, "rt", False),
        ("transport", None, None, False),
    }
