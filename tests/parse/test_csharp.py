from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""using System;
using System.Collections.Generic;
using IO = System.IO;
using static System.Math;

namespace Acme.Http
{
    /// <summary>An HTTP client.</summary>
    [Serializable]
    public class Client : BaseClient, IDisposable, ISender<Request>
    {
        public const int MaxRetries = 3;
        private readonly Dictionary<string, string> _headers = new Dictionary<string, string>();
        public string Name { get; set; }

        /// <summary>Builds one.</summary>
        public Client(Config config) : base(config)
        {
            _config = config ?? throw new ArgumentNullException(nameof(config));
        }

        // Sends a request.
        public async Task<Response> SendAsync(Request req)
        {
            var res = await _transport.ExecuteAsync(req);
            Log(res);
            return new Response(res);
        }

        public void Dispose() => _transport.Dispose();
    }

    public interface ISender<T> : IDisposable { Task<Response> SendAsync(T req); }

    public struct Point : IEquatable<Point> { public int X; }

    public enum Mode { Fast, Slow }

    public record Person(string Name);
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/Http/Client.cs", "csharp", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_csharp_definitions() -> None:
    f = facts()
    http = assert_symbol(
        SOURCE, f, "Acme.Http", "module", snippet_between(SOURCE, "namespace Acme.Http", "(string Name);\n}")
    )
    assert http.name == "Http"
    client = assert_symbol(
        SOURCE,
        f,
        "Acme.Http.Client",
        "class",
        snippet_between(SOURCE, "[Serializable]", "_transport.Dispose();\n    }"),
    )
    assert client.doc == "<summary>An HTTP client.</summary>"
    assert client.parent == "Acme.Http"
    assert_symbol(SOURCE, f, "Acme.Http.Client.MaxRetries", "constant", "public const int MaxRetries = 3;")
    assert_symbol(
        SOURCE,
        f,
        "Acme.Http.Client._headers",
        "field",
        "private readonly Dictionary<string, string> _headers = new Dictionary<string, string>();",
    )
    assert_symbol(SOURCE, f, "Acme.Http.Client.Name", "property", "public string Name { get; set; }")
    assert_symbol(
        SOURCE,
        f,
        "Acme.Http.Client.Client",
        "constructor",
        snippet_between(SOURCE, "public Client(Config config)", "(config));\n        }"),
    )
    send = assert_symbol(
        SOURCE,
        f,
        "Acme.Http.Client.SendAsync",
        "method",
        snippet_between(SOURCE, "public async Task<Response> SendAsync", "(res);\n        }"),
    )
    assert send.doc == "Sends a request."
    assert send.signature == "public async Task<Response> SendAsync(Request req)"
    assert_symbol(
        SOURCE, f, "Acme.Http.Client.Dispose", "method", "public void Dispose() => _transport.Dispose();"
    )
    assert_symbol(
        SOURCE,
        f,
        "Acme.Http.ISender",
        "interface",
        "public interface ISender<T> : IDisposable { Task<Response> SendAsync(T req); }",
    )
    assert_symbol(SOURCE, f, "Acme.Http.ISender.SendAsync", "method", "Task<Response> SendAsync(T req);")
    assert_symbol(
        SOURCE, f, "Acme.Http.Point", "struct", "public struct Point : IEquatable<Point> { public int X; }"
    )
    assert_symbol(SOURCE, f, "Acme.Http.Mode.Slow", "constant", "Slow")
    assert_symbol(SOURCE, f, "Acme.Http.Person", "record", "public record Person(string Name);")


def test_csharp_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "Acme.Http.Client", None) in refs
    assert ("IDisposable", "implement", "Acme.Http.Client", None) in refs
    assert ("ISender", "implement", "Acme.Http.Client", None) in refs
    assert ("IDisposable", "inherit", "Acme.Http.ISender", None) in refs
    assert ("IEquatable", "implement", "Acme.Http.Point", None) in refs
    assert ("ExecuteAsync", "call", "Acme.Http.Client.SendAsync", "_transport") in refs
    assert ("Log", "call", "Acme.Http.Client.SendAsync", None) in refs
    assert ("Response", "instantiate", "Acme.Http.Client.SendAsync", None) in refs
    assert ("ArgumentNullException", "instantiate", "Acme.Http.Client.Client", None) in refs
    assert ("Config", "type", "Acme.Http.Client.Client", None) in refs
    assert ("Task", "type", "Acme.Http.Client.SendAsync", None) in refs
    assert not any(name == "nameof" for name, *_ in refs)
    assert ("IDisposable", "inherit", "Acme.Http.Client", None) not in refs


def test_csharp_imports() -> None:
    assert imports(facts()) == {
        ("System", None, None, True),
        ("System.Collections.Generic", None, None, True),
        ("System.IO", None, "IO", False),
        ("System.Math", None, None, True),
    }
