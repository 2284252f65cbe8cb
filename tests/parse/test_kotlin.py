from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""package com.example.http

import kotlinx.coroutines.launch
import java.util.*
import com.example.base.Base as B

const val MAX_RETRIES = 3

/**
 * An HTTP client.
 */
@Service
class Client(private val config: Config) : BaseClient(config), Closeable, Sender<Request> {
    val headers: MutableMap<String, String> = mutableMapOf()

    /** From a URL. */
    constructor(url: String) : this(Config(url))

    // Sends a request.
    suspend fun send(req: Request): Response {
        val res = transport.execute(req)
        return Response(res)
    }

    companion object Factory {
        fun create(): Client = Client("x")
    }
}

interface Sender<T> : Base {
    fun send(req: T): Response
}

object Registry {
    fun register(c: Client) {
        c.send(Request())
    }
}

enum class Mode { FAST, SLOW }

data class Point(val x: Int, val y: Int)

typealias Handler = (Request) -> Unit

fun String.shout(): String = this.uppercase()
"""


def facts() -> FileFacts:
    result = extract_facts("src/main/kotlin/Client.kt", "kotlin", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_kotlin_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "MAX_RETRIES", "constant", "const val MAX_RETRIES = 3")
    client = assert_symbol(
        SOURCE, f, "Client", "class", snippet_between(SOURCE, "@Service", '("x")\n    }\n}')
    )
    assert client.doc == "An HTTP client."
    assert client.signature == (
        "@Service class Client(private val config: Config) : BaseClient(config), Closeable, Sender<Request>"
    )
    assert_symbol(SOURCE, f, "Client.config", "property", "private val config: Config")
    assert_symbol(
        SOURCE, f, "Client.headers", "property", "val headers: MutableMap<String, String> = mutableMapOf()"
    )
    ctor = assert_symbol(
        SOURCE, f, "Client.constructor", "constructor", "constructor(url: String) : this(Config(url))"
    )
    assert ctor.doc == "From a URL."
    send = assert_symbol(
        SOURCE, f, "Client.send", "method", snippet_between(SOURCE, "suspend fun send", "(res)\n    }")
    )
    assert send.doc == "Sends a request."
    assert send.signature == "suspend fun send(req: Request): Response"
    assert send.parent == "Client"
    assert_symbol(
        SOURCE, f, "Client.Factory", "object", snippet_between(SOURCE, "companion object", '("x")\n    }')
    )
    assert_symbol(SOURCE, f, "Client.Factory.create", "method", 'fun create(): Client = Client("x")')
    assert_symbol(
        SOURCE, f, "Sender", "interface", "interface Sender<T> : Base {\n    fun send(req: T): Response\n}"
    )
    assert_symbol(SOURCE, f, "Sender.send", "method", "fun send(req: T): Response")
    assert_symbol(SOURCE, f, "Registry", "object", snippet_between(SOURCE, "object Registry", "    }\n}"))
    assert_symbol(SOURCE, f, "Mode", "enum", "enum class Mode { FAST, SLOW }")
    assert_symbol(SOURCE, f, "Mode.SLOW", "constant", "SLOW")
    assert_symbol(SOURCE, f, "Point", "class", "data class Point(val x: Int, val y: Int)")
    assert_symbol(SOURCE, f, "Point.y", "property", "val y: Int")
    assert_symbol(SOURCE, f, "Handler", "type", "typealias Handler = (Request) -> Unit")
    shout = assert_symbol(
        SOURCE, f, "String.shout", "method", "fun String.shout(): String = this.uppercase()"
    )
    assert shout.parent == "String"


def test_kotlin_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "Client", None) in refs
    assert ("Closeable", "implement", "Client", None) in refs
    assert ("Sender", "implement", "Client", None) in refs
    assert ("Base", "inherit", "Sender", None) in refs
    assert ("execute", "call", "Client.send", "transport") in refs
    assert ("Response", "call", "Client.send", None) in refs
    assert ("send", "call", "Registry.register", "c") in refs
    assert ("Request", "call", "Registry.register", None) in refs
    assert ("uppercase", "call", "String.shout", "this") in refs
    assert ("Config", "type", "Client.config", None) in refs
    assert ("Request", "type", "Client.send", None) in refs
    assert ("Response", "type", "Client.send", None) in refs


def test_kotlin_imports() -> None:
    assert imports(facts()) == {
        ("kotlinx.coroutines", "launch", None, False),
        ("java.util", None, None, True),
        ("com.example.base", "Base", "B", False),
    }
