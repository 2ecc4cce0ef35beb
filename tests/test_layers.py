"""The layers of rdskit, enforced: core -> frames and validation -> jupyter; the sandbox
apart.

An AST scan of every module under ``src/rdskit``: each ``import`` / ``from ... import``
(top level or inside a function: a lazy import is still a dependency; ``if TYPE_CHECKING:``
blocks excepted, they never run) is resolved to the rdskit module it names. The rules:

- the core (configuration, HTTP, models, errors, resources, billing, waiting, run kinds,
  progress domain...) imports nothing from ``rdskit.frames``, ``rdskit.jupyter`` or
  ``rdskit.sandbox``; it reaches them only through the typed hooks declared in ``rdskit._hooks``;
- ``rdskit.frames`` and ``rdskit.validation`` (the statistics of validating labels, beside
  the frames) import neither ``rdskit.jupyter`` nor ``rdskit.sandbox``;
- ``rdskit.sandbox`` imports neither ``rdskit.frames`` nor ``rdskit.jupyter``;
- no module is part of an import cycle, in any package or across them (a module that needs
  another lazily "to avoid a cycle" is a cycle all the same: function-level imports are
  scanned);
- an import inside a function is either of a package only an optional extra installs
  (pyproject's ``optional-dependencies``) or listed in :data:`LAZY_IMPORTS` with why it is
  not at the top of its module (what it keeps off which path, measured).

The package root (``rdskit/__init__.py``) and the applications (``cli.py``, ``demo.py``,
``rdskit.study``) compose the layers and may name any of them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "rdskit"
LAYERS = ("rdskit.frames", "rdskit.validation", "rdskit.jupyter", "rdskit.sandbox")
COMPOSERS = {"rdskit", "rdskit.cli", "rdskit.demo", "rdskit.__main__"}
FORBIDDEN = {
    "core": LAYERS,
    "rdskit.frames": ("rdskit.jupyter", "rdskit.sandbox"),
    "rdskit.validation": ("rdskit.jupyter", "rdskit.sandbox"),
    "rdskit.sandbox": ("rdskit.frames", "rdskit.validation", "rdskit.jupyter"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str:
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    # A study (rdskit.study) is an application, like the command line: it composes the client
    # and the frames.
    return "composer" if module in COMPOSERS or module.startswith("rdskit.study") else "core"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, skipping ``if TYPE_CHECKING:`` bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            yield from (n for part in child.orelse for n in [part, *_walk(part)])
            continue
        yield child
        yield from _walk(child)


def _resolve(name: str) -> str | None:
    """The rdskit module ``name`` refers to (an imported attribute resolves to its module)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[tuple[str, int]]:
    """The rdskit modules ``module`` imports, with the line of each import."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[tuple[str, int]] = set()
    for node in _walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import sub`` depends on the submodule; ``from mod import name``
            # on the module.
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.add((target, node.lineno))
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def violations(layer: str) -> list[str]:
    banned = FORBIDDEN[layer]
    return [
        f"{module}:{line} imports {target}"
        for module in MODULES
        if layer_of(module) == layer
        for target, line in sorted(GRAPH[module])
        if target.startswith(banned) and layer_of(target) != layer
    ]


@pytest.mark.parametrize("layer", FORBIDDEN)
def test_layer_imports_nothing_above_it(layer: str) -> None:
    assert violations(layer) == []


def test_the_scan_sees_lazy_imports() -> None:
    # The rule must be able to fail: the package root imports the Jupyter layer lazily
    # (load_ipython_extension), and the scan has to see that import.
    assert any(target.startswith("rdskit.jupyter") for target, _ in GRAPH["rdskit"])
    assert layer_of("rdskit.models.mentions") == "core"
    assert layer_of("rdskit.jupyter.progress") == "rdskit.jupyter"


def cycles(modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    edges = {m: {t for t, _ in GRAPH[m] if t in modules} for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_anywhere() -> None:
    # Over every module, the package root and the applications included, with function-level
    # imports in the graph: a lazy import that would close a cycle ("imported here to avoid
    # a cycle") fails here like a top-level one. The sandbox's store is handed its schema (no
    # import of the parts); the frames' shared helpers sit below their users
    # (frames/_checks.py, frames/_pages.py); the JupyterLab endpoints build on the gateway's
    # core and handlers, not on its extension; the layers read the version from _version.py,
    # not from the package root that loads them.
    assert cycles(set(MODULES)) == []


def test_a_lazy_import_closing_a_cycle_is_one() -> None:
    # The rule must be able to fail: the package root imports the frames accessor in a
    # function; were the accessor to import the root back, even in a function, it is a cycle.
    assert "rdskit.frames.accessor" in {target for target, _ in GRAPH["rdskit"]}
    back = ("rdskit", 1)
    GRAPH["rdskit.frames.accessor"].add(back)
    try:
        found = cycles(set(MODULES))
        assert any({"rdskit", "rdskit.frames.accessor"} <= set(cycle) for cycle in found)
    finally:
        GRAPH["rdskit.frames.accessor"].discard(back)


# -- imports inside functions ------------------------------------------------------------
# Each kept on purpose: a module, what it imports inside functions, and why that is not at
# the top of the module. Times: the import on top of what the module already loads, on the
# shared 2-core machine.
_LAZY: list[tuple[str, tuple[str, ...], str]] = [
    (
        "rdskit",
        ("rdskit.frames.accessor",),
        "df.rds is registered at import; the accessor and the frames layer load on the first "
        "df.rds (import rdskit's time target, benchmarks/bench_import.py)",
    ),
    ("rdskit", ("pandas",), "the package root's namespace is its public API (dir(rdskit))"),
    (
        "rdskit",
        ("rdskit.jupyter",),
        "%load_ext rdskit: the Jupyter layer (IPython) loads in a kernel, not on import rdskit",
    ),
    (
        "rdskit",
        ("rdskit.jupyter.gateway",),
        "the Jupyter server's entry point: the gateway (jupyter_server, tornado) loads in the "
        "server only",
    ),
    ("rdskit._ledger", ("fcntl",), "POSIX only: imported where the platform is checked"),
    ("rdskit.sandbox.app", ("resource",), "POSIX only: imported where the platform is checked"),
    (
        "rdskit.cli",
        (
            "rdskit.sandbox",
            "rdskit.sandbox.runtime.chaos",
            "rdskit.sandbox.runtime.clock",
            "rdskit.sandbox.store.db",
            "rdskit.sandbox.wallet_admin",
        ),
        "rdskit sandbox only: the sandbox extra (FastAPI, uvicorn) is not loaded by the other "
        "subcommands",
    ),
    (
        "rdskit.cli",
        ("rdskit.client",),
        "the subcommands that call the service load the client's resources (+0.3 s after the "
        "parser): rdskit sandbox does not",
    ),
    (
        "rdskit.demo",
        ("rdskit.client", "rdskit.jupyter.render", "rdskit.sandbox", "rdskit.frames.plots"),
        "rdskit demo only, after require() has named a missing extra: not loaded by the other "
        "subcommands",
    ),
    (
        "rdskit.frames.accessor",
        ("rdskit.frames.plots",),
        "the charts load on the first df.rds.plot, after require() has named the jupyter "
        "extra (matplotlib)",
    ),
    (
        "rdskit.frames.accessor",
        ("rdskit.frames.compare",),
        "comparisons (+70-90 ms) load on the first df.rds.compare, not on the first df.rds",
    ),
    (
        "rdskit.frames.accessor",
        ("rdskit.frames.agreement",),
        "agreement and rdskit.validation (+160-210 ms) load on the first df.rds.agreement, "
        "not on the first df.rds",
    ),
    (
        "rdskit.frames.compare",
        ("rdskit.validation",),
        "rdskit.validation (+160 ms) loads for corrected shares only",
    ),
    (
        "rdskit.jupyter",
        ("rdskit.jupyter.magics",),
        "rdskit.jupyter is also the package of the server extension and of the displays; the "
        "magics (IPython, +1.1 s) load with %load_ext, in a kernel",
    ),
    (
        "rdskit.jupyter.errors",
        ("rdskit.client",),
        "an error's HTML display does not load the HTTP client (+0.4-2.5 s): only the hint of "
        "a ConfigurationError reads it",
    ),
    (
        "rdskit.jupyter.panel_ask",
        ("rdskit.jupyter.session",),
        "runs in the kernel only: the server imports panel_ask (through lab_ask) without the "
        "kernel's session and client (+1.9 s)",
    ),
    (
        "rdskit.jupyter.render",
        ("rdskit.frames", "rdskit.frames.fetch"),
        "a model's HTML display (reprs imports render) does not load the frames layer "
        "(+1.8 s): an answer's cited posts are read into a frame when shown",
    ),
    (
        "rdskit.jupyter.shared_sandbox",
        ("rdskit.sandbox", "rdskit.sandbox.store.accounts", "rdskit.sandbox.store.db"),
        "the gateway loads the sandbox extra (FastAPI, +2.8 s) only when it serves a shared "
        "sandbox",
    ),
    (
        "rdskit.sandbox.server",
        ("rdskit.sandbox.app",),
        "import rdskit.sandbox (AdminClient, the wallet admin of rdskit sandbox --plan) does "
        "not load FastAPI and the routes (+2.8 s): start() does",
    ),
    (
        "rdskit.study.cli",
        # rdskit.study.rehydrate: the function of that name, which the package exports
        ("rdskit.study", "rdskit.study.rehydrate", "rdskit.client"),
        "rdskit study only: rdskit.study loads each part on first use (its __init__), so the "
        "other subcommands load no study models or packaging libraries",
    ),
    # To move (each module already loads the import at its top, through another): the
    # modules are other branches' this session.
    ("rdskit.jupyter.magics", ("rdskit.frames",), "to move: h34-more edits jupyter/magics.py"),
    (
        "rdskit.sandbox.assistant.reader",
        ("rdskit.sandbox.assistant.words",),
        "to move: another branch edits sandbox/assistant",
    ),
    (
        "rdskit.sandbox.backend.admin",
        ("rdskit.sandbox.synth.corpus",),
        "to move: another branch edits sandbox/backend",
    ),
    (
        "rdskit.sandbox.backend.datasets",
        ("rdskit.sandbox.synth.enrichment",),
        "to move: another branch edits sandbox/backend",
    ),
]
LAZY_IMPORTS = {(module, target): why for module, targets, why in _LAZY for target in targets}


def _extras_only() -> set[str]:
    """Top-level import names of the packages only an optional extra installs."""
    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    extras = (
        {
            canonicalize_name(Requirement(r).name)
            for requirements in project["optional-dependencies"].values()
            for r in requirements
        }
        - core
        - {"rdskit"}
    )
    return {
        name
        for name, dists in packages_distributions().items()
        if any(canonicalize_name(d) in extras for d in dists)
    }


EXTRAS_ONLY = _extras_only()


def function_imports(module: str, tree: ast.AST) -> set[tuple[str, int]]:
    """What ``module`` imports inside its functions (``if TYPE_CHECKING:`` excepted): the
    rdskit module, else the top-level package, with the line of each import."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[tuple[str, int]] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for part in child.orelse:
                    visit(part, inside)
                continue
            if inside and isinstance(child, ast.Import | ast.ImportFrom):
                if isinstance(child, ast.Import):
                    names = [alias.name for alias in child.names]
                elif child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, child.module] if child.module else anchor)
                    names = [f"{base}.{alias.name}" for alias in child.names]
                else:
                    names = [f"{child.module}.{alias.name}" for alias in child.names]
                for name in names:
                    found.add((_resolve(name) or name.split(".")[0], child.lineno))
            nested = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, inside or nested)

    visit(tree, False)
    return found


def unlisted_function_imports(module: str, tree: ast.AST) -> list[str]:
    return [
        f"{module}:{line} imports {target} inside a function"
        for target, line in sorted(function_imports(module, tree), key=lambda found: found[::-1])
        if (module, target) not in LAZY_IMPORTS and target not in EXTRAS_ONLY
    ]


def _tree(module: str) -> ast.AST:
    return ast.parse(MODULES[module].read_text(encoding="utf-8"), str(MODULES[module]))


def test_every_function_level_import_is_an_extra_or_listed_with_why() -> None:
    # An import moved into a function costs a reader the module's dependencies at a glance;
    # it stays only for an optional extra, or with its reason in LAZY_IMPORTS.
    assert [
        line for module in MODULES for line in unlisted_function_imports(module, _tree(module))
    ] == []


def test_every_listed_lazy_import_is_still_one() -> None:
    found = {
        (module, target)
        for module in MODULES
        for target, _ in function_imports(module, _tree(module))
    }
    assert set(LAZY_IMPORTS) - found == set()


def test_an_unlisted_function_level_import_fails() -> None:
    # The rule must be able to fail: a function-level import of the standard library or of
    # rdskit, not listed, is reported; one of an optional extra's packages is not.
    assert {"matplotlib", "scipy", "openpyxl", "IPython", "uvicorn"} <= EXTRAS_ONLY
    assert not {"pandas", "httpx", "pydantic", "json"} & EXTRAS_ONLY
    planted = ast.parse(
        "import json\n\ndef f():\n    import json\n    from rdskit.errors import RdsError\n"
        "    from .billing import estimate\n    import matplotlib.pyplot as plt\n"
        "    from rdskit.sandbox import start\n"
    )
    assert unlisted_function_imports("rdskit.budget", planted) == [
        "rdskit.budget:4 imports json inside a function",
        "rdskit.budget:5 imports rdskit.errors inside a function",
        "rdskit.budget:6 imports rdskit.billing inside a function",
        "rdskit.budget:8 imports rdskit.sandbox inside a function",
    ]
    # Listed for the command line (its sandbox subcommand), not for the budget module.
    assert unlisted_function_imports("rdskit.cli", planted) == [
        "rdskit.cli:4 imports json inside a function",
        "rdskit.cli:5 imports rdskit.errors inside a function",
        "rdskit.cli:6 imports rdskit.billing inside a function",
    ]


# -- the layers at run time ---------------------------------------------------------------
def _modules_after(code: str) -> set[str]:
    script = (
        f"{code}\nimport sys\nprint(' '.join(m for m in sys.modules if m.startswith('rdskit')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return set(done.stdout.split())


def test_import_rdskit_loads_no_layer_and_no_client() -> None:
    loaded = _modules_after("import rdskit")
    assert not {m for m in loaded if m.startswith(LAYERS)}
    assert "rdskit.client" not in loaded and "rdskit.models" not in loaded
    assert "rdskit.client" in _modules_after("import rdskit; rdskit.Client")


def test_a_scripts_wait_loads_no_display_layer() -> None:
    code = """
import httpx, rdskit
run = {"id": "dsr_1", "dataset_id": "ds_1", "created_at": 0, "status": {"type": "working"}}
done = {**run, "status": {"type": "completed"}}
reply = httpx.Response(200, json={"status": "success", "data": done})
client = rdskit.Client("bz_test_" + "0" * 32, base_url="http://rds.test", rate_limit=None,
                       transport=httpx.MockTransport(lambda request: reply))
client._sleep = lambda seconds: None
assert client.wait(rdskit.models.DatasetRun.model_validate(run)).status.type == "completed"
"""
    loaded = _modules_after(code)
    assert "rdskit.waiting" in loaded
    assert not {m for m in loaded if m.startswith(LAYERS)}


def _checked_providers() -> dict[str, str]:
    """Hook variable -> the ``module:attribute`` _hooks.py's TYPE_CHECKING block hands to its
    ``register`` (what mypy checks against the hook's signature)."""
    tree = ast.parse(MODULES["rdskit._hooks"].read_text(encoding="utf-8"))
    (check,) = (
        node
        for block in tree.body
        if isinstance(block, ast.If) and _is_type_checking(block)
        for node in block.body
        if isinstance(node, ast.FunctionDef)
    )
    aliases = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in check.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    found = {}
    for node in check.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            hook = node.value.func
            (provider,) = node.value.args
            assert isinstance(hook, ast.Attribute) and isinstance(hook.value, ast.Name)
            assert isinstance(provider, ast.Attribute) and isinstance(provider.value, ast.Name)
            found[hook.value.id] = f"{aliases[provider.value.id]}:{provider.attr}"
    return found


def test_every_hook_names_a_callable_mypy_checks() -> None:
    from rdskit import _hooks

    declared = {
        name: hook.target for name, hook in vars(_hooks).items() if isinstance(hook, _hooks.Hook)
    }
    assert set(declared.values()) == {hook.target for hook in _hooks.HOOKS}
    # The target imported at run time is the provider mypy checks against the signature.
    assert declared == _checked_providers()
    for hook in _hooks.HOOKS:
        assert callable(hook.call), hook
