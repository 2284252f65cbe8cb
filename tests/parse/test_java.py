from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""package com.example.http;

import java.util.List;
import java.util.*;
import static java.util.Objects.requireNonNull;
import static org.junit.Assert.*;

/**
 * An HTTP client.
 */
@Service
public class Client extends BaseClient implements Closeable, Sender<Request> {
    /** Default retries. */
    public static final int MAX_RETRIES = 3;
    private final Map<String, String> headers = new HashMap<>();

    /** Builds one. */
    public Client(Config config) {
        super(config);
        this.config = requireNonNull(config);
    }

    // Sends a request.
    @Override
    public Response send(Request req) throws IOException {
        Response res = transport.execute(req);
        return res;
    }

    static class Pool {
        void drain() { Client.shutdown(); }
    }

    interface Listener extends EventListener { void on(Event e); }

    enum Mode { FAST, SLOW }

    record Point(int x, int y) {}
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/main/java/com/example/http/Client.java", "java", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_java_definitions() -> None:
    f = facts()
    client = assert_symbol(SOURCE, f, "Client", "class", snippet_between(SOURCE, "@Service", "int y) {}\n}"))
    assert client.doc == "An HTTP client."
    assert client.signature == (
        "@Service public class Client extends BaseClient implements Closeable, Sender<Request>"
    )
    retries = assert_symbol(
        SOURCE, f, "Client.MAX_RETRIES", "constant", "public static final int MAX_RETRIES = 3;"
    )
    assert retries.doc == "Default retries."
    assert_symbol(
        SOURCE,
        f,
        "Client.headers",
        "field",
        "private final Map<String, String> headers = new HashMap<>();",
    )
    ctor = assert_symbol(
        SOURCE,
        f,
        "Client.Client",
        "constructor",
        snippet_between(SOURCE, "public Client(Config config)", "(config);\n    }"),
    )
    assert ctor.doc == "Builds one."
    send = assert_symbol(
        SOURCE, f, "Client.send", "method", snippet_between(SOURCE, "@Override", "return res;\n    }")
    )
    assert send.doc == "Sends a request."
    assert send.parent == "Client"
    assert_symbol(
        SOURCE,
        f,
        "Client.Pool",
        "class",
        "static class Pool {\n        void drain() { Client.shutdown(); }\n    }",
    )
    drain = assert_symbol(SOURCE, f, "Client.Pool.drain", "method", "void drain() { Client.shutdown(); }")
    assert drain.parent == "Client.Pool"
    assert_symbol(
        SOURCE,
        f,
        "Client.Listener",
        "interface",
        "interface Listener extends EventListener { void on(Event e); }",
    )
    assert_symbol(SOURCE, f, "Client.Listener.on", "method", "void on(Event e);")
    assert_symbol(SOURCE, f, "Client.Mode", "enum", "enum Mode { FAST, SLOW }")
    assert_symbol(SOURCE, f, "Client.Mode.SLOW", "constant", "SLOW")
    assert_symbol(SOURCE, f, "Client.Point", "record", "record Point(int x, int y) {}")


def test_java_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "Client", None) in refs
    assert ("Closeable", "implement", "Client", None) in refs
    assert ("Sender", "implement", "Client", None) in refs
    assert ("EventListener", "inherit", "Client.Listener", None) in refs
    assert ("HashMap", "instantiate", "Client.headers", None) in refs
    assert ("requireNonNull", "call", "Client.Client", None) in refs
    assert ("execute", "call", "Client.send", "transport") in refs
    assert ("shutdown", "call", "Client.Pool.drain", "Client") in refs
    assert ("Config", "type", "Client.Client", None) in refs
    assert ("Response", "type", "Client.send", None) in refs
    assert ("IOException", "type", "Client.send", None) in refs


def test_java_imports() -> None:
    assert imports(facts()) == {
        ("java.util", "List", None, False),
        ("java.util", None, None, True),
        ("java.util.Objects", "requireNonNull", None, False),
        ("org.junit.Assert", None, None, True),
    }
