from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""package com.example.http

import scala.concurrent.Future
import scala.collection.mutable.{Map, Set => MSet}
import java.util._

/** An HTTP client. */
@deprecated("use Client2")
class Client(val config: Config) extends BaseClient(config) with Sender with Logging {
  val maxRetries: Int = 3

  // Sends a request.
  def send(req: Request): Future[Response] = {
    val res = transport.execute(req)
    log(res)
    new Response(res)
  }

  def this(url: String) = this(Config(url))
}

object Registry {
  def register(c: Client): Unit = c.send(Request())
}

trait Sender extends Base {
  def send(request: Request): Future[Response]
}

case class Point(x: Int, y: Int)

enum Color { case Red, Green }

type Handler = Request => Unit

package object util {
  def helper(): Unit = ()
}

extension (s: String) def shout: String = s.toUpperCase
"""


def facts() -> FileFacts:
    result = extract_facts("src/main/scala/Client.scala", "scala", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_scala_definitions() -> None:
    f = facts()
    client = assert_symbol(
        SOURCE, f, "Client", "class", snippet_between(SOURCE, "@deprecated", "this(Config(url))\n}")
    )
    assert client.doc == "An HTTP client."
    assert client.signature == (
        '@deprecated("use Client2") class Client(val config: Config) extends BaseClient(config)'
        " with Sender with Logging"
    )
    assert_symbol(SOURCE, f, "Client.config", "property", "val config: Config")
    assert_symbol(SOURCE, f, "Client.maxRetries", "property", "val maxRetries: Int = 3")
    send = assert_symbol(
        SOURCE,
        f,
        "Client.send",
        "method",
        snippet_between(SOURCE, "def send(req: Request): Future[Response] =", "(res)\n  }"),
    )
    assert send.doc == "Sends a request."
    assert send.signature == "def send(req: Request): Future[Response]"
    assert send.parent == "Client"
    assert_symbol(SOURCE, f, "Client.this", "constructor", "def this(url: String) = this(Config(url))")
    assert_symbol(
        SOURCE,
        f,
        "Registry",
        "object",
        "object Registry {\n  def register(c: Client): Unit = c.send(Request())\n}",
    )
    assert_symbol(
        SOURCE, f, "Registry.register", "method", "def register(c: Client): Unit = c.send(Request())"
    )
    assert_symbol(
        SOURCE,
        f,
        "Sender",
        "trait",
        "trait Sender extends Base {\n  def send(request: Request): Future[Response]\n}",
    )
    assert_symbol(SOURCE, f, "Sender.send", "method", "def send(request: Request): Future[Response]")
    assert_symbol(SOURCE, f, "Point", "class", "case class Point(x: Int, y: Int)")
    assert_symbol(SOURCE, f, "Point.y", "property", "y: Int")
    assert_symbol(SOURCE, f, "Color", "enum", "enum Color { case Red, Green }")
    assert_symbol(SOURCE, f, "Color.Green", "constant", "Green")
    assert_symbol(SOURCE, f, "Handler", "type", "type Handler = Request => Unit")
    assert_symbol(SOURCE, f, "util", "module", "package object util {\n  def helper(): Unit = ()\n}")
    assert_symbol(SOURCE, f, "util.helper", "function", "def helper(): Unit = ()")
    shout = assert_symbol(SOURCE, f, "String.shout", "method", "def shout: String = s.toUpperCase")
    assert shout.parent == "String"


def test_scala_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "Client", None) in refs
    assert ("Sender", "implement", "Client", None) in refs
    assert ("Logging", "implement", "Client", None) in refs
    assert ("Base", "inherit", "Sender", None) in refs
    assert ("execute", "call", "Client.send", "transport") in refs
    assert ("log", "call", "Client.send", None) in refs
    assert ("Response", "instantiate", "Client.send", None) in refs
    assert ("send", "call", "Registry.register", "c") in refs
    assert ("Request", "type", "Client.send", None) in refs
    assert ("Future", "type", "Client.send", None) in refs
    assert ("Config", "type", "Client.config", None) in refs


def test_scala_imports() -> None:
    assert imports(facts()) == {
        ("scala.concurrent", "Future", None, False),
        ("scala.collection.mutable", "Map", None, False),
        ("scala.collection.mutable", "Set", "MSet", False),
        ("java.util", None, None, True),
    }
