"""The Jupyter gateway: shared rate limit, tokens, discovery, shared sandbox, real server."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import httpx
import pytest
from jupyter_client import BlockingKernelClient
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application

import rdskit
from rdskit.errors import APIConnectionError, ConfigurationError, DatasetNotFound
from rdskit.jupyter.discovery import GatewayInfo, GatewayKey
from rdskit.jupyter.gateway import Gateway, RdsGateway, TokenBook, _loopback, make_handlers
from rdskit.sandbox import SandboxHandle, start

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


@dataclass
class Served:
    """A gateway served by tornado on a loopback port, in its own thread and loop."""

    port: int
    loop: asyncio.AbstractEventLoop

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/rdskit"

    def call(self, coro: Awaitable[T]) -> T:
        """Run a coroutine in the server's loop (where the gateway's resources live)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)  # type: ignore[arg-type]


@contextmanager
def serving(gateway: Gateway) -> Iterator[Served]:
    sockets = bind_sockets(0, "127.0.0.1")
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def main() -> None:
        holder["loop"], holder["stop"] = asyncio.get_running_loop(), asyncio.Event()
        server = HTTPServer(Application(make_handlers(gateway)))
        server.add_sockets(sockets)
        ready.set()
        await holder["stop"].wait()
        server.stop()
        await gateway.aclose()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield Served(sockets[0].getsockname()[1], holder["loop"])
    finally:
        holder["loop"].call_soon_threadsafe(holder["stop"].set)
        thread.join(10)


class Recording(httpx.AsyncBaseTransport):
    """The gateway's upstream transport, recording when each request left and its status."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[float] = []
        self.statuses: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(time.monotonic())
        response = await self.inner.handle_async_request(request)
        self.statuses.append(response.status_code)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def busiest_second(times: list[float]) -> int:
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + 1.0) for i, start in enumerate(times))


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def published(gateway: Gateway, served: Served, path: Path, env: pytest.MonkeyPatch) -> Path:
    gateway.publish(path, served.url)
    env.setenv("RDSKIT_GATEWAY", str(path))
    return path


# -- one bucket for every kernel ---------------------------------------------------------
def test_many_kernels_together_get_no_429(tmp_path: Path, clean_env: pytest.MonkeyPatch) -> None:
    kernels, calls = 4, 8
    recorder = Recording()
    with start(speed=200, rate_limit=5) as upstream:
        gateway = Gateway((upstream.url, upstream.api_key), mode="service", transport=recorder)
        with serving(gateway) as served:
            published(gateway, served, tmp_path / "gateway.json", clean_env)
            failures: list[BaseException] = []

            def kernel() -> None:
                # No client-side limiter and no retries: only the gateway stands between
                # these clients and the service's 429s, and any 429 would raise here.
                try:
                    with rdskit.Client(rate_limit=None, max_retries=0) as client:
                        for _ in range(calls):
                            client.datasets.list(limit=1)
                except BaseException as exc:
                    failures.append(exc)

            threads = [threading.Thread(target=kernel) for _ in range(kernels)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
    assert failures == []
    assert len(recorder.sent) == kernels * calls
    assert 429 not in recorder.statuses and set(recorder.statuses) == {200}
    assert busiest_second(recorder.sent) <= 5


def test_statuses_bodies_and_rate_headers_pass_through(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    gateway = Gateway((sandbox.url, sandbox.api_key), mode="service")
    with serving(gateway) as served:
        published(gateway, served, tmp_path / "gateway.json", clean_env)
        with rdskit.Client() as client:
            assert isinstance(client._core.api_key, GatewayKey)
            assert client.me().email.startswith("owner@")
            assert client._core.rate_limit_headers["ratelimit-limit"] == "5"
            with pytest.raises(DatasetNotFound, match="ds_missing"):
                client.datasets.get("ds_missing")
            created = client.datasets.create("through the gateway")
            assert created.name == "through the gateway"
            status = httpx.get(
                f"{served.url}/status", headers={"x-api-key": client._core.api_key.reveal()}
            ).json()
    assert status == {
        "mode": "service",
        "upstream": sandbox.url,
        "rate_limit": 5.0,
        "queued": 0,
        "token_ttl": 900.0,
    }


# -- tokens -------------------------------------------------------------------------------
def test_tokens_expire_and_clients_renew_them(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    gateway = Gateway((sandbox.url, sandbox.api_key), mode="service", token_ttl=1.0)
    minted: list[str] = []
    mint = gateway.tokens.mint

    def counting() -> tuple[str, float]:
        token, lifetime = mint()
        minted.append(token)
        return token, lifetime

    gateway.tokens.mint = counting  # type: ignore[method-assign]
    with serving(gateway) as served:
        published(gateway, served, tmp_path / "gateway.json", clean_env)
        with rdskit.Client() as client:
            client.datasets.list(limit=1)
            client.datasets.list(limit=1)
            assert len(minted) == 1  # reused while fresh
            time.sleep(0.85)  # past 80% of its lifetime
            client.datasets.list(limit=1)
            assert len(minted) == 2
        time.sleep(0.3)  # the first token is now past its expiry
        stale = httpx.get(f"{served.url}/v1/datasets", headers={"x-api-key": minted[0]})
        forged = httpx.get(f"{served.url}/v1/datasets", headers={"x-api-key": "forged"})
        missing = httpx.get(f"{served.url}/v1/datasets")
        wrong = httpx.post(f"{served.url}/token", json={"secret": "guess"})
    assert stale.status_code == forged.status_code == missing.status_code == 401
    assert stale.json()["error_code"] in ("gateway_token_expired", "gateway_token_invalid")
    assert forged.json()["error_code"] == missing.json()["error_code"] == "gateway_token_invalid"
    assert wrong.status_code == 403 and "token" not in wrong.json()


def test_token_book_lifecycle() -> None:
    now = [0.0]
    book = TokenBook(ttl=10, clock=lambda: now[0])
    first, lifetime = book.mint()
    assert lifetime == 10.0 and book.check(first) == "valid" and book.check(None) == "invalid"
    now[0] = 10.0
    assert book.check(first) == "expired"
    second, _ = book.mint()
    assert book.check(first) == "expired" and book.check(second) == "valid"
    now[0] = 20.5
    book.mint()  # forgets tokens expired a whole lifetime ago
    assert book.check(first) == "invalid" and book.check(second) == "expired"
    assert first not in str(book._expiry)  # only digests are kept


def test_gateway_key_exchanges_ahead_of_expiry() -> None:
    now = [0.0]
    sent: list[dict[str, Any]] = []

    def send(url: str, json: dict[str, Any], timeout: float) -> httpx.Response:
        sent.append(json)
        return httpx.Response(200, json={"token": f"tok{len(sent)}", "expires_in": 100})

    info = GatewayInfo(url="http://127.0.0.1:1/rdskit", mode="service", secret="s3cret")
    key = GatewayKey(info, send=send, clock=lambda: now[0])
    assert key.reveal() == key.reveal() == "tok1"
    now[0] = 79.0
    assert key.reveal() == "tok1"
    now[0] = 80.0
    assert key.reveal() == "tok2" and sent == [{"secret": "s3cret"}] * 2
    assert "s3cret" not in repr(key) + repr(info) and "tok2" not in repr(key)
    assert key.digest == GatewayKey(info, send=send).digest  # one limiter bucket per gateway


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (httpx.Response(403, json={}), ConfigurationError),
        (httpx.ConnectError("refused"), APIConnectionError),
    ],
)
def test_gateway_key_failures(reply: Any, error: type[Exception]) -> None:
    def send(url: str, json: dict[str, Any], timeout: float) -> httpx.Response:
        if isinstance(reply, Exception):
            raise reply
        return reply  # type: ignore[no-any-return]

    info = GatewayInfo(url="http://127.0.0.1:1/rdskit", mode="service", secret="s3cret")
    with pytest.raises(error) as raised:
        GatewayKey(info, send=send).reveal()
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    ("address", "served"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("127.8.9.1", True),
        ("10.0.0.7", False),
        ("192.168.1.20", False),
        ("", False),
        (None, False),
    ],
)
def test_only_loopback_clients_are_served(address: str | None, served: bool) -> None:
    assert _loopback(address) is served


def test_an_old_discovery_file_is_narrowed_before_the_secret_lands(tmp_path: Path) -> None:
    path = tmp_path / "gateway.json"
    path.write_text("{}")
    path.chmod(0o644)
    gateway = Gateway(("http://127.0.0.1:1", "bz_test_" + "1" * 32), mode="service")
    gateway.publish(path, "http://127.0.0.1:2/rdskit")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {
        "url": "http://127.0.0.1:2/rdskit",
        "mode": "service",
        "secret": gateway.secret,
    }


# -- discovery ----------------------------------------------------------------------------
def test_explicit_settings_win_over_the_gateway(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "gateway.json"
    path.write_text(
        json.dumps({"url": "http://127.0.0.1:9/rdskit", "mode": "service", "secret": "s"})
    )
    clean_env.setenv("RDSKIT_GATEWAY", str(path))
    key = "bz_test_" + "0" * 32
    assert isinstance(rdskit.Client()._core.api_key, GatewayKey)
    assert rdskit.Client().base_url == "http://127.0.0.1:9/rdskit"
    direct = rdskit.Client(key, base_url="http://127.0.0.1:8")
    assert not isinstance(direct._core.api_key, GatewayKey)
    assert direct.base_url == "http://127.0.0.1:8"
    with pytest.raises(ConfigurationError, match="no API key"):
        rdskit.Client(base_url="http://127.0.0.1:8")
    clean_env.setenv("RDSKIT_API_KEY", key)
    clean_env.setenv("RDSKIT_BASE_URL", "http://127.0.0.1:7")
    from_env = rdskit.Client()
    assert not isinstance(from_env._core.api_key, GatewayKey)
    assert from_env.base_url == "http://127.0.0.1:7"
    clean_env.setenv("RDSKIT_GATEWAY", str(tmp_path / "gone.json"))
    clean_env.delenv("RDSKIT_API_KEY")
    clean_env.delenv("RDSKIT_BASE_URL")
    with pytest.raises(ConfigurationError, match="RDSKIT_GATEWAY"):
        rdskit.Client()


# -- the extension ------------------------------------------------------------------------
def boot(**traits: Any) -> RdsGateway:
    app = RdsGateway(**traits)
    app.initialize_settings()
    assert app.gateway is not None
    return app


def serve_extension(app: RdsGateway, served: Served) -> Path:
    server = SimpleNamespace(sock="", ip="localhost", port=served.port, certfile="", base_url="/")
    served.call(app._start_jupyter_server_extension(server))
    return Path(os.environ["RDSKIT_GATEWAY"])


def test_the_extension_takes_the_key_out_of_the_environment(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    clean_env.setenv("RDSKIT_API_KEY", sandbox.api_key)
    clean_env.setenv("RDSKIT_BASE_URL", sandbox.url)
    app = boot()
    assert "RDSKIT_API_KEY" not in os.environ and "RDSKIT_BASE_URL" not in os.environ
    assert app.gateway.mode == "service" and sandbox.api_key not in repr(app.gateway)
    with serving(app.gateway) as served:
        path = serve_extension(app, served)
        assert path.parent == tmp_path / "runtime" and stat.S_IMODE(path.stat().st_mode) == 0o600
        assert sandbox.api_key not in path.read_text()
        assert json.loads(path.read_text())["url"] == served.url
        assert rdskit.Client().me().email.startswith("owner@")
        served.call(app.stop_extension())
    assert not path.exists()


def test_without_a_key_it_hosts_a_shared_sandbox_that_outlives_restarts(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    clean_env.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    app = boot(sandbox_speed=200)
    db = tmp_path / "data" / "rdskit" / "sandbox.db"
    assert app.gateway.mode == "sandbox" and not db.exists()  # nothing runs until needed
    assert app.gateway.status()["upstream"] == "starts with the first request"
    with serving(app.gateway) as served:
        serve_extension(app, served)
        with rdskit.Client() as first_kernel:
            kept = first_kernel.datasets.create("kept across restarts")
        with rdskit.Client() as restarted_kernel:  # a new kernel: a new client and token
            assert kept.id in [d.id for d in restarted_kernel.datasets.list().data]
        assert app.gateway.base_url is not None and db.exists()
        served.call(app.stop_extension())

    app = boot(sandbox_speed=200)  # the Jupyter server restarted
    with serving(app.gateway) as served:
        serve_extension(app, served)
        with rdskit.Client() as kernel:
            assert kept.id in [d.id for d in kernel.datasets.list().data]
        served.call(app.stop_extension())


def test_a_real_server_gives_kernels_the_gateway_and_never_the_key(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = secrets.token_hex(16)
    runtime = tmp_path / "runtime"
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": str(ROOT / "jupyter-config"),  # the file this repo installs
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "RDSKIT_API_KEY": sandbox.api_key,
        "RDSKIT_BASE_URL": sandbox.url,
    }
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "server",
                "--no-browser",
                "--allow-root",
                f"--port={port}",
                "--ServerApp.port_retries=0",
                "--ServerApp.ip=127.0.0.1",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={tmp_path}",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while not list(runtime.glob("rdskit-gateway-*.json")):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        (discovery,) = runtime.glob("rdskit-gateway-*.json")
        assert stat.S_IMODE(discovery.stat().st_mode) == 0o600
        kernel = httpx.post(
            f"http://127.0.0.1:{port}/api/kernels",
            json={"name": "python3"},
            headers={"Authorization": f"token {token}"},
            timeout=60,
        ).json()
        client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel['id']}.json"))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=120)
        printed: list[str] = []

        def keep(message: dict[str, Any]) -> None:
            if message["msg_type"] in ("stream", "error"):
                printed.append(json.dumps(message["content"]))

        code = (
            "import json, os, rdskit\n"
            "client = rdskit.Client()\n"
            "print(json.dumps({'env': dict(os.environ), 'repr': repr(client),"
            " 'email': client.me().email, 'mode': client._core.api_key.mode}))"
        )
        reply = client.execute_interactive(code, output_hook=keep, timeout=120)
        client.stop_channels()
        assert reply["content"]["status"] == "ok", printed
        shown = json.loads(json.loads(printed[0])["text"])
    finally:
        server.terminate()
        server.wait(60)
    assert "RDSKIT_API_KEY" not in shown["env"] and "RDSKIT_BASE_URL" not in shown["env"]
    assert shown["env"]["RDSKIT_GATEWAY"] == str(discovery)
    assert shown["repr"].endswith("api_key=GatewayKey('jupyter gateway token'))")
    assert shown["email"].startswith("owner@") and shown["mode"] == "service"
    assert sandbox.api_key not in "".join(printed) + log.read_text()
    assert not discovery.exists()  # removed when the server stopped
