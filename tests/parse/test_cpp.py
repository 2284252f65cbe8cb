from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

HEADER = b"""#pragma once
#include <vector>

using Bytes = std::vector<uint8_t>;

namespace net {

/// A connection.
class Connection : public Base, private mixin::Logger<Connection> {
public:
    explicit Connection(int fd);
    ~Connection();
    /// Sends bytes.
    virtual size_t send(const Bytes& data) override;

private:
    struct Buffer { char* data; };
    template <typename T>
    T get() const { return T{}; }
    int fd_;
};

}  // namespace net
"""

SOURCE = b"""#include "net/connection.hpp"
#include <algorithm>

using namespace std;
using std::string;

namespace net {
namespace detail {
int clamp(int x) { return x; }
}

Connection::Connection(int fd) : fd_(fd) {
    auto* sock = new Socket(fd);
    sock->open();
    detail::clamp(fd);
    std::sort(buf.begin(), buf.end());
}

// Sends everything.
size_t Connection::send(const Bytes& data) {
    return ::write(fd_, data.data(), data.size());
}

enum class Mode { Fast, Slow };

template <typename T>
T Box<T>::get() const { return value_; }
}  // namespace net

namespace io::posix {
void flush() {}
}
"""


def facts(path: str, source: bytes) -> FileFacts:
    result = extract_facts(path, "cpp", source)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_cpp_header_definitions() -> None:
    f = facts("include/net/connection.hpp", HEADER)
    assert_symbol(HEADER, f, "Bytes", "type", "using Bytes = std::vector<uint8_t>;")
    assert_symbol(HEADER, f, "net", "module", snippet_between(HEADER, "namespace net {", "};\n\n}"))
    conn = assert_symbol(
        HEADER, f, "net.Connection", "class", snippet_between(HEADER, "class Connection", "fd_;\n}")
    )
    assert conn.doc == "A connection."
    assert conn.parent == "net"
    assert conn.signature == "class Connection : public Base, private mixin::Logger<Connection>"
    assert_symbol(HEADER, f, "net.Connection.Connection", "constructor", "explicit Connection(int fd);")
    assert_symbol(HEADER, f, "net.Connection.~Connection", "method", "~Connection();")
    send = assert_symbol(
        HEADER,
        f,
        "net.Connection.send",
        "method",
        "virtual size_t send(const Bytes& data) override;",
    )
    assert send.doc == "Sends bytes."
    assert_symbol(HEADER, f, "net.Connection.Buffer", "struct", "struct Buffer { char* data; }")
    assert_symbol(HEADER, f, "net.Connection.Buffer.data", "field", "char* data;")
    assert_symbol(HEADER, f, "net.Connection.get", "method", "T get() const { return T{}; }")
    assert_symbol(HEADER, f, "net.Connection.fd_", "field", "int fd_;")
    refs = references(f)
    assert ("Base", "inherit", "net.Connection", None) in refs
    assert ("Logger", "inherit", "net.Connection", "mixin") in refs
    assert ("Bytes", "type", "net.Connection.send", None) in refs
    assert imports(f) == {("vector", None, None, False)}


def test_cpp_out_of_line_definitions() -> None:
    f = facts("src/connection.cpp", SOURCE)
    assert_symbol(SOURCE, f, "net.detail", "module", "namespace detail {\nint clamp(int x) { return x; }\n}")
    assert_symbol(SOURCE, f, "net.detail.clamp", "function", "int clamp(int x) { return x; }")
    ctor = assert_symbol(
        SOURCE,
        f,
        "net.Connection.Connection",
        "constructor",
        snippet_between(SOURCE, "Connection::Connection", "buf.end());\n}"),
    )
    assert ctor.parent == "net.Connection"
    send = assert_symbol(
        SOURCE,
        f,
        "net.Connection.send",
        "method",
        snippet_between(SOURCE, "size_t Connection::send", "data.size());\n}"),
    )
    assert send.doc == "Sends everything."
    assert send.signature == "size_t Connection::send(const Bytes& data)"
    assert send.name == "send"
    assert_symbol(SOURCE, f, "net.Mode", "enum", "enum class Mode { Fast, Slow }")
    assert_symbol(SOURCE, f, "net.Mode.Slow", "constant", "Slow")
    get = assert_symbol(SOURCE, f, "net.Box.get", "method", "T Box<T>::get() const { return value_; }")
    assert get.parent == "net.Box"  # template arguments are not part of the qualified name
    posix = assert_symbol(SOURCE, f, "io.posix", "module", "namespace io::posix {\nvoid flush() {}\n}")
    assert posix.name == "posix"
    assert_symbol(SOURCE, f, "io.posix.flush", "function", "void flush() {}")


def test_cpp_references_and_imports() -> None:
    f = facts("src/connection.cpp", SOURCE)
    refs = references(f)
    assert ("Socket", "instantiate", "net.Connection.Connection", None) in refs
    assert ("open", "call", "net.Connection.Connection", "sock") in refs
    assert ("clamp", "call", "net.Connection.Connection", "detail") in refs
    assert ("sort", "call", "net.Connection.Connection", "std") in refs
    assert ("write", "call", "net.Connection.send", None) in refs
    assert ("size", "call", "net.Connection.send", "data") in refs
    assert imports(f) == {
        ("net/connection.hpp", None, None, False),
        ("algorithm", None, None, False),
        ("std", None, None, True),
        ("std", "string", None, False),
    }


def test_cpp_export_macro_does_not_leak_into_the_name() -> None:
    # Not knowing NS_API, the grammar reads `__nv_bfloat16 __double2bfloat16` as one qualified name.
    source = b"NS_API __nv_bfloat16 __double2bfloat16(const double x)\n{\n    return x;\n}\n"
    f = extract_facts("include/bf16.hpp", "cpp", source)
    assert f.error is None
    convert = assert_symbol(source, f, "__double2bfloat16", "function", source.decode().rstrip("\n"))
    assert convert.parent is None


TYPES = b"""template <typename T, class U = int>
class Box {
  T value;
  std::unique_ptr<Stack> stack;
  Kind::value kind;
  a::b::Deep deep;
  U other;
};

namespace stdr {
template <class T>
using numeric_limits = std::numeric_limits<T>;
}

void make() {
  auto s = new Stack;
  auto p = static_cast<Shape*>(nullptr);
}
"""


def test_cpp_type_names_at_any_depth() -> None:
    """A template's argument, a cast's type and a path (`Kind::value`, whole) are type references; a
    template's own parameters (`T`, `U`) are not; `new Stack` is one `instantiate` reference, not also a
    type (session 52)."""
    refs = extract_facts("box.h", "cpp", TYPES).references
    kinds = sorted((r.name, r.kind, r.receiver) for r in refs if r.kind in ("type", "instantiate"))
    assert ("Stack", "type", None) in kinds  # std::unique_ptr<Stack>
    assert ("value", "type", "Kind") in kinds and ("value", "type", None) not in kinds
    assert ("Deep", "type", "a.b") in kinds and ("Deep", "type", None) not in kinds
    assert ("Shape", "type", None) in kinds
    assert [k for k in kinds if k[0] == "Stack" and k[1] == "instantiate"] == [("Stack", "instantiate", None)]
    assert not [k for k in kinds if k[0] in ("T", "U")]
    # the scoped template an alias names is the scope's, not the alias being defined
    assert ("numeric_limits", "type", "std") in kinds and ("numeric_limits", "type", None) not in kinds
    assert ("unique_ptr", "type", "std") in kinds
    sites = [(r.name, r.start_byte) for r in refs if r.name == "Stack"]
    assert len(sites) == len(set(sites)) == 2  # one at the field's argument, one at `new`
