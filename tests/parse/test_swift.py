from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""import Foundation
@testable import MyKit
import struct Swift.Array

let maxRetries = 3

/// An HTTP client.
@MainActor
public final class Client: BaseClient, Sender {
    var headers: [String: String] = [:]
    let config: Config

    /// Builds one.
    init(config: Config) {
        self.config = config
        super.init()
    }

    // Sends a request.
    func send(_ req: Request) async throws -> Response {
        let res = try await transport.execute(req)
        return Response(data: res)
    }

    class Pool {
        func drain() {}
    }
}

protocol Sender: AnyObject {
    func send(_ request: Request) async throws -> Response
}

struct Point: Equatable {
    var x: Int
}

enum Mode {
    case fast, slow
}

extension Client: CustomStringConvertible {
    var description: String { "client" }
    func reset() { headers.removeAll() }
}

typealias Handler = (Request) -> Void

func helper(x: Int) -> Int { return x }
"""


def facts() -> FileFacts:
    result = extract_facts("Sources/Client.swift", "swift", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_swift_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "maxRetries", "constant", "let maxRetries = 3")
    client = assert_symbol(
        SOURCE, f, "Client", "class", snippet_between(SOURCE, "@MainActor", "func drain() {}\n    }\n}")
    )
    assert client.doc == "An HTTP client."
    assert client.signature == "@MainActor public final class Client: BaseClient, Sender"
    assert_symbol(SOURCE, f, "Client.headers", "property", "var headers: [String: String] = [:]")
    init = assert_symbol(
        SOURCE,
        f,
        "Client.init",
        "constructor",
        snippet_between(SOURCE, "init(config: Config)", "init()\n    }"),
    )
    assert init.doc == "Builds one."
    send = assert_symbol(
        SOURCE,
        f,
        "Client.send",
        "method",
        snippet_between(SOURCE, "func send(_ req: Request) async throws -> Response {", "(data: res)\n    }"),
    )
    assert send.doc == "Sends a request."
    assert send.signature == "func send(_ req: Request) async throws -> Response"
    assert send.parent == "Client"
    assert_symbol(SOURCE, f, "Client.Pool.drain", "method", "func drain() {}")
    assert_symbol(
        SOURCE, f, "Sender", "protocol", snippet_between(SOURCE, "protocol Sender", "-> Response\n}")
    )
    assert_symbol(
        SOURCE,
        f,
        "Sender.send",
        "method",
        "func send(_ request: Request) async throws -> Response",
    )
    assert_symbol(SOURCE, f, "Point", "struct", "struct Point: Equatable {\n    var x: Int\n}")
    assert_symbol(SOURCE, f, "Point.x", "property", "var x: Int")
    assert_symbol(SOURCE, f, "Mode", "enum", "enum Mode {\n    case fast, slow\n}")
    assert_symbol(SOURCE, f, "Mode.slow", "constant", "slow")
    # members of an extension are qualified by the extended type
    description = assert_symbol(
        SOURCE, f, "Client.description", "property", 'var description: String { "client" }'
    )
    assert description.parent == "Client"
    assert_symbol(SOURCE, f, "Client.reset", "method", "func reset() { headers.removeAll() }")
    assert_symbol(SOURCE, f, "Handler", "type", "typealias Handler = (Request) -> Void")
    assert_symbol(SOURCE, f, "helper", "function", "func helper(x: Int) -> Int { return x }")


def test_swift_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "Client", None) in refs
    assert ("Sender", "implement", "Client", None) in refs
    assert ("AnyObject", "inherit", "Sender", None) in refs
    assert ("Equatable", "implement", "Point", None) in refs
    assert ("CustomStringConvertible", "implement", "Client", None) in refs
    assert ("execute", "call", "Client.send", "transport") in refs
    assert ("Response", "call", "Client.send", None) in refs
    assert ("init", "call", "Client.init", "super") in refs
    assert ("removeAll", "call", "Client.reset", "headers") in refs
    assert ("Request", "type", "Client.send", None) in refs
    assert ("Config", "type", "Client.config", None) in refs


def test_swift_imports() -> None:
    assert imports(facts()) == {
        ("Foundation", None, None, False),
        ("MyKit", None, None, False),
        ("Swift", "Array", None, False),
    }
