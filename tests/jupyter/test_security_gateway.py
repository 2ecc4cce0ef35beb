"""Security of the gateway: the key out of kernels' reach, /v1 only, kernel-bound tokens,
a rotating secret, private files.

Real processes and real HTTP throughout: a Jupyter server started with the key in its
environment and a kernel that goes looking for it; a gateway in front of a loopback
listener that records every request reaching it; the shared sandbox on disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_gateway import boot, jupyter_server, run_in, serve_extension, serving

import rdskit
from rdskit._files import private_dir, read_private
from rdskit._gateway_auth import GatewayKey, kernel_proof
from rdskit.errors import ConfigurationError
from rdskit.jupyter.gateway import Gateway, upstream_path
from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.store.accounts import default_api_key

UPSTREAM_KEY = "bz_test_" + "7" * 32


# -- a listener that records what reaches the upstream -----------------------------------------
@contextmanager
def recording_upstream() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server answering 200 ``{}`` and recording each raw request path."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            seen.append(self.path)
            body = b'{"data": []}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        def log_message(self, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        yield f"{url}/base", seen


@contextmanager
def listening(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served on a loopback port in a thread: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def raw_request(port: int, method: str, target: str, token: str) -> tuple[int, dict[str, Any]]:
    """Send ``target`` byte for byte (http.client normalises nothing)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        connection.putheader("x-api-key", token)
        connection.putheader("content-length", "0")
        connection.endheaders()
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    return response.status, (json.loads(body) if body.startswith(b"{") else {})


TRAVERSALS = [
    "/rdskit/v1/..%2F..%2Fadmin%2Fkeys",
    "/rdskit/v1/../../admin/keys",
    "/rdskit/v1/datasets/../../admin",
    "/rdskit/v1/%2e%2e/admin",
    "/rdskit/v1/%2E%2E%2Fadmin",
    "/rdskit/v1/.%2e/admin",
    "/rdskit/v1/./datasets",
    "/rdskit/v1/datasets/..",
    "/rdskit/v1//admin",
    "/rdskit/v1/datasets%2Fds_1",
    "/rdskit/v1/..\\admin",
    "/rdskit/v1/%5C..%5Cadmin",
    "/rdskit/v1/datasets%3Fx=1",
    "/rdskit/v1/datasets%23frag",
    "/rdskit/v1/datasets/%00",
    "/rdskit/v1/datasets/%0d%0aHost:%20evil",
]


def test_only_normalised_v1_paths_reach_the_upstream() -> None:
    with recording_upstream() as (url, seen):
        gateway = Gateway((url, UPSTREAM_KEY), mode="service")
        with serving(gateway) as served:
            token, _ = gateway.tokens.mint()
            refused = {path: raw_request(served.port, "GET", path, token) for path in TRAVERSALS}
            assert seen == []  # nothing reached the upstream
            ok = raw_request(served.port, "GET", "/rdskit/v1/datasets/ds%20x?limit=1", token)
    assert {status for status, _ in refused.values()} == {400}, refused
    assert {body["error_code"] for _, body in refused.values()} == {"gateway_path_refused"}
    assert ok[0] == 200 and seen == ["/base/v1/datasets/ds%20x?limit=1"]  # base prefix kept


@pytest.mark.parametrize("path", [t.removeprefix("/rdskit/") for t in TRAVERSALS])
def test_the_path_rule_itself(path: str) -> None:
    assert upstream_path(path) is None
    assert upstream_path("v1/datasets/ds_1/runs") == "v1/datasets/ds_1/runs"


# -- tokens: bound to kernels, revoked at shutdown; the secret rotates -------------------------
def test_tokens_are_bound_to_running_kernels_and_die_with_them() -> None:
    kernels = {"k1": b"connection-key-1", "k2": b"connection-key-2"}
    with recording_upstream() as (url, seen):
        gateway = Gateway((url, UPSTREAM_KEY), mode="service", kernels=kernels.get)
        with serving(gateway) as served:

            def ask(body: dict[str, Any]) -> httpx.Response:
                return httpx.post(f"{served.url}/token", json=body)

            secret = gateway.secret
            no_kernel = ask({"secret": secret})
            unknown = ask({"secret": secret, "kernel_id": "k9", "proof": "0" * 64})
            forged = ask(
                {"secret": secret, "kernel_id": "k1", "proof": kernel_proof("k1", b"x", secret)}
            )
            granted = ask(
                {
                    "secret": secret,
                    "kernel_id": "k1",
                    "proof": kernel_proof("k1", kernels["k1"], secret),
                }
            )
            token = granted.json()["token"]
            before = httpx.get(f"{served.url}/v1/datasets", headers={"x-api-key": token})
            del kernels["k1"]  # the kernel shut down
            after = httpx.get(f"{served.url}/v1/datasets", headers={"x-api-key": token})
    assert no_kernel.status_code == unknown.status_code == 403
    assert no_kernel.json()["error_code"] == "gateway_kernel_unknown"
    assert forged.status_code == 403
    assert forged.json()["error_code"] == "gateway_kernel_proof_invalid"
    assert granted.status_code == 200 and before.status_code == 200 and len(seen) == 1
    assert after.status_code == 401 and after.json()["error_code"] == "gateway_token_revoked"


def test_the_bootstrap_secret_rotates_and_kernels_follow(
    sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    now = [0.0]
    gateway = Gateway(
        (sandbox.url, sandbox.api_key), mode="service", secret_grace=5, clock=lambda: now[0]
    )
    path = tmp_path / "gateway.json"
    with serving(gateway) as served:
        gateway.publish(path, served.url)
        monkeypatch.setenv("RDSKIT_GATEWAY", str(path))
        first = gateway.secret
        with rdskit.Client() as client:
            client.datasets.list(limit=1)
            gateway.rotate()
            gateway.publish(path, served.url)
            assert gateway.secret != first and first not in path.read_text()
            within_grace = httpx.post(f"{served.url}/token", json={"secret": first})
            now[0] = 6.0
            after_grace = httpx.post(f"{served.url}/token", json={"secret": first})
            client._core.api_key.forget()  # the next call exchanges again: the new secret
            client.datasets.list(limit=1)
    assert within_grace.status_code == 200 and after_grace.status_code == 403


def test_an_async_client_exchanges_tokens_without_blocking_its_loop(
    sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    gateway = Gateway((sandbox.url, sandbox.api_key), mode="service")
    with serving(gateway) as served:
        gateway.publish(tmp_path / "gateway.json", served.url)
        monkeypatch.setenv("RDSKIT_GATEWAY", str(tmp_path / "gateway.json"))

        def blocking(*args: Any, **kwargs: Any) -> None:
            raise AssertionError("a blocking HTTP call ran on the event loop")

        monkeypatch.setattr(httpx.Client, "send", blocking)
        monkeypatch.setattr(httpx, "post", blocking)

        async def main() -> int:
            async with rdskit.AsyncClient() as client:
                assert isinstance(client._core.api_key, GatewayKey)
                page = await client.datasets.list(limit=1)
                await client.datasets.list(limit=1)
            return len(page.data)

        # The exchange went through the AsyncClient's own transport, as a flow step.
        assert asyncio.run(main()) >= 0


# -- the key never reaches a kernel --------------------------------------------------------------
# Runs in the kernel, which does not know the key: it collects every key-shaped string it
# can read (its environment, every process's environ and cmdline, the files Jupyter and
# rdskit write, /tmp) and the gateway's answers, and reports their SHA-256 digests.
HUNT = r"""
import hashlib, json, os, pathlib, re
import httpx, rdskit
shape = re.compile(rb"bz_(?:test|live)_[0-9a-f]{32}")
found = {"env": sorted(k for k in os.environ if k.startswith("RDSKIT_")), "keys": [], "read": 0}
def look(data):
    found["read"] += 1
    found["keys"] += [hashlib.sha256(k).hexdigest() for k in shape.findall(data)]
look("\0".join(f"{k}={v}" for k, v in os.environ.items()).encode())
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != str(os.getpid()):
        for part in ("environ", "cmdline"):
            try:
                look(pathlib.Path(f"/proc/{pid}/{part}").read_bytes())
            except OSError:
                pass
paths = [p for root in ROOTS for p in pathlib.Path(root).rglob("*")]
paths += [p for p in pathlib.Path("/tmp").iterdir()]
for path in paths:
    try:
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 50_000_000:
            look(path.read_bytes())
    except OSError:
        pass
client = rdskit.Client()
token = client._core.api_key.reveal()
look(httpx.get(client.base_url + "/status", headers={"x-api-key": token}).content)
look(httpx.get(client.base_url + "/v1/me", headers={"x-api-key": token}).content)
look(httpx.post(client.base_url + "/token", json={"secret": "guess"}).content)
look(repr(client).encode())
parent = pathlib.Path(f"/proc/{os.getppid()}/environ").read_bytes()
found["parent_environ_entries"] = parent.count(b"=")
print(json.dumps(found))
"""


def test_a_kernel_cannot_find_the_key_anywhere(
    sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    key = sandbox.admin.create_account(email="hunt@example.test").api_key  # a fresh random key
    env = {"RDSKIT_API_KEY": key, "RDSKIT_BASE_URL": sandbox.url}
    decoy = "bz_test_" + "d" * 32  # a key-shaped string the hunt must find: it can fail
    (tmp_path / "decoy.txt").write_text(decoy)
    with jupyter_server(tmp_path, env) as server:
        server_pid = int(server.discovery.stem.rsplit("-", 1)[1])
        # The server's own view, for contrast: os.environ emptied, /proc block overwritten.
        assert key.encode() not in Path(f"/proc/{server_pid}/environ").read_bytes()
        _, client = server.kernel()
        printed = run_in(client, f"ROOTS = {[str(tmp_path)]!r}\n" + HUNT)
        client.stop_channels()
        found = json.loads(json.loads(printed[-1])["text"])
    digest = hashlib.sha256(key.encode()).hexdigest()
    # The kernel sees the gateway's address and nothing of the key; the RDSKIT_ settings of
    # the test's own environment (the suite's RDSKIT_CACHE_DIR, ...) are inherited as any
    # variable is: none of them holds the key (the monkeypatch above removed those that do).
    inherited = {name for name in os.environ if name.startswith("RDSKIT_")}
    assert set(found["env"]) == inherited | {"RDSKIT_GATEWAY"}
    assert "RDSKIT_API_KEY" not in found["env"]
    assert found["read"] > 20 and found["parent_environ_entries"] > 5  # it looked, and could
    assert hashlib.sha256(decoy.encode()).hexdigest() in found["keys"]
    assert digest not in found["keys"]
    assert key not in server.log.read_text()


SCRUB = """
import os, subprocess, sys
from rdskit.jupyter.gateway import scrub_environ
assert scrub_environ(["RDSKIT_API_KEY", "RDSKIT_BASE_URL"])
child = "import os; print(open(f'/proc/{os.getppid()}/environ', 'rb').read().count(b'S3CR3T'))"
seen = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout
print(seen.strip(), "RDSKIT_API_KEY" in os.environ, os.environ.get("KEEP"))
"""


def test_scrubbing_reaches_proc_environ() -> None:
    """The mechanism alone: a process started with the key scrubs it; its child reads the
    parent's /proc/<pid>/environ and finds nothing, while other variables stay."""
    env = {**os.environ, "RDSKIT_API_KEY": "S3CR3T-value", "KEEP": "kept"}
    out = subprocess.run(
        [sys.executable, "-c", SCRUB], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["0", "False", "kept"]
    unscrubbed = subprocess.run(
        [sys.executable, "-c", SCRUB.replace("assert scrub_environ", "assert not callable")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert unscrubbed[0] == "1"  # without it, the child reads the key (the test can fail)


def test_the_key_can_come_from_a_private_file(
    sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    key_file = tmp_path / "key"
    key_file.write_text(sandbox.api_key + "\n")
    key_file.chmod(0o600)
    app = boot(api_key_file=str(key_file), base_url=sandbox.url)
    assert app.gateway is not None and app.gateway.mode == "service"
    with serving(app.gateway) as served:
        serve_extension(app, served)
        with rdskit.Client() as client:
            assert client.me().email.startswith("owner@")
        served.call(app.stop_extension())
    link = tmp_path / "link"
    link.symlink_to(key_file)
    assert boot_without_gateway(api_key_file=str(link), base_url=sandbox.url)


def boot_without_gateway(**traits: Any) -> bool:
    """A key file behind a symlink is refused: no service mode (the sandbox instead)."""
    from rdskit.jupyter.gateway import RdsGateway

    app = RdsGateway(**traits)
    app.initialize_settings()
    return app.gateway is None or app.gateway.mode == "sandbox"


# -- private files --------------------------------------------------------------------------------
def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """A permissive umask (0022, group/other may read): rdskit must narrow by itself."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.mark.usefixtures("usual_umask")
def test_the_shared_sandbox_is_private_and_has_its_own_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    keys = []
    for _ in range(2):  # a restart mints a new key and revokes the previous one
        app = boot(sandbox_speed=200)
        with serving(app.gateway) as served:
            serve_extension(app, served)
            with rdskit.Client() as client:
                client.datasets.create("private")
            base_url = app.gateway.base_url
            folder = tmp_path / "data" / "rdskit"
            keys.append(read_private(folder / "sandbox.db.key").decode())
            default = httpx.get(
                f"{base_url}/v1/me", headers={"x-api-key": default_api_key(0)}
            ).status_code
            stored = httpx.get(f"{base_url}/v1/me", headers={"x-api-key": keys[-1]}).status_code
            earlier = (
                httpx.get(f"{base_url}/v1/me", headers={"x-api-key": keys[0]}).status_code
                if len(keys) == 2
                else None
            )
            files = sorted(p.name for p in folder.iterdir())
            modes = {p.name: mode(p) for p in folder.iterdir()}
            folder_mode = mode(folder)
            served.call(app.stop_extension())
        assert default == 401 and stored == 200 and earlier in (None, 401)
        assert folder_mode == 0o700
        assert {"sandbox.db", "sandbox.db.key"} <= set(files)
        assert set(modes.values()) == {0o600}, modes  # -wal/-shm included while open
    assert keys[0] != keys[1]


def test_the_discovery_file_never_follows_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "gateway.json").symlink_to(victim)
    gateway = Gateway(("http://127.0.0.1:1", UPSTREAM_KEY), mode="service")
    gateway.publish(runtime / "gateway.json", "http://127.0.0.1:2/rdskit")
    assert victim.read_text() == "keep me"  # the link was replaced, its target untouched
    assert not (runtime / "gateway.json").is_symlink()
    assert mode(runtime / "gateway.json") == 0o600 and mode(runtime) == 0o700
    with pytest.raises(ConfigurationError):
        (runtime / "other.json").symlink_to(runtime / "gateway.json")
        GatewayKey(runtime / "other.json")  # kernels do not read through symlinks either


def test_a_private_dir_of_another_owner_or_a_symlink_is_refused(tmp_path: Path) -> None:
    real = private_dir(tmp_path / "real")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(PermissionError, match="symlink"):
        private_dir(tmp_path / "link")
    wide = tmp_path / "wide"
    wide.mkdir(mode=0o777)
    wide.chmod(0o777)
    assert mode(private_dir(wide)) == 0o700


@pytest.mark.usefixtures("usual_umask")
def test_the_parquet_cache_is_private(
    sandbox: SandboxHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        dataset = client.datasets.create("cache test")
        client.mentions.to_frame(dataset_ids=[dataset.id], cache=True)
        (cached,) = (tmp_path / "cache" / "mentions").glob("*.parquet")
        assert mode(cached) == 0o600 and mode(cached.parent) == 0o700
        assert mode(tmp_path / "cache") == 0o700
        # A planted symlink in place of the cache file is never read through.
        target = tmp_path / "elsewhere.parquet"
        cached.rename(target)
        cached.symlink_to(target)
        with pytest.raises(OSError):
            client.mentions.to_frame(dataset_ids=[dataset.id], cache=True)


# -- an upstream that echoes the key, a page that cannot be framed, a server not dumpable ------
@contextmanager
def echoing_upstream() -> Iterator[str]:
    """A loopback upstream that echoes every request header in its body and headers."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"data": dict(self.headers.items())}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("retry-after", self.headers.get("x-api-key", ""))
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        yield url


def test_an_upstream_echoing_the_key_never_hands_it_to_a_kernel() -> None:
    with echoing_upstream() as url:
        gateway = Gateway((url, UPSTREAM_KEY), mode="service")
        with serving(gateway) as served:
            token, _ = gateway.tokens.mint()
            response = httpx.get(
                f"http://127.0.0.1:{served.port}/rdskit/v1/me", headers={"x-api-key": token}
            )
    assert response.status_code == 200
    assert UPSTREAM_KEY not in response.text and UPSTREAM_KEY not in str(response.headers)
    assert response.json()["data"]["x-api-key"] == "[redacted]"  # the echo arrived, redacted
    assert "retry-after" not in response.headers  # the header that carried it is dropped


def test_the_page_answers_loopback_hosts_only_and_cannot_be_framed() -> None:
    gateway = Gateway(("http://127.0.0.1:1", UPSTREAM_KEY), mode="service")
    with serving(gateway) as served:
        page = httpx.get(f"http://127.0.0.1:{served.port}/rdskit")
        rebound = httpx.get(
            f"http://127.0.0.1:{served.port}/rdskit", headers={"host": "evil.example:80"}
        )
    assert page.status_code == 200 and page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert rebound.status_code == 403 and rebound.json()["error_code"] == "gateway_host_refused"


# Both processes become one unprivileged user once started (root may read any memory, and
# the interpreter lives under /root); a change of user resets the dumpable flag, so the
# control sets it back to 1.
_AS_NOBODY = """
if os.getuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
"""

_HOLDER = (
    "import ctypes, os, sys, time\n"
    "from rdskit.jupyter.gateway import make_undumpable\n"
    "libc = ctypes.CDLL(None)\n"
    + _AS_NOBODY
    + """
if sys.argv[1] == "undumpable":
    assert make_undumpable()
else:
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1
print(libc.prctl(3, 0, 0, 0, 0), flush=True)  # PR_GET_DUMPABLE
time.sleep(30)
"""
)

_READER = (
    "import os, sys\n"
    + _AS_NOBODY
    + """
pid = sys.argv[1]
try:
    maps = open(f"/proc/{pid}/maps").read().splitlines()
    start = int(next(line for line in maps if "rw-p" in line).split("-")[0], 16)
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(start)
        mem.read(64)
    print("read")
except OSError as exc:
    print("refused", type(exc).__name__)
"""
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize("mode", ["undumpable", "control"])
def test_a_same_user_process_cannot_read_the_memory_of_a_non_dumpable_server(mode: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HOME": "/tmp"}
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, mode],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        dumpable = holder.stdout.readline().strip() if holder.stdout else ""
        reader = subprocess.run(
            [sys.executable, "-c", _READER, str(holder.pid)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    finally:
        holder.kill()
        holder.wait()
    if mode == "undumpable":
        assert dumpable == "0"
        assert reader.stdout.startswith("refused"), reader.stdout + reader.stderr
    else:  # the same reader succeeds on a dumpable process: the test can fail
        assert dumpable == "1"
        assert reader.stdout.startswith("read"), reader.stdout + reader.stderr


def encoded_echoes() -> dict[str, tuple[str, dict[str, str], bytes]]:
    """How a hostile upstream could hand the key back: (reason, headers, body) per path."""
    import base64

    key = UPSTREAM_KEY
    b64 = base64.b64encode(f'{{"x-api-key": "{key}"}}'.encode()).decode()
    escaped = "".join(f"\\u{ord(c):04x}" for c in key)
    return {
        "/v1/base64": ("OK", {}, json.dumps({"data": {"echo": b64}}).encode()),
        "/v1/base64-header": ("OK", {"ratelimit-remaining": b64}, b'{"data": {}}'),
        "/v1/url-safe": ("OK", {}, base64.urlsafe_b64encode(b"xy" + key.encode())),
        "/v1/escaped": ("OK", {}, f'{{"data": {{"k": "{escaped}"}}}}'.encode()),
        "/v1/split": ("OK", {}, json.dumps({"data": {"a": key[:15], "b": key[15:]}}).encode()),
        "/v1/hex": ("OK", {}, json.dumps({"data": key.encode().hex()}).encode()),
        "/v1/reason": (f"OK {key}", {}, b'{"data": {}}'),
    }


def test_an_upstream_echoing_the_key_encoded_never_hands_it_to_a_kernel() -> None:
    echoes = encoded_echoes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reason, headers, body = echoes[self.path]
            self.send_response(200, reason)
            for name, value in {"content-type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with listening(Handler) as url:
        gateway = Gateway((url, UPSTREAM_KEY), mode="service")
        with serving(gateway) as served:
            token, _ = gateway.tokens.mint()
            for path in echoes:
                connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
                connection.request("GET", f"/rdskit{path}", headers={"x-api-key": token})
                response = connection.getresponse()
                body, reason = response.read(), response.reason
                connection.close()
                seen = f"{reason} {response.getheaders()} {body!r}"
                assert UPSTREAM_KEY not in seen, path
                assert not rdskit.jupyter.gateway.carries_key(seen, UPSTREAM_KEY), path
                if path == "/v1/reason":
                    assert (response.status, reason) == (200, "OK")  # the standard phrase
                else:
                    assert response.status in (200, 502), path


def test_a_non_ascii_header_from_a_kernel_is_a_400(caplog: pytest.LogCaptureFixture) -> None:
    with recording_upstream() as (url, seen):
        gateway = Gateway((url, UPSTREAM_KEY), mode="service")
        with serving(gateway) as served:
            token, _ = gateway.tokens.mint()
            response = httpx.get(
                f"http://127.0.0.1:{served.port}/rdskit/v1/me",
                headers={"x-api-key": token, "user-agent": "caf\xe9 \u2603".encode()},
            )
    assert response.status_code == 400
    assert response.json()["error_code"] == "gateway_header_refused"
    assert seen == [] and "Traceback" not in caplog.text
