from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""<?php
use App\\Contracts\\Sender;
use App\\Models\\{User, Post as Article};
use function App\\helpers\\format_date;
require_once __DIR__ . '/bootstrap.php';

const VERSION = '1.0';

namespace App\\Http {

/**
 * An HTTP client.
 */
#[Attribute]
final class Client extends BaseClient implements Sender, \\JsonSerializable
{
    use Retryable;

    public const MAX_RETRIES = 3;
    private array $headers = [];

    /** Builds one. */
    public function __construct(private Config $config)
    {
        parent::__construct();
    }

    // Sends a request.
    public function send(Request $req): Response
    {
        $res = $this->transport->execute($req);
        self::log($res);
        return new Response($res);
    }
}

interface Transport extends Base { public function execute(Request $req): Response; }

trait Retryable { function retry() { return helper(1); } }

enum Suit: string { case Hearts = 'H'; }

function helper(int $x): int { return strlen("x"); }
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/Http/Client.php", "php", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_php_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "VERSION", "constant", "const VERSION = '1.0';")
    http = assert_symbol(
        SOURCE, f, "App.Http", "module", snippet_between(SOURCE, "namespace App", 'strlen("x"); }\n}')
    )
    assert http.name == "Http"
    client = assert_symbol(
        SOURCE, f, "App.Http.Client", "class", snippet_between(SOURCE, "#[Attribute]", "($res);\n    }\n}")
    )
    assert client.doc == "An HTTP client."
    assert client.parent == "App.Http"
    assert_symbol(SOURCE, f, "App.Http.Client.MAX_RETRIES", "constant", "public const MAX_RETRIES = 3;")
    assert_symbol(SOURCE, f, "App.Http.Client.headers", "field", "private array $headers = [];")
    ctor = assert_symbol(
        SOURCE,
        f,
        "App.Http.Client.__construct",
        "constructor",
        snippet_between(SOURCE, "public function __construct", "__construct();\n    }"),
    )
    assert ctor.doc == "Builds one."
    send = assert_symbol(
        SOURCE,
        f,
        "App.Http.Client.send",
        "method",
        snippet_between(SOURCE, "public function send", "($res);\n    }"),
    )
    assert send.doc == "Sends a request."
    assert send.signature == "public function send(Request $req): Response"
    assert_symbol(
        SOURCE,
        f,
        "App.Http.Transport",
        "interface",
        "interface Transport extends Base { public function execute(Request $req): Response; }",
    )
    assert_symbol(
        SOURCE, f, "App.Http.Transport.execute", "method", "public function execute(Request $req): Response;"
    )
    assert_symbol(
        SOURCE, f, "App.Http.Retryable", "trait", "trait Retryable { function retry() { return helper(1); } }"
    )
    assert_symbol(SOURCE, f, "App.Http.Retryable.retry", "method", "function retry() { return helper(1); }")
    assert_symbol(SOURCE, f, "App.Http.Suit", "enum", "enum Suit: string { case Hearts = 'H'; }")
    assert_symbol(SOURCE, f, "App.Http.Suit.Hearts", "constant", "case Hearts = 'H';")
    assert_symbol(
        SOURCE, f, "App.Http.helper", "function", 'function helper(int $x): int { return strlen("x"); }'
    )


def test_php_references() -> None:
    refs = references(facts())
    assert ("BaseClient", "inherit", "App.Http.Client", None) in refs
    assert ("Sender", "implement", "App.Http.Client", None) in refs
    assert ("JsonSerializable", "implement", "App.Http.Client", None) in refs
    assert ("Retryable", "implement", "App.Http.Client", None) in refs
    assert ("Base", "inherit", "App.Http.Transport", None) in refs
    assert ("execute", "call", "App.Http.Client.send", "$this->transport") in refs
    assert ("log", "call", "App.Http.Client.send", "self") in refs
    assert ("__construct", "call", "App.Http.Client.__construct", "parent") in refs
    assert ("Response", "instantiate", "App.Http.Client.send", None) in refs
    assert ("helper", "call", "App.Http.Retryable.retry", None) in refs
    assert ("Config", "type", "App.Http.Client.__construct", None) in refs
    assert ("Request", "type", "App.Http.Client.send", None) in refs


def test_php_imports() -> None:
    assert imports(facts()) == {
        ("App\\Contracts", "Sender", None, False),
        ("App\\Models", "User", None, False),
        ("App\\Models", "Post", "Article", False),
        ("App\\helpers", "format_date", None, False),
        ("/bootstrap.php", None, None, False),
    }
