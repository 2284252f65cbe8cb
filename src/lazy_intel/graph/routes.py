"""HTTP routes: Flask, FastAPI, Starlette, Django, Express (and hono, fastify, koa, elysia: the same
call shape, named by the package the file imports), Next.js and Go's routers (gin, echo, chi, fiber,
gorilla/mux, net/http), recognised from a file's own facts.

Decorator routes (``@app.get("/x")``, ``@bp.route("/x", methods=[…])``) and call routes
(``path("x/", views.f)``, ``Route("/x", endpoint)``, ``app.post("/x", handler)``, ``r.GET("/x", h)``, ``mux.HandleFunc("GET /x",
h)``) come from call sites and their literal arguments; Next.js routes from the file's place under
``pages/`` or ``app/``. Each route becomes a Route node; :func:`handler_of` says what the HANDLES edge
should point at. Prefixes of groups and mounted routers (``r.Group("/v1")``, ``app.use("/api",
router)``) are not followed: a route's path is the one its call writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lazy_intel.graph.model import FileModel, Ref

HTTP_METHODS = ("get", "post", "put", "delete", "patch", "head", "options")
DECORATOR_METHODS = frozenset({*HTTP_METHODS, "route", "api_route", "websocket"})
DJANGO_FUNCTIONS = frozenset({"path", "re_path", "url"})
STARLETTE_ROUTES = frozenset({"Route", "WebSocketRoute"})  # `Mount` prefixes are not followed
EXPRESS_METHODS = frozenset({*HTTP_METHODS, "all"})
ECMA = frozenset({"javascript", "typescript", "tsx"})
# Go: a router package the file imports names the framework (the first that matches, in this order)
GO_ROUTERS = (
    ("github.com/gin-gonic/gin", "gin"),
    ("github.com/labstack/echo", "echo"),
    ("github.com/go-chi/chi", "chi"),
    ("github.com/gofiber/fiber", "fiber"),
    ("github.com/gorilla/mux", "gorilla"),
    ("net/http", "net/http"),
)
# ECMAScript routers with Express's call shape, by the package a file imports
ECMA_ROUTERS = (
    ("express", "express"),
    ("hono", "hono"),
    ("fastify", "fastify"),
    ("@koa/router", "koa"),
    ("koa-router", "koa"),
    ("elysia", "elysia"),
)
GO_UPPER_METHODS = frozenset(m.upper() for m in HTTP_METHODS)  # gin, echo: r.GET("/x", h)
GO_TITLE_METHODS = frozenset(m.title() for m in HTTP_METHODS)  # chi, fiber: r.Get("/x", h)
GO_HANDLE = frozenset({"Handle", "HandleFunc"})  # net/http, gorilla, chi: mux.HandleFunc("/x", h)
GO_METHOD_PATTERN = re.compile(r"^([A-Z]+)\s+(/\S*)$")  # Go 1.22: "GET /items/{id}"
NEXT_PAGES = re.compile(r"(?:^|/)pages/(.+)\.(?:js|jsx|ts|tsx)$")
NEXT_APP = re.compile(r"(?:^|/)app/(?:(.*)/)?(route|page)\.(?:js|jsx|ts|tsx)$")


@dataclass(frozen=True)
class RouteSite:
    method: str
    pattern: str
    framework: str
    start_byte: int
    end_byte: int
    line: int
    end_line: int
    handler_symbol: str | None = None  # qualified name of a definition in this file
    handler_expr: Any = None  # or an expression to resolve in ``scope``
    scope: str = ""


def _string(arg: Any) -> str | None:
    return arg[1] if isinstance(arg, list) and arg and arg[0] == "s" else None


def _imports_module(model: FileModel, prefix: str) -> bool:
    return any(i.module == prefix or i.module.startswith(prefix + ".") for i in model.imports)


def route_sites(model: FileModel) -> list[RouteSite]:
    if model.lang == "python":
        return _python_routes(model)
    if model.lang in ECMA:
        return _next_routes(model) + _express_routes(model)
    if model.lang == "go":
        return _go_routes(model)
    return []


def _go_framework(model: FileModel) -> str | None:
    for prefix, name in GO_ROUTERS:
        if any(i.module == prefix or i.module.startswith(prefix + "/") for i in model.imports):
            return name
    return None


def _go_route(framework: str, member: str, args: list[Any]) -> tuple[str, str, Any] | None:
    """(method, path, handler expression) of a Go router call, or ``None``."""
    if member in GO_UPPER_METHODS or (member == "Any" and framework in ("gin", "echo")):
        method = "ANY" if member == "Any" else member
        pattern, handler = _string(args[0]), args[-1]
    elif member in GO_TITLE_METHODS and framework in ("chi", "fiber"):
        method, pattern, handler = member.upper(), _string(args[0]), args[-1]
    elif member == "Handle" and framework in ("gin", "echo") and len(args) >= 3:
        method, pattern, handler = (_string(args[0]) or "ANY").upper(), _string(args[1]), args[-1]
    elif member in GO_HANDLE:
        method, pattern, handler = "ANY", _string(args[0]), args[-1]
        spelled = GO_METHOD_PATTERN.match(pattern or "")
        if spelled is not None:
            method, pattern = spelled.group(1), spelled.group(2)
    else:
        return None
    if pattern is None or not pattern.startswith("/") or handler[0] not in ("n", "a", "l", "c"):
        return None
    return method, pattern, handler


def _go_routes(model: FileModel) -> list[RouteSite]:
    framework = _go_framework(model)
    if framework is None:
        return []
    out = []
    for ref in model.refs:
        if ref.kind != "call" or ref.args_json is None:
            continue
        callee = ref.callee()
        if callee[0] != "a":
            continue
        args = ref.args()
        found = _go_route(framework, callee[2], args) if len(args) >= 2 else None
        if found is None:
            continue
        method, pattern, handler = found
        out.append(
            RouteSite(
                method,
                pattern,
                framework,
                ref.start_byte,
                ref.end_byte,
                ref.line,
                ref.line,
                handler_expr=handler,
                scope=model.scope_of(ref.scope, ref.start_byte),
            )
        )
    return out


def _python_routes(model: FileModel) -> list[RouteSite]:
    out: list[RouteSite] = []
    framework = "fastapi" if _imports_module(model, "fastapi") else "flask"
    for qualified, refs in model.header_refs.items():
        symbol = model.by_qualified[qualified]
        for ref in refs:
            site = _decorator_route(ref, framework)
            for method, pattern, kind in site:
                out.append(
                    RouteSite(
                        method,
                        pattern,
                        kind,
                        ref.start_byte,
                        ref.end_byte,
                        ref.line,
                        symbol.end_line,
                        qualified,
                    )
                )
    if _imports_module(model, "starlette"):
        out += _starlette_routes(model)
    if _imports_module(model, "django"):
        for ref in model.refs:
            if ref.args_json is None:  # not call syntax
                continue
            callee = ref.callee()
            name = callee[1] if callee[0] == "n" else callee[2] if callee[0] == "a" else None
            if name not in DJANGO_FUNCTIONS:  # the arguments are decoded only for these calls
                continue
            args = ref.args()
            pattern = _string(args[0]) if args else None
            if pattern is None or len(args) < 2:
                continue
            handler = args[1]
            if handler[0] == "c" and handler[1] in (["n", "include"], ["a", ["n", "urls"], "include"]):
                continue
            scope = model.scope_of(ref.scope, ref.start_byte)
            out.append(
                RouteSite(
                    "ANY",
                    "/" + pattern.lstrip("^/").rstrip("$"),
                    "django",
                    ref.start_byte,
                    ref.end_byte,
                    ref.line,
                    ref.line,
                    handler_expr=handler,
                    scope=scope,
                )
            )
    return out


def _argument(args: list[Any], position: int, keyword: str) -> Any:
    """A call's argument by position (before any keyword argument) or by keyword, or None."""
    for arg in args:
        if arg and arg[0] == "kw" and arg[1] == keyword:
            return arg[2]
    positional = [a for a in args if a and a[0] not in ("kw", "*")]
    return positional[position] if len(positional) > position else None


def _starlette_routes(model: FileModel) -> list[RouteSite]:
    """``Route("/users/{id}", endpoint, methods=["GET"])`` and ``WebSocketRoute("/ws", endpoint)`` of a
    file that imports Starlette: without ``methods``, a function endpoint answers GET, an endpoint
    class (``HTTPEndpoint``: a capitalised name) the methods it defines (``ANY``)."""
    out = []
    for ref in model.refs:
        if ref.args_json is None or ref.name not in STARLETTE_ROUTES:
            continue
        args = ref.args()
        pattern = _string(_argument(args, 0, "path"))
        handler = _argument(args, 1, "endpoint")
        if pattern is None or not pattern.startswith("/") or not handler or handler[0] not in ("n", "a"):
            continue
        listed = next((a[2] for a in args if a and a[0] == "kw" and a[1] == "methods"), None)  # keyword-only
        methods = (
            [m.upper() for item in listed[1] if (m := _string(item))] if listed and listed[0] == "t" else []
        )
        if ref.name == "WebSocketRoute":
            methods = ["WEBSOCKET"]
        elif not methods:
            named = handler[1] if handler[0] == "n" else handler[2]
            methods = ["ANY" if str(named)[:1].isupper() else "GET"]
        scope = model.scope_of(ref.scope, ref.start_byte)
        for method in methods:
            out.append(
                RouteSite(
                    method,
                    pattern,
                    "starlette",
                    ref.start_byte,
                    ref.end_byte,
                    ref.line,
                    ref.line,
                    handler_expr=handler,
                    scope=scope,
                )
            )
    return out


def _decorator_route(ref: Ref, framework: str) -> list[tuple[str, str, str]]:
    callee = ref.callee()
    if callee[0] != "a" or callee[2] not in DECORATOR_METHODS or ref.args_json is None:
        return []
    args = ref.args()
    pattern = _string(args[0]) if args else None
    if pattern is None:
        keyword = next((a for a in args if a[0] == "kw" and a[1] in ("path", "rule")), None)
        pattern = _string(keyword[2]) if keyword else None
    if pattern is None or not (pattern.startswith("/") or pattern == ""):
        return []
    member = callee[2]
    if member in HTTP_METHODS:
        return [(member.upper(), pattern or "/", framework)]
    methods_arg = next((a for a in args if a[0] == "kw" and a[1] == "methods"), None)
    methods = []
    if methods_arg is not None and methods_arg[2][0] == "t":
        methods = [m.upper() for item in methods_arg[2][1] if (m := _string(item))]
    kind = "flask" if member == "route" else framework
    return [(m, pattern or "/", kind) for m in methods or ["GET" if member == "route" else "ANY"]]


def _ecma_framework(model: FileModel) -> str:
    """The router package the file imports (the first of ``ECMA_ROUTERS`` that matches), else
    ``express``, whose call shape (``app.get("/x", handler)``) the others share."""
    for prefix, name in ECMA_ROUTERS:
        if any(i.module == prefix or i.module.startswith(prefix + "/") for i in model.imports):
            return name
    return "express"


def _express_routes(model: FileModel) -> list[RouteSite]:
    framework = _ecma_framework(model)
    out = []
    for ref in model.refs:
        if ref.kind != "call" or ref.args_json is None:
            continue
        callee = ref.callee()
        args = ref.args()
        if callee[0] != "a" or callee[2] not in EXPRESS_METHODS or len(args) < 2:
            continue
        pattern = _string(args[0])
        handler = args[-1]
        if pattern is None or not pattern.startswith("/") or handler[0] not in ("n", "a", "l"):
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        method = "ANY" if callee[2] == "all" else callee[2].upper()
        out.append(
            RouteSite(
                method,
                pattern,
                framework,
                ref.start_byte,
                ref.end_byte,
                ref.line,
                ref.line,
                handler_expr=handler,
                scope=scope,
            )
        )
    return out


def _next_routes(model: FileModel) -> list[RouteSite]:
    top = [s for s in model.symbols if s.parent is None and s.kind in ("function", "variable", "constant")]
    functions = [s for s in top if s.kind == "function"]
    app = NEXT_APP.search(model.path)
    if app is not None:
        segments = [s for s in (app.group(1) or "").split("/") if s and not s.startswith("(")]
        pattern = "/" + "/".join(segments)
        if app.group(2) == "page":
            handler = functions[0] if functions else None
            return [_whole_file(model, "GET", pattern, handler.qualified if handler else None)]
        return [
            _whole_file(model, s.name, pattern, s.qualified)
            for s in top
            if s.name in {m.upper() for m in HTTP_METHODS}
        ]
    pages = NEXT_PAGES.search(model.path)
    if pages is None or "/_" in "/" + pages.group(1):
        return []
    segments = [s for s in pages.group(1).split("/") if s]
    if segments and segments[-1] == "index":
        segments = segments[:-1]
    named = next((s for s in functions if s.name == "handler"), None)
    handler = named or (functions[0] if functions else None)
    method = "ANY" if segments[:1] == ["api"] else "GET"
    return [_whole_file(model, method, "/" + "/".join(segments), handler.qualified if handler else None)]


def _whole_file(model: FileModel, method: str, pattern: str, handler: str | None) -> RouteSite:
    end_line = max((s.end_line for s in model.symbols), default=1)
    end_byte = max((s.end_byte for s in model.symbols), default=0)
    return RouteSite(method, pattern, "nextjs", 0, end_byte, 1, end_line, handler_symbol=handler)
