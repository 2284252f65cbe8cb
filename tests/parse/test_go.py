from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""// Package server serves HTTP.
package server

import (
	"context"
	nethttp "net/http"
	. "strings"
	_ "embed"
)

import "fmt"

// MaxConns caps connections.
const MaxConns = 10

const (
	ModeA = iota
	ModeB
)

var defaultServer = New(":80")

// Server handles requests.
type Server struct {
	base.Handler
	*Logger
	Addr string
	mux  *nethttp.ServeMux
}

// Store persists things.
type Store interface {
	io.Closer
	Get(ctx context.Context, key string) ([]byte, error)
}

type (
	ID    int64
	Alias = string
)

// New creates a server.
func New(addr string) *Server {
	return &Server{Addr: addr}
}

// Serve runs until ctx is done.
func (s *Server) Serve(ctx context.Context) error {
	s.mux.HandleFunc("/", s.handle)
	fmt.Println(ToUpper(s.Addr))
	return nethttp.ListenAndServe(s.Addr, s.mux)
}

func (l *List[T]) Push(v T) {}
"""


def facts() -> FileFacts:
    result = extract_facts("server/server.go", "go", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_go_definitions() -> None:
    f = facts()
    max_conns = assert_symbol(SOURCE, f, "MaxConns", "constant", "const MaxConns = 10")
    assert max_conns.doc == "MaxConns caps connections."
    assert_symbol(SOURCE, f, "ModeA", "constant", "ModeA = iota")
    assert_symbol(SOURCE, f, "ModeB", "constant", "ModeB")
    assert_symbol(SOURCE, f, "defaultServer", "variable", 'var defaultServer = New(":80")')
    server = assert_symbol(
        SOURCE, f, "Server", "struct", snippet_between(SOURCE, "type Server struct", "ServeMux\n}")
    )
    assert server.doc == "Server handles requests."
    assert_symbol(SOURCE, f, "Server.Addr", "field", "Addr string")
    store = assert_symbol(
        SOURCE, f, "Store", "interface", snippet_between(SOURCE, "type Store interface", "error)\n}")
    )
    assert store.doc == "Store persists things."
    get = assert_symbol(
        SOURCE, f, "Store.Get", "method", "Get(ctx context.Context, key string) ([]byte, error)"
    )
    assert get.parent == "Store"
    assert_symbol(SOURCE, f, "ID", "type", "ID    int64")
    assert_symbol(SOURCE, f, "Alias", "type", "Alias = string")
    new = assert_symbol(SOURCE, f, "New", "function", snippet_between(SOURCE, "func New", "{Addr: addr}\n}"))
    assert new.doc == "New creates a server."
    assert new.signature == "func New(addr string) *Server"
    serve = assert_symbol(
        SOURCE, f, "Server.Serve", "method", snippet_between(SOURCE, "func (s *Server) Serve", "s.mux)\n}")
    )
    assert serve.parent == "Server"
    assert serve.doc == "Serve runs until ctx is done."
    assert serve.signature == "func (s *Server) Serve(ctx context.Context) error"
    push = assert_symbol(SOURCE, f, "List.Push", "method", "func (l *List[T]) Push(v T) {}")
    assert push.parent == "List"


def test_go_references() -> None:
    refs = references(facts())
    assert ("New", "call", "defaultServer", None) in refs
    assert ("Server", "instantiate", "New", None) in refs
    assert ("HandleFunc", "call", "Server.Serve", "s.mux") in refs
    assert ("Println", "call", "Server.Serve", "fmt") in refs
    assert ("ToUpper", "call", "Server.Serve", None) in refs
    assert ("ListenAndServe", "call", "Server.Serve", "nethttp") in refs
    assert ("Handler", "inherit", "Server", "base") in refs
    assert ("Logger", "inherit", "Server", None) in refs
    assert ("Closer", "inherit", "Store", "io") in refs
    assert ("Context", "type", "Server.Serve", "context") in refs
    assert ("ServeMux", "type", "Server.mux", "nethttp") in refs
    assert ("Server", "type", "New", None) in refs
    assert not any(name in {"string", "error", "byte"} for name, kind, *_ in refs if kind == "type")


def test_go_imports() -> None:
    assert imports(facts()) == {
        ("context", None, None, False),
        ("net/http", None, "nethttp", False),
        ("strings", None, None, True),
        ("embed", None, "_", False),
        ("fmt", None, None, False),
    }
