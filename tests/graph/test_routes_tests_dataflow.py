"""HANDLES (Flask, FastAPI, Django, Express, Next.js, Go routers), TESTS, and ASSIGNED_FROM with condition paths."""

from __future__ import annotations

import textwrap

from tests.graph.helpers import Graph, build_graph

ROUTES = {
    "svc/flask_app.py": textwrap.dedent(
        """
        from flask import Flask
        app = Flask(__name__)

        @app.route('/items', methods=['GET', 'POST'])
        def items():
            return 'x'

        @app.get('/health')
        def health():
            return 'ok'
        """
    ),
    "svc/fast.py": "from fastapi import FastAPI\napi = FastAPI()\n\n@api.post('/users/{uid}')\nasync def create_user(uid: int):\n    return uid\n",
    "svc/views.py": "def index(request):\n    return None\n\nclass ItemView:\n    @classmethod\n    def as_view(cls):\n        return cls\n",
    "svc/urls.py": textwrap.dedent(
        """
        from django.urls import path, include
        from . import views

        urlpatterns = [
            path('', views.index),
            path('items/', views.ItemView.as_view()),
            path('api/', include('svc.api_urls')),
        ]
        """
    ),
    "svc/star.py": (
        "from starlette.applications import Starlette\nfrom starlette.routing import Route, WebSocketRoute\n\n"
        "async def homepage(request):\n    return None\n\n"
        "class Users:\n    async def get(self, request):\n        return None\n\n"
        "async def feed(websocket):\n    return None\n\n"
        "routes = [\n    Route('/', homepage),\n    Route('/users', endpoint=Users),\n"
        "    Route('/save', homepage, methods=['POST', 'PUT']),\n    WebSocketRoute('/ws', feed),\n]\n"
        "app = Starlette(routes=routes)\n"
    ),
    "web/server.js": (
        "const express = require('express');\nconst app = express();\n"
        "function listUsers(req, res) { res.send([]); }\napp.get('/users', listUsers);\n"
        "app.post('/users', (req, res) => res.send('ok'));\n"
    ),
    "web/edge.ts": "import { Hono } from 'hono'\nconst app = new Hono()\nfunction ping(c) { return 1 }\napp.get('/ping', ping)\n",
    "web/pages/about.tsx": "export default function About() { return null; }\n",
    "web/pages/api/hello.ts": "export default function handler(req, res) { res.status(200); }\n",
    "web/pages/_app.tsx": "export default function App() { return null; }\n",
    "web/app/blog/[slug]/page.tsx": "export default function Post() { return null; }\n",
    "web/app/api/items/route.ts": "export async function GET() { return 1; }\nexport async function POST() { return 2; }\n",
}


def routes_of(graph: Graph) -> dict[tuple[str, str, str], str]:
    """(framework, method, path) -> the Route node's name."""
    return {
        (props["framework"], props["method"], props["path"]): name
        for name, props in graph.node_props.items()
        if "Route" in graph.labels[name]
    }


def test_routes_and_their_handlers(tmp_path) -> None:
    graph = build_graph(tmp_path, ROUTES)
    routes = routes_of(graph)
    assert sorted(routes) == [
        ("django", "ANY", "/"),
        ("django", "ANY", "/items/"),
        ("express", "GET", "/users"),
        ("express", "POST", "/users"),
        ("fastapi", "POST", "/users/{uid}"),
        ("flask", "GET", "/health"),
        ("flask", "GET", "/items"),
        ("flask", "POST", "/items"),
        ("hono", "GET", "/ping"),  # Express's call shape, named by the package the file imports
        ("nextjs", "ANY", "/api/hello"),
        ("nextjs", "GET", "/about"),
        ("nextjs", "GET", "/api/items"),
        ("nextjs", "GET", "/blog/[slug]"),
        ("nextjs", "POST", "/api/items"),
        ("starlette", "ANY", "/users"),  # an endpoint class answers the methods it defines
        ("starlette", "GET", "/"),
        ("starlette", "POST", "/save"),
        ("starlette", "PUT", "/save"),
        ("starlette", "WEBSOCKET", "/ws"),
    ]
    handles = {e.src: (e.dst, e.strategy) for e in graph.of("HANDLES")}
    assert handles[routes[("flask", "POST", "/items")]] == ("svc/flask_app.py::items", "local")
    assert handles[routes[("fastapi", "POST", "/users/{uid}")]] == ("svc/fast.py::create_user", "local")
    # Django: a view imported through `from . import views`; a class-based view's as_view()
    assert handles[routes[("django", "ANY", "/")]] == ("svc/views.py::index", "import")
    assert handles[routes[("django", "ANY", "/items/")]] == ("svc/views.py::ItemView", "import")
    assert handles[routes[("starlette", "GET", "/")]] == ("svc/star.py::homepage", "local")
    assert handles[routes[("starlette", "ANY", "/users")]] == ("svc/star.py::Users", "local")
    assert handles[routes[("starlette", "WEBSOCKET", "/ws")]] == ("svc/star.py::feed", "local")
    assert handles[routes[("express", "GET", "/users")]] == ("web/server.js::listUsers", "local")
    assert routes[("express", "POST", "/users")] not in handles  # an inline handler: the route's own span
    assert handles[routes[("nextjs", "GET", "/about")]] == ("web/pages/about.tsx::About", "local")
    assert handles[routes[("nextjs", "ANY", "/api/hello")]] == ("web/pages/api/hello.ts::handler", "local")
    assert handles[routes[("nextjs", "POST", "/api/items")]] == ("web/app/api/items/route.ts::POST", "local")


TESTS = {
    "pkg/calc.py": "def add(a, b):\n    return a + b\n\nclass Parser:\n    def parse(self, s):\n        return s\n",
    "pkg/other.py": "def unrelated():\n    return 0\n",
    "tests/test_calc.py": textwrap.dedent(
        """
        from pkg.calc import add, Parser


        def test_add():
            assert add(1, 2) == 3


        def test_parser():
            Parser().parse('x')


        def helper_not_a_test():
            add(0, 0)
        """
    ),
    "web/util.ts": "export function fmt(x: string) { return x; }\n",
    "web/util.test.ts": "import { fmt } from './util';\ntest('fmt', () => { fmt('a'); });\n",
}


def test_tests_edges_by_naming_and_calls(tmp_path) -> None:
    graph = build_graph(tmp_path, TESTS)
    tests = {(e.src, e.dst): (e.strategy, e.props.get("evidence")) for e in graph.of("TESTS")}
    # file level: test_calc.py tests calc.py (it imports it); util.test.ts tests util.ts
    assert tests[("tests/test_calc.py", "pkg/calc.py")][0] == "import"
    assert tests[("web/util.test.ts", "web/util.ts")][0] == "import"
    # function level: test_add names add (and calls it); test_parser calls Parser.parse
    assert tests[("tests/test_calc.py::test_add", "pkg/calc.py::add")] == ("naming", "naming")
    assert tests[("tests/test_calc.py::test_parser", "pkg/calc.py::Parser.parse")] == ("member", "call")
    assert not [key for key in tests if key[0] == "tests/test_calc.py::helper_not_a_test"]
    assert not [key for key in tests if key[1] is not None and key[1].startswith("pkg/other.py")]
    assert "Test" in graph.labels["tests/test_calc.py::test_add"]
    assert "Test" not in graph.labels["pkg/calc.py::add"]


FLOW = {
    "pkg/flow.py": textwrap.dedent(
        """
        def compute(flag, items):
            total = 0
            if flag:
                total = len(items)
            for item in items:
                try:
                    total = total + item
                except ValueError:
                    pass
            result = helper(total)
            return result


        def helper(x):
            return x
        """
    )
}


def test_assigned_from_records_sources_and_condition_paths(tmp_path) -> None:
    graph = build_graph(tmp_path, FLOW)
    flows = {
        (e.src.split("::")[1], e.dst.split("::")[1] if e.dst else None): e for e in graph.of("ASSIGNED_FROM")
    }
    assert set(flows) == {
        ("compute.total", "compute.items"),
        ("compute.total", "compute.item"),
        ("compute.item", "compute.items"),
        ("compute.result", "compute.total"),
        ("compute.result", "helper"),
    }
    assert flows[("compute.total", "compute.items")].props == {
        "condition_path": ["if_statement"],
        "via": "argument",
    }
    assert flows[("compute.total", "compute.item")].props == {
        "condition_path": ["for_statement", "try_statement"],
        "via": "operand",
    }
    assert flows[("compute.item", "compute.items")].props == {"via": "element"}
    assert flows[("compute.result", "helper")].props == {"via": "call"}
    assert flows[("compute.result", "helper")].strategy == "local"
    # the local variables and parameters are Variable nodes of the function
    assert graph.node_props["pkg/flow.py::compute.items"] == {"parent": "compute"}
    assert "Variable" in graph.labels["pkg/flow.py::compute.total"]


GO_ROUTES = {
    "go.mod": "module example.com/svc\n",
    "gin_app.go": (
        'package svc\n\nimport "github.com/gin-gonic/gin"\n\n'
        "func listUsers(c *gin.Context) {}\n\n"
        "func Routes(r *gin.Engine) {\n"
        '\tr.GET("/users", listUsers)\n'
        '\tv1 := r.Group("/v1")\n'
        '\tv1.POST("/items", func(c *gin.Context) {})\n'
        '\tr.Any("/ping", listUsers)\n'
        '\tr.Handle("DELETE", "/users/:id", listUsers)\n'
        "}\n"
    ),
    "chi_app.go": (
        'package svc\n\nimport (\n\t"net/http"\n\n\t"github.com/go-chi/chi/v5"\n)\n\n'
        "func getItem(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func Chi() {\n\tr := chi.NewRouter()\n"
        '\tr.Get("/items/{id}", getItem)\n'
        '\tr.Delete("/items/{id}", getItem)\n}\n'
    ),
    "std_app.go": (
        'package svc\n\nimport "net/http"\n\n'
        "func health(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func Std() {\n\tmux := http.NewServeMux()\n"
        '\tmux.HandleFunc("/health", health)\n'
        '\tmux.HandleFunc("POST /orders/{id}", health)\n'
        '\thttp.Handle("/static/", http.FileServer(http.Dir(".")))\n'
        '\thttp.Get("/not-a-route")\n}\n'
    ),
    "client.go": (  # no router imported: a `.Get(path, x)` of an HTTP client is not a route
        "package svc\n\ntype Client struct{}\n\nfunc (c *Client) Get(path string, out any) {}\n\n"
        'func Fetch(c *Client) {\n\tc.Get("/users", nil)\n}\n'
    ),
}


def test_go_routes_and_their_handlers(tmp_path) -> None:
    graph = build_graph(tmp_path, GO_ROUTES)
    routes = routes_of(graph)
    assert sorted(routes) == [
        ("chi", "DELETE", "/items/{id}"),
        ("chi", "GET", "/items/{id}"),
        ("gin", "ANY", "/ping"),
        ("gin", "DELETE", "/users/:id"),
        ("gin", "GET", "/users"),
        ("gin", "POST", "/items"),  # the group's prefix is not followed
        ("net/http", "ANY", "/health"),
        ("net/http", "ANY", "/static/"),
        ("net/http", "POST", "/orders/{id}"),
    ]
    handles = {e.src: (e.dst, e.strategy) for e in graph.of("HANDLES")}
    assert handles[routes[("gin", "GET", "/users")]] == ("gin_app.go::listUsers", "local")
    assert handles[routes[("gin", "DELETE", "/users/:id")]] == ("gin_app.go::listUsers", "local")
    assert routes[("gin", "POST", "/items")] not in handles  # an inline handler: the route's own span
    assert handles[routes[("chi", "GET", "/items/{id}")]] == ("chi_app.go::getItem", "local")
    assert handles[routes[("net/http", "POST", "/orders/{id}")]][0] == "std_app.go::health"
