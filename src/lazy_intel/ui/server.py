"""The ``lazy-intel ui`` web server: standard-library ``http.server`` on loopback only.

Why the standard library: the page needs a handful of GET endpoints and one event stream, served
to one person's browser; ``ThreadingHTTPServer`` does that without a framework or an event loop to
bring along, and every request is bounded here (size, concurrency, socket timeout).

Access: the server binds 127.0.0.1 (never another interface) on the port asked for, or a free one.
Each run makes a random token (:func:`secrets.token_urlsafe`, 192 bits); every request — the page,
its scripts, the API and the event stream — must carry it (``?token=`` or ``X-Lazy-Intel-Token``)
and is refused with 403 otherwise, so another local user who finds the port reads nothing. The
``Host`` header must name the loopback address and port (a page elsewhere cannot reach the server
through a DNS name that resolves to 127.0.0.1). Responses are never cached and forbid framing; the
page runs only our scripts (Content-Security-Policy).
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.ui.assets import Asset
from lazy_intel.ui.backend import UIBackend
from lazy_intel.ui.publication import GenerationWatch

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"
TOKEN_BYTES = 24
MAX_TARGET_CHARS = 8192
MAX_PARAM_CHARS = 4096
MAX_ACTIVE_REQUESTS = 4  # API requests answered at once; more wait up to BUSY_WAIT_S, then 503
BUSY_WAIT_S = 10.0
MAX_STREAMS = 8  # open event streams
HEARTBEAT_S = 15.0
SOCKET_TIMEOUT_S = 30.0
TOKEN_HEADER = "X-Lazy-Intel-Token"
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
ENDPOINTS = (
    "/api/view",
    "/api/architecture",
    "/api/search",
    "/api/symbol",
    "/api/graph",
    "/api/source",
    "/api/events",
)
STATUS_OF = {"INVALID_ARGUMENT": 400, "NOT_FOUND": 404, "BUSY": 503, "TIMEOUT": 504}

Route = Callable[[dict[str, str]], dict[str, Any]]


class UIServer:
    """The page's server; :meth:`start` serves on a thread, :meth:`close` stops everything."""

    def __init__(
        self,
        backend: UIBackend,
        assets: dict[str, Asset],
        *,
        port: int = 0,
        token: str | None = None,
        watch: GenerationWatch | None = None,
    ) -> None:
        self.backend = backend
        self.assets = assets
        self.token = token or secrets.token_urlsafe(TOKEN_BYTES)
        self.watch = watch or GenerationWatch(backend.generation)
        self.closing = threading.Event()
        self.requests = threading.BoundedSemaphore(MAX_ACTIVE_REQUESTS)
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        self.httpd = ThreadingHTTPServer((HOST, port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.app = self  # type: ignore[attr-defined]
        self.port = int(self.httpd.server_address[1])
        self.allowed_hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}
        self._thread: threading.Thread | None = None
        self.routes: dict[str, Route] = {  # and /api/events, the stream
            "/api/view": lambda q: self.backend.view(),
            "/api/architecture": lambda q: self.backend.architecture(q.get("path") or None),
            "/api/search": lambda q: self.backend.search(_required(q, "q")),
            "/api/symbol": lambda q: self.backend.symbol(_required(q, "symbol"), q.get("path") or None),
            "/api/graph": lambda q: self.backend.graph(
                _required(q, "symbol"), q.get("path") or None, q.get("mode") or "calls"
            ),
            "/api/source": lambda q: self.backend.source(_required(q, "path"), q.get("sha256") or None),
        }

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def page(self) -> bytes:
        root = self.backend.workspace.root
        text = self.assets["page.html"].data.decode("utf-8")
        for key, value in (("TOKEN", self.token), ("ROOT_NAME", root.name), ("ROOT", str(root))):
            text = text.replace("{{" + key + "}}", _html_escape(value))
        return text.encode("utf-8")

    def start(self) -> None:
        self.watch.start()
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="lazy-intel-ui", daemon=True
        )
        self._thread.start()

    def serve_forever(self) -> None:
        self.watch.start()
        self.httpd.serve_forever(poll_interval=0.2)

    def close(self) -> None:
        self.closing.set()
        self.watch.stop()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


def _html_escape(value: str) -> str:
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def _required(query: dict[str, str], name: str) -> str:
    value = query.get(name)
    if not value:
        raise InvalidArgument(f"{name} is required")
    return value


class _Handler(BaseHTTPRequestHandler):
    server_version = "lazy-intel-ui"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S

    @property
    def app(self) -> UIServer:
        return self.server.app  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s - %s", self.address_string(), format % args)

    # ---- responses
    def _send(self, status: int, body: bytes, content_type: str, *, page: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        if page:
            self.send_header("Content-Security-Policy", PAGE_POLICY)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _refuse(self, status: int, code: str, message: str) -> None:
        self._json(status, {"status": "error", "code": code, "message": message})

    # ---- requests
    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if len(self.path) > MAX_TARGET_CHARS:
            self._refuse(HTTPStatus.REQUEST_URI_TOO_LONG, "INVALID_ARGUMENT", "request target too long")
            return
        target = urlsplit(self.path)
        try:
            params = parse_qs(target.query, keep_blank_values=True, max_num_fields=16, strict_parsing=False)
        except ValueError:
            self._refuse(HTTPStatus.BAD_REQUEST, "INVALID_ARGUMENT", "too many query parameters")
            return
        query = {k: v[0] for k, v in params.items() if v}
        if self.headers.get("Host", "") not in self.app.allowed_hosts:
            self._refuse(
                HTTPStatus.FORBIDDEN, "FORBIDDEN", "this server answers only on its loopback address"
            )
            return
        if not self.app.token_ok(query.get("token") or self.headers.get(TOKEN_HEADER)):
            self._refuse(
                HTTPStatus.FORBIDDEN,
                "FORBIDDEN",
                "missing or wrong token: open the address lazy-intel ui printed (it carries the token)",
            )
            return
        if any(len(v) > MAX_PARAM_CHARS for v in query.values()):
            self._refuse(HTTPStatus.BAD_REQUEST, "INVALID_ARGUMENT", "a query parameter is too long")
            return
        path = target.path
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.app.page(), "text/html; charset=utf-8", page=True)
        elif path.startswith("/static/") and path[8:] in self.app.assets and path[8:] != "page.html":
            asset = self.app.assets[path[8:]]
            self._send(HTTPStatus.OK, asset.data, asset.content_type)
        elif path == "/api/events":
            self._events()
        elif path in self.app.routes:
            self._api(self.app.routes[path], query)
        else:
            self._refuse(HTTPStatus.NOT_FOUND, "NOT_FOUND", f"no such page: {path}")

    def _api(self, route: Route, query: dict[str, str]) -> None:
        if not self.app.requests.acquire(timeout=BUSY_WAIT_S):
            self._refuse(HTTPStatus.SERVICE_UNAVAILABLE, "BUSY", "too many requests at once; retry")
            return
        try:
            payload = route(query)
        except LazyIntelError as exc:
            payload = {
                "status": "error",
                "code": exc.code,
                "message": exc.message,
                "next_step": exc.next_step,
            }
        except Exception as exc:
            logger.exception("ui request %s failed", self.path.split("?", 1)[0])
            payload = {"status": "error", "code": "INTERNAL", "message": f"{type(exc).__name__}: {exc}"}
        finally:
            self.app.requests.release()
        status = HTTPStatus.OK
        if payload.get("status") == "error":
            status = HTTPStatus(STATUS_OF.get(str(payload.get("code")), 200))
            if payload.get("code") == "INTERNAL":
                status = HTTPStatus.INTERNAL_SERVER_ERROR
        self._json(status, payload)

    def _events(self) -> None:
        """Server-sent events: the current generation at once, then each new one as published."""
        if not self.app.streams.acquire(blocking=False):
            self._refuse(HTTPStatus.SERVICE_UNAVAILABLE, "BUSY", "too many open event streams")
            return
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            watch = self.app.watch
            known = watch.current
            self._event(known)
            while not self.app.closing.is_set() and not watch.stopped:
                found = watch.wait_change(known, HEARTBEAT_S)
                if found != known:
                    known = found
                    self._event(known)
                else:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page went away
        finally:
            self.app.streams.release()

    def _event(self, generation: tuple[int, str | None]) -> None:
        data = json.dumps({"generation": generation[0], "published_at": generation[1]})
        self.wfile.write(f"event: generation\ndata: {data}\n\n".encode())
        self.wfile.flush()
