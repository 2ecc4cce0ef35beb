"""The sandbox's layers, enforced: the backend below, a thin API on top.

An AST scan of every module under ``src/rdskit/sandbox`` (imports inside functions count;
``if TYPE_CHECKING:`` blocks do not, they never run). The API is ``api/*``, ``app.py``,
``registry.py`` and ``mcp_server.py``; the package root and ``server.py`` compose (they
start the server). Everything else is below the API (``backend/*``, ``store/*``,
``runtime/*``, ``synth/*``, ``errors.py``...) and:

- imports no API module (no ``api``, ``app``, ``registry`` or ``mcp_server``);
- imports no HTTP framework (``fastapi``, ``starlette``).

The synthetic world (``synth/*``) sits lower still: no store, no HTTP. The split was done part by
part: :data:`NOT_SPLIT` named the parts whose api module still held SQL, and a test keeps
it honest both ways (a split part's api module has no SQL; a listed part's has some); it is
empty now, so an api module that grows SQL again fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parents[2] / "src" / "rdskit" / "sandbox"
ROUTES = SANDBOX / "api"
API = (
    "rdskit.sandbox.api",
    "rdskit.sandbox.app",
    "rdskit.sandbox.registry",
    "rdskit.sandbox.mcp_server",
)
COMPOSERS = ("rdskit.sandbox", "rdskit.sandbox.server")
HTTP_FRAMEWORKS = ("fastapi", "starlette")

SPLIT = {
    "account",
    "admin",
    "audiences",
    "chaos",
    "chats",
    "custom_parameters",
    "datasets",
    "mentions",
    "patterns",
    "previews",
    "tracking",
}
"""Parts whose route module only parses, calls the backend and wraps the envelope."""

NOT_SPLIT: set[str] = set()
"""Parts whose route module still holds SQL, state and rules (14.1 not done for them)."""

MCP_STILL_CALLS: set[str] = set()
"""Route modules the MCP server still calls (none: it calls the backends)."""


def module_name(path: Path) -> str:
    parts = ["rdskit", "sandbox", *path.relative_to(SANDBOX).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path) -> set[str]:
    """Dotted names ``path`` imports (``from a import b`` gives ``a`` and ``a.b``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for part in node.body for inner in ast.walk(part))
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: use absolute imports"
            base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


MODULES = {module_name(path): path for path in sorted(SANDBOX.rglob("*.py"))}
BELOW_API = sorted(name for name in MODULES if name not in COMPOSERS and not name.startswith(API))


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


@pytest.mark.parametrize("module", BELOW_API)
def test_nothing_below_the_api_imports_it(module: str) -> None:
    names = imported_names(MODULES[module])
    assert sorted(name for name in names if _within(name, API)) == []


@pytest.mark.parametrize("module", BELOW_API)
def test_nothing_below_the_api_imports_an_http_framework(module: str) -> None:
    names = imported_names(MODULES[module])
    assert sorted(name for name in names if _within(name, HTTP_FRAMEWORKS)) == []


def test_the_backend_package_is_below_the_api() -> None:
    backend = [name for name in BELOW_API if name.startswith("rdskit.sandbox.backend")]
    assert {"rdskit.sandbox.backend.tables", "rdskit.sandbox.backend.patterns"} <= set(backend)
    for name in (
        "rdskit.sandbox.errors",
        "rdskit.sandbox.store.db",
        "rdskit.sandbox.backend.mention_query",
    ):
        assert name in BELOW_API


def test_the_scan_sees_what_it_must() -> None:
    # The rules must be able to fail: route modules import FastAPI and the backend, the
    # server imports the app lazily (inside a function), and the table list imports the
    # store it hands its sections to.
    assert "fastapi" in imported_names(MODULES["rdskit.sandbox.api.datasets"])
    assert "rdskit.sandbox.app" in imported_names(MODULES["rdskit.sandbox.server"])
    assert "rdskit.sandbox.store.db" in imported_names(MODULES["rdskit.sandbox.backend.tables"])


STORE_MAY_USE = ("rdskit.sandbox.store", "rdskit.sandbox.runtime", "rdskit.sandbox.errors")


@pytest.mark.parametrize(
    "module", sorted(name for name in MODULES if name.startswith("rdskit.sandbox.store"))
)
def test_the_store_imports_nothing_above_it(module: str) -> None:
    # The schema is handed in (backend/tables.py's open_store): the store names no part,
    # so the parts that use it can import it without a circle.
    names = imported_names(MODULES[module])
    above = sorted(
        name
        for name in names
        if _within(name, ("rdskit.sandbox",))
        and not _within(name, STORE_MAY_USE)
        and name != "rdskit.sandbox"
    )
    assert above == []


def test_the_list_of_parts_not_split_is_honest() -> None:
    parts = {path.stem for path in ROUTES.glob("*.py") if not path.stem.startswith("_")}
    assert parts == SPLIT | NOT_SPLIT and not SPLIT & NOT_SPLIT
    for part in sorted(parts):
        holds_sql = ".execute(" in (ROUTES / f"{part}.py").read_text(encoding="utf-8")
        assert holds_sql == (part in NOT_SPLIT), part


def test_the_mcp_server_calls_only_the_listed_route_modules() -> None:
    names = imported_names(MODULES["rdskit.sandbox.mcp_server"])
    routes = {name for name in names & MODULES.keys() if name.startswith("rdskit.sandbox.api.")}
    called = {name.rpartition(".")[2] for name in routes}
    assert {part for part in called if part in SPLIT | NOT_SPLIT} == MCP_STILL_CALLS


def test_the_mcp_server_holds_no_sql() -> None:
    # Its tools parse arguments and call the backend (chats, mentions, previews,
    # accounts); a query written in the server would be a second copy of a rule.
    source = MODULES["rdskit.sandbox.mcp_server"].read_text(encoding="utf-8")
    assert ".execute(" not in source and "SELECT " not in source
    names = imported_names(MODULES["rdskit.sandbox.mcp_server"])
    assert "rdskit.sandbox.backend.chats" in names and "sqlite3" not in names


TEXT_TOOLS = sorted(name for name in MODULES if name.startswith("rdskit.sandbox.synth"))
# The clock: a caller that passes no collection time gets the sandbox's one wall-clock read.
TEXT_MAY_USE = (
    "rdskit.models",
    "rdskit.sandbox.synth",
    "rdskit.sandbox.runtime.cpu_budget",
    "rdskit.sandbox.runtime.clock",
)


@pytest.mark.parametrize("module", TEXT_TOOLS)
def test_the_text_tools_know_no_store_and_no_http(module: str) -> None:
    # Corpus, enrichment, extractor and clustering work on plain values: the backend hands
    # them text and stores what they return, so they can be tested and benchmarked alone.
    names = imported_names(MODULES[module])
    # ``from rdskit.sandbox import budget`` also names the package itself: let that pass.
    parents = {prefix.rpartition(".")[0] for prefix in TEXT_MAY_USE}
    ours = sorted(
        name
        for name in names
        if name.startswith("rdskit.") and not _within(name, TEXT_MAY_USE) and name not in parents
    )
    assert ours == []
    assert not {"sqlite3", *HTTP_FRAMEWORKS} & names


def test_the_text_tools_are_scanned() -> None:
    assert {"rdskit.sandbox.synth.corpus", "rdskit.sandbox.synth.extractor"} <= set(TEXT_TOOLS)
