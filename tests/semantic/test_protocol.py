"""JSON-RPC framing limits, scrubbing, URI containment and stable cursors."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.semantic import jsonrpc
from lazy_intel.semantic.pagination import decode_cursor, encode_cursor
from lazy_intel.semantic.scrub import scrub_markdown, scrub_text
from lazy_intel.semantic.uris import UriRejected, path_to_uri, uri_to_relative


def frames(*bodies: bytes) -> io.BytesIO:
    return io.BytesIO(b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies))


def test_frames_round_trip_with_extra_headers() -> None:
    message = jsonrpc.request(7, "textDocument/hover", {"x": "é😀"})
    stream = io.BytesIO(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + jsonrpc.encode(message)
    )
    assert jsonrpc.decode(jsonrpc.read_frame(stream)).body == message
    with pytest.raises(jsonrpc.StreamClosed):
        jsonrpc.read_frame(stream)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"Content-Length: 99999999999\r\n\r\n", "exceeds"),
        (b"Content-Length: -1\r\n\r\n", "invalid Content-Length"),
        (b"X-Other: 1\r\n\r\n{}", "without Content-Length"),
        (b"garbage\r\n\r\n", "malformed header"),
        (b"X: " + b"a" * 9000 + b"\r\n", "header line longer"),
        (b"".join(b"X-%d: 1\r\n" % i for i in range(20)), "header lines"),
    ],
)
def test_framing_violations(raw: bytes, problem: str) -> None:
    with pytest.raises(jsonrpc.ProtocolError, match=problem):
        jsonrpc.read_frame(io.BytesIO(raw), max_body=1024)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON-RPC object"),
        (b'{"id": 1, "result": null}', "jsonrpc: 2.0"),
        (b'{"jsonrpc": "2.0", "id": 1}', "neither a request"),
        (b'{"jsonrpc": "2.0", "id": [1], "result": 1}', "neither a number"),
        (b'{"jsonrpc": "2.0", "method": 5}', "method is not a string"),
    ],
)
def test_invalid_messages(body: bytes, problem: str) -> None:
    with pytest.raises(jsonrpc.ProtocolError, match=problem):
        jsonrpc.decode(jsonrpc.read_frame(frames(body)))


def test_non_utf8_body_is_lossy_not_fatal() -> None:
    message = jsonrpc.decode(b'{"jsonrpc":"2.0","id":1,"result":"caf\xe9"}')
    assert message.lossy
    assert message.body["result"] == "caf\ufffd"


def test_scrub_markdown_keeps_code_and_words() -> None:
    text = (
        "```typescript\nfunction f(): Promise<Map<string, number>>\n```\n"
        "Read [the guide](https://example.com/guide) ![img](http://x/y.png) <a href='http://x'>here</a>\n"
        "[ref]: https://example.com/ref\n<https://auto.example/link>\n"
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop api_key: 'abcd1234efgh5678'"
    )
    out = scrub_markdown(text)
    assert "function f(): Promise<Map<string, number>>" in out
    assert "Read the guide img here" in out
    for leaked in ("http", "example.com", "BEGIN RSA", "MIIE", "eyJ", "abcd1234", "```"):
        assert leaked not in out


def test_scrub_text_controls_and_cap() -> None:
    assert scrub_text("a\x1b[2Jb\x00c\u200bd\u202ee") == "abcde"
    assert scrub_text("x" * 50, limit=10) == "x" * 9 + "…"
    assert scrub_text("postgres://user:pa55word@db/x") == "postgres://[redacted]@db/x"


def test_uri_containment(tmp_path: Path) -> None:
    root = tmp_path.resolve() / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a b.py").write_text("x")
    (root / "link").symlink_to(tmp_path)
    assert uri_to_relative(root, path_to_uri(root / "pkg" / "a b.py")) == "pkg/a b.py"
    assert uri_to_relative(root, "file://localhost" + str(root) + "/pkg/a%20b.py") == "pkg/a b.py"
    rejected = {
        "https://example.com/x.py": "non-file",
        "file://host/x.py": "remote",
        path_to_uri(tmp_path / "other.py"): "outside",
        path_to_uri(root) + "/link/ws/pkg/a%20b.py": "symbolic link",
        path_to_uri(root) + "/pkg/../pkg/x.py": "'..'",
        path_to_uri(root) + "/pkg%2Fx.py": "forbidden percent-escape",
        path_to_uri(root) + "/x%zz.py": "invalid",
        path_to_uri(root) + "/.lazy-intel/store.db": "state directory",
        path_to_uri(root) + "/x.py?q=1": "query",
        "file:relative.py": "absolute",
    }
    for uri, reason in rejected.items():
        with pytest.raises(UriRejected, match=reason):
            uri_to_relative(root, uri)


def test_cursor_is_bound_to_its_query() -> None:
    cursor = encode_cursor("f" * 64, 50)
    assert decode_cursor(cursor, "f" * 64) == 50
    assert decode_cursor(None, "f" * 64) == 0
    with pytest.raises(LazyIntelError) as caught:
        decode_cursor(cursor, "e" * 64)
    assert caught.value.code == "CURSOR_STALE"
    with pytest.raises(InvalidArgument):
        decode_cursor("not-a-cursor!", "f" * 64)
