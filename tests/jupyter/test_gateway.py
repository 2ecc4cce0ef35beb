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
from jupyter_core.paths import jupyter_data_dir
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application

import rdskit
from rdskit.errors import APIConnectionError, ConfigurationError, DatasetNotFound
from rdskit.jupyter.discovery import GatewayKey
from rdskit.jupyter.gateway import Gateway, RdsGateway, TokenBook, make_handlers
from rdskit.jupyter.gateway_handlers import loopback
from rdskit.resources._reuse import account_identity
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
def serving(gateway: Gateway, more: list[Any] | None = None) -> Iterator[Served]:
    """``gateway``'s routes (and ``more``) on a loopback port, in a thread of their own."""
    sockets = bind_sockets(0, "127.0.0.1")
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def main() -> None:
        holder["loop"], holder["stop"] = asyncio.get_running_loop(), asyncio.Event()
        server = HTTPServer(Application(make_handlers(gateway) + (more or [])))
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
            # The ledger of paid calls keys a kernel behind the gateway as a direct client.
            assert client._core.instance == sandbox.store.instance
            with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as direct:
                assert client._run(account_identity(client._core)) == direct._run(
                    account_identity(direct._core)
                )
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
        "sandbox_db": None,
    }


# -- tokens -------------------------------------------------------------------------------
def test_tokens_expire_and_clients_renew_them(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    gateway = Gateway((sandbox.url, sandbox.api_key), mode="service", token_ttl=3.0)
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
            # A lifetime of seconds, not one: a loaded machine may take a second for the two
            # reads above, and the point is reuse while fresh.
            time.sleep(2.55)  # past 80% of its lifetime
            client.datasets.list(limit=1)
            assert len(minted) == 2
        time.sleep(0.6)  # the first token is now past its expiry
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
    assert first not in str(book._grants)  # only digests are kept


def _discovery(tmp_path: Path, secret: str = "s3cret") -> Path:
    path = tmp_path / "gateway.json"
    info = {"url": "http://127.0.0.1:1/rdskit", "mode": "service", "secret": secret}
    path.write_text(json.dumps(info))
    return path


def _drive(key: GatewayKey, reply: Any, sent: list[dict[str, Any]]) -> str:
    """Run the key's auth flow, answering its token request with ``reply``."""
    flow = key.auth_flow()
    try:
        step = next(flow)
        sent.append(json.loads(step.request.content))
        if isinstance(reply, Exception):
            flow.throw(reply)
        flow.send(reply(len(sent)) if callable(reply) else reply)
    except StopIteration as stop:
        return str(stop.value)
    raise AssertionError("the flow did not finish")


def test_gateway_key_exchanges_ahead_of_expiry(tmp_path: Path) -> None:
    now = [0.0]
    sent: list[dict[str, Any]] = []
    path = _discovery(tmp_path)

    def grant(n: int) -> httpx.Response:
        return httpx.Response(200, json={"token": f"tok{n}", "expires_in": 100})

    key = GatewayKey(path, clock=lambda: now[0], identity=lambda: None)
    assert _drive(key, grant, sent) == _drive(key, grant, sent) == "tok1"
    now[0] = 79.0
    assert _drive(key, grant, sent) == "tok1"
    now[0] = 80.0
    _discovery(tmp_path, "rotated")  # the server rotated its secret: the key reads it again
    assert _drive(key, grant, sent) == "tok2"
    assert sent == [{"secret": "s3cret"}, {"secret": "rotated"}]
    assert "s3cret" not in repr(key) + repr(key._info) and "tok2" not in repr(key)
    assert key.digest == GatewayKey(path).digest  # one limiter bucket per gateway


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (httpx.Response(403, json={}), ConfigurationError),
        (httpx.ConnectError("refused"), APIConnectionError),
    ],
)
def test_gateway_key_failures(tmp_path: Path, reply: Any, error: type[Exception]) -> None:
    key = GatewayKey(_discovery(tmp_path), identity=lambda: None)
    with pytest.raises(error) as raised:
        _drive(key, reply, [])
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
    assert loopback(address) is served


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


@dataclass
class Server:
    """A real Jupyter server with this repo's extension, and one kernel's connection."""

    port: int
    token: str
    runtime: Path
    discovery: Path
    log: Path

    def kernel(self, path: str | None = None) -> tuple[str, BlockingKernelClient]:
        """Start a kernel through the REST API (in the server's folder ``path``, as a
        notebook there would be); its id and a ready client."""
        kernel = httpx.post(
            f"http://127.0.0.1:{self.port}/api/kernels",
            json={"name": "python3"} | ({"path": path} if path else {}),
            headers={"Authorization": f"token {self.token}"},
            timeout=60,
        ).json()
        client = BlockingKernelClient(
            connection_file=str(self.runtime / f"kernel-{kernel['id']}.json")
        )
        client.load_connection_file()
        # No heartbeat channel: jupyter_client calls a kernel dead when one heartbeat takes
        # over 1 s, which a loaded 2-core CI machine sees while the kernel is still starting
        # ("Kernel died before replying to kernel_info"). Readiness is the kernel_info reply,
        # bounded by the timeout; a kernel that really died is named by the server's log.
        client.start_channels(hb=False)
        try:
            client.wait_for_ready(timeout=120)
        except RuntimeError as error:
            raise AssertionError(f"{error}\n{self.log.read_text()}") from error
        return kernel["id"], client


def run_in(client: BlockingKernelClient, code: str) -> list[str]:
    """Run ``code`` in a kernel; its stream and error outputs (JSON of their content)."""
    printed: list[str] = []

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] in ("stream", "error"):
            printed.append(json.dumps(message["content"]))

    reply = client.execute_interactive(code, output_hook=keep, timeout=120)
    assert reply["content"]["status"] == "ok", printed
    return printed


@contextmanager
def jupyter_server(tmp_path: Path, env: dict[str, str]) -> Iterator[Server]:
    """``jupyter server`` on a free loopback port with ``env``, until the block ends."""
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
        **env,
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
        yield Server(port, token, runtime, discovery, log)
    finally:
        server.terminate()
        server.wait(60)


def test_a_real_server_gives_kernels_the_gateway_and_never_the_key(
    sandbox: SandboxHandle, tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    env = {"RDSKIT_API_KEY": sandbox.api_key, "RDSKIT_BASE_URL": sandbox.url}
    with jupyter_server(tmp_path, env) as server:
        discovery = server.discovery
        assert stat.S_IMODE(discovery.stat().st_mode) == 0o600
        _, client = server.kernel()
        code = (
            "import json, os, rdskit\n"
            "client = rdskit.Client()\n"
            "print(json.dumps({'env': dict(os.environ), 'repr': repr(client),"
            " 'email': client.me().email, 'mode': client._core.api_key.mode}))"
        )
        printed = run_in(client, code)
        client.stop_channels()
        shown = json.loads(json.loads(printed[0])["text"])
    assert "RDSKIT_API_KEY" not in shown["env"] and "RDSKIT_BASE_URL" not in shown["env"]
    assert shown["env"]["RDSKIT_GATEWAY"] == str(discovery)
    assert shown["repr"].endswith("api_key=GatewayKey('jupyter gateway token'))")
    assert shown["email"].startswith("owner@") and shown["mode"] == "service"
    assert sandbox.api_key not in "".join(printed) + server.log.read_text()
    assert not discovery.exists()  # removed when the server stopped


# -- full speed, a page at the printed URL, the sandbox's database ------------------------
def test_the_printed_url_opens_a_page_for_people(tmp_path: Path) -> None:
    gateway = Gateway(("http://127.0.0.1:1", "k"), mode="sandbox")
    gateway.sandbox_db = str(tmp_path / "shared.db")
    with serving(gateway) as served:
        for url in (served.url, served.url + "/"):
            page = httpx.get(url, timeout=10)
            assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
            assert "rdskit gateway" in page.text and html_escape(str(tmp_path)) in page.text
            assert "secret" not in page.text.lower() and gateway.secret not in page.text


def html_escape(text: str) -> str:
    import html

    return html.escape(text)


def test_status_shows_where_the_shared_sandbox_writes() -> None:
    from rdskit.jupyter.magics import status_bundle
    from rdskit.models import Account

    me = Account.model_validate({"id": "u1", "email": "a@example.com"})
    gateway = {"rate_limit": 5.0, "queued": 0, "sandbox_db": "/data/rdskit/sandbox.db"}
    text = status_bundle(me, origin="gateway", rate={}, gateway=gateway, budget=None, chat_id=None)[
        "text/plain"
    ]
    assert "sandbox database: /data/rdskit/sandbox.db" in text
    assert "c.RdsGateway.sandbox_db" in text


def test_sandbox_path_is_configurable_and_never_the_kernels(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    app = RdsGateway()
    clean_env.setenv("RDSKIT_SANDBOX_DB", str(tmp_path / "env.db"))
    # the kernels' variable is theirs: the gateway keeps its own default file
    assert app._sandbox_path() == Path(jupyter_data_dir()) / "rdskit" / "sandbox.db"
    app.sandbox_db = str(tmp_path / "trait.db")
    assert app._sandbox_path() == (tmp_path / "trait.db").resolve()


@pytest.mark.parametrize(
    ("where", "by_env", "says"),
    [(lambda tmp: tmp, False, "c.RdsGateway.sandbox_db='{path}' as the sandbox database: it is"
      " a folder, not a file"),
     (lambda tmp: tmp / "notes.txt" / "s.db", False, "c.RdsGateway.sandbox_db='{path}' as the"
      " sandbox database: {notes} is a file, not a folder"),
     (lambda tmp: tmp / "home" / ".rdskit-sandbox.db", True, "c.RdsGateway.sandbox_db='{path}'"
      " as the sandbox database: it is the kernels' RDSKIT_SANDBOX_DB too; give the gateway's"
      " shared sandbox another file")],
    ids=["a folder", "under a file", "the kernels' RDSKIT_SANDBOX_DB"],
)  # fmt: skip
def test_an_unusable_sandbox_database_is_refused_naming_its_setting(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, where: Any, by_env: bool, says: str
) -> None:
    from rdskit.jupyter.gateway import Refused

    (tmp_path / "notes.txt").write_text("not a folder")
    path = where(tmp_path)
    app = RdsGateway()
    app.sandbox_db = str(path)
    if by_env:
        clean_env.setenv("RDSKIT_SANDBOX_DB", str(path))
    with pytest.raises(Refused) as refused:
        app._start_sandbox()
    assert (refused.value.status, refused.value.code) == (503, "gateway_sandbox_unusable")
    notes = (tmp_path / "notes.txt").resolve()
    assert f"cannot use {says.format(path=path.resolve(), notes=notes)}" in refused.value.detail
    assert not (tmp_path / "home").exists()  # refused before anything was created


def test_a_database_the_kernels_used_is_refused_and_a_gateways_by_the_kernels(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    """Whatever the settings say, a file holds one kind of sandbox: the gateway's revokes
    its default key, which would lock the notebooks' sandboxes out (issue 34)."""
    from rdskit.jupyter.gateway import Refused
    from rdskit.sandbox.store.db import Store, claim

    kernels, gateway = tmp_path / "kernels.db", tmp_path / "gateway.db"
    with Store(kernels) as store:
        claim(store, "kernels")
    app = RdsGateway()
    app.sandbox_db = str(kernels)
    with pytest.raises(Refused) as refused:
        app._start_sandbox()
    assert refused.value.detail == (
        f"cannot use c.RdsGateway.sandbox_db={str(kernels.resolve())!r} as the sandbox "
        "database: it is the database of the notebooks' own sandboxes (RDSKIT_SANDBOX_DB); "
        "give the Jupyter gateway's shared sandbox (c.RdsGateway.sandbox_db) another file"
    )
    app.sandbox_db = str(gateway)
    try:
        app._start_sandbox()
    finally:
        assert app._stop_sandbox is not None
        app._stop_sandbox()
    code = (
        "import rdskit\n"
        "try:\n    rdskit.Client.sandbox()\n"
        "except rdskit.errors.ConfigurationError as exc:\n    print(exc)"
    )
    said = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "RDSKIT_SANDBOX_DB": str(gateway)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert said.stdout.strip() == (
        f"cannot use RDSKIT_SANDBOX_DB={str(gateway)!r} as the sandbox database: it is the "
        "database of the Jupyter gateway's shared sandbox (c.RdsGateway.sandbox_db); give "
        "the notebooks' own sandboxes (RDSKIT_SANDBOX_DB) another file"
    ), said.stderr


def test_the_bucket_returns_tokens_a_window_after_each_answer() -> None:
    from rdskit.jupyter.gateway import SharedBucket

    now = [0.0]
    bucket = SharedBucket(5, clock=lambda: now[0])

    async def sequence() -> list[float]:
        started = []
        for _ in range(7):
            await bucket.acquire()
            started.append(now[0])
            now[0] += 0.05  # the round trip
            bucket.release()
        return started

    async def drive() -> list[float]:
        task = asyncio.ensure_future(sequence())
        while not task.done():
            await asyncio.sleep(0)
            wait = bucket._wait()
            if wait:  # nobody else moves the fake clock: jump to the next token
                now[0] += wait
        return task.result()

    starts = asyncio.run(drive())
    assert starts[:5] == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2])
    # the sixth waits one window after the FIRST answer (0.05), not a whole reset
    assert starts[5] == pytest.approx(0.05 + 1.0 + 0.005)
    spent = httpx.Response(200, headers={"RateLimit-Remaining": "0", "RateLimit-Reset": "1"})
    # a Remaining: 0 its own five tokens explain holds nothing ...
    own = SharedBucket(5, clock=lambda: now[0])
    for _ in range(5):
        asyncio.run(own.acquire())
        own.release()
    own.observe(spent)
    assert own.limiter.held() == 0.0
    # ... one they do not (another user of the key) holds the queue until the reset
    idle = SharedBucket(5, clock=lambda: now[0])
    idle.observe(spent)
    assert idle.limiter.held() == pytest.approx(1.0)
