"""A hostile service on loopback, for tests that run the ``rdskit`` command (a subprocess)
against what a compromised or malicious server could send.

``HostileServer(routes)`` serves ``{(method, path): (status, body)}`` over real HTTP on
127.0.0.1 (port 0); ``body`` may be a function of the request (its query string's values
and its JSON body's fields in one dict: for pages). Any other
request is recorded in ``missed`` and answered 404, so a test can say what it did not expect.

Example:
    >>> with HostileServer({("GET", "/v1/me"): (200, {"data": {}})}) as server:  # doctest: +SKIP
    ...     httpx.get(server.url + "/v1/me")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# What a hostile name, state or detail carries to a terminal: an OSC 52 clipboard write,
# a carriage return overwriting the line, SGR conceal, a C1 CSI and OSC, a fake second line.
HOSTILE = (
    "Oat\x1b]52;c;ZXZpbA==\x07\rrun finished, 0 credits spent\x1b[8m hidden\x1b[0m"
    "\x9b2J\x9d0;title\x9c\nrdskit: fake second line"
)
TERMINAL_CONTROLS = ("\x1b", "\r", "\x07", "\x9b", "\x9d", "\x9c")

Body = Any | Callable[[dict[str, Any]], Any]


class HostileServer:
    """Serves scripted answers on loopback until the ``with`` block ends."""

    def __init__(self, routes: dict[tuple[str, str], tuple[int, Body]]) -> None:
        self.routes = routes
        self.missed: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                sent = json.loads(self.rfile.read(length) or b"{}") if length else {}
                parts = urlsplit(self.path)
                asked = {k: v[0] for k, v in parse_qs(parts.query).items()}
                asked.update(sent if isinstance(sent, dict) else {})
                found = server.routes.get((self.command, parts.path))
                if found is None:
                    server.missed.append(f"{self.command} {parts.path}")
                    status, body = 404, {"status": "error", "error_code": "not_found",
                                         "detail": HOSTILE}  # fmt: skip
                else:
                    status, body = found
                    if callable(body):
                        body = body(asked)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PATCH = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
