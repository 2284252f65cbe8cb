from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""require 'json'
require_relative '../lib/base'

# Networking.
module Net
  module HTTP
    VERSION = '1.0'

    # A client.
    class Client < Base::Client
      include Retryable
      attr_reader :host

      # Builds one.
      def initialize(host)
        @host = host
      end

      # Sends a request.
      def send_request(req)
        res = @transport.call(req)
        log res
        Response.new(res)
      end

      def self.build(opts = {})
        new(opts[:host])
      end

      private

      def log(msg) = puts(msg)
    end
  end
end

class Net::HTTP::Proxy < Net::HTTP::Client; end

def helper; end
"""


def facts() -> FileFacts:
    result = extract_facts("lib/net/http.rb", "ruby", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_ruby_definitions() -> None:
    f = facts()
    net = assert_symbol(
        SOURCE, f, "Net", "module", snippet_between(SOURCE, "module Net", "    end\n  end\nend")
    )
    assert net.doc == "Networking."
    assert_symbol(SOURCE, f, "Net.HTTP", "module", snippet_between(SOURCE, "module HTTP", "    end\n  end"))
    assert_symbol(SOURCE, f, "Net.HTTP.VERSION", "constant", "VERSION = '1.0'")
    client = assert_symbol(
        SOURCE, f, "Net.HTTP.Client", "class", snippet_between(SOURCE, "class Client", "puts(msg)\n    end")
    )
    assert client.doc == "A client."
    assert client.parent == "Net.HTTP"
    init = assert_symbol(
        SOURCE,
        f,
        "Net.HTTP.Client.initialize",
        "method",
        "def initialize(host)\n        @host = host\n      end",
    )
    assert init.doc == "Builds one."
    send = assert_symbol(
        SOURCE,
        f,
        "Net.HTTP.Client.send_request",
        "method",
        snippet_between(SOURCE, "def send_request", "Response.new(res)\n      end"),
    )
    assert send.doc == "Sends a request."
    assert send.signature == "def send_request(req)"
    assert_symbol(
        SOURCE,
        f,
        "Net.HTTP.Client.build",
        "method",
        "def self.build(opts = {})\n        new(opts[:host])\n      end",
    )
    assert_symbol(SOURCE, f, "Net.HTTP.Client.log", "method", "def log(msg) = puts(msg)")
    proxy = assert_symbol(
        SOURCE, f, "Net.HTTP.Proxy", "class", "class Net::HTTP::Proxy < Net::HTTP::Client; end"
    )
    assert proxy.name == "Proxy"
    assert_symbol(SOURCE, f, "helper", "function", "def helper; end")


def test_ruby_references() -> None:
    refs = references(facts())
    assert ("Client", "inherit", "Net.HTTP.Client", "Base") in refs
    assert ("Client", "inherit", "Net.HTTP.Proxy", "Net.HTTP") in refs
    assert ("Retryable", "implement", "Net.HTTP.Client", None) in refs
    assert ("call", "call", "Net.HTTP.Client.send_request", "@transport") in refs
    assert ("log", "call", "Net.HTTP.Client.send_request", None) in refs
    assert ("Response", "instantiate", "Net.HTTP.Client.send_request", None) in refs
    assert ("puts", "call", "Net.HTTP.Client.log", None) in refs
    called = {name for name, kind, *_ in refs if kind == "call"}
    assert not called & {"require", "require_relative", "include", "attr_reader", "private"}


def test_ruby_imports() -> None:
    assert imports(facts()) == {("json", None, None, False), ("../lib/base", None, None, False)}
