"""The house's shape: no import cycles between our modules (type-only imports and
those inside functions included), serve_app's and deployments' packages in layers
that import only downward, speech/'s rooms apart, the stages of deployments/
independent of each other, and modules of a readable size."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("serve_app", "deployments", "loadtest")
MAX_LINES = 420  # "under ~400 lines": the largest today are a language's number readers
MAX_FUNCTION_LINES = 60  # serve_app's (the engines' model code has longer ones)
# serve_app's packages, lowest first: a module imports from its own layer or below,
# never above (docs/architecture.md). Top-level modules (app.py, run.py) are packages here.
LAYERS = (
    ("settings",),
    ("accounts",),
    ("http",),
    ("speech",),
    ("surfaces",),
    ("ingress",),
    ("app", "run", "cluster", "openapi"),
)
# deployments/'s, the same way: plain data and helpers of every stage, the messages
# between stages, the stages (which import none of each other: the layer STAGES), and
# above them each stage's Serve shim (``deployments.<stage>.deployment``).
DEPLOYMENT_LAYERS = (
    ("ray_adapters", "reading", "priority", "espeak_binding", "flow_control", "loopback",
     "replica_logs", "replica_streams", "timings"),
    ("messages",),
    ("voice_design",),
    ("normaliser", "synthesis", "encoding"),
    ("deployment",),
)  # fmt: skip
STAGES = 3
LAYERED = {"serve_app": (LAYERS, None), "deployments": (DEPLOYMENT_LAYERS, STAGES)}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def module_imports(path: Path, name: str, in_functions: bool = True) -> set[str]:
    """The modules ``name`` imports: at module level, those under TYPE_CHECKING too (a
    cycle of types is a cycle of the design), and inside functions (imported late, but
    a dependence all the same) unless ``in_functions`` is false; ``from a import b``
    counts as both ``a`` and ``a.b``."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    imported: set[str] = set()

    def add(node: ast.stmt) -> None:
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            imported.add(base)
            imported.update(f"{base}.{alias.name}" for alias in node.names)

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
            else:
                add(node)

    if in_functions:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                add(node)
    else:
        visit(tree.body)
    return imported - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
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

    for node in graph:
        if node not in index:
            connect(node)
    return found


def member_of(module: str) -> str | None:
    """The name a layer lists ``module`` under: its package or top-level module below
    serve_app or deployments (a stage's Serve shim: ``deployment``); None elsewhere."""
    parts = module.split(".")
    if parts[0] not in LAYERED or len(parts) < 2:
        return None
    return "deployment" if parts[0] == "deployments" and parts[2:] == ["deployment"] else parts[1]


def layer_of(module: str) -> int | None:
    """The layer of a serve_app or deployments module (None: another package)."""
    member = member_of(module)
    if member is None:
        return None
    layers, _ = LAYERED[module.split(".")[0]]
    return next((i for i, names in enumerate(layers) if member in names), None)


def against_layers(graph: dict[str, set[str]]) -> list[str]:
    """Each import of ``graph`` (module -> modules it imports) that climbs a layer of
    its package, or goes from one stage to another."""
    found = []
    for module, imported in graph.items():
        own, root = layer_of(module), module.split(".")[0]
        for target in sorted(imported):
            theirs = layer_of(target)
            if own is None or theirs is None or target.split(".")[0] != root:
                continue
            across = own == theirs == LAYERED[root][1] and member_of(module) != member_of(target)
            if theirs > own or across:
                found.append(f"{module} -> {target}")
    return sorted(found)


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: module_imports(path, name) & set(known) for name, path in known.items()}


def test_serve_app_s_and_deployments_packages_import_only_downward() -> None:
    for root, (layers, _) in LAYERED.items():
        members = {member_of(name) for name in modules() if name.startswith(f"{root}.")}
        assert members == {name for layer in layers for name in layer}  # each has a layer
    assert against_layers(import_graph()) == []


# The rooms of serve_app/speech/: the live request path in speech/ itself, and beside
# it the WebSocket's text streams and the long-form jobs, which speak through the live
# path and know nothing of each other; a room may import only itself and the live path.
SPEECH_ROOMS = ("serve_app.speech.streams", "serve_app.speech.longform")


def room_of(module: str) -> str | None:
    """The room of a module of serve_app/speech/ ("" for the live path), else None."""
    if not module.startswith("serve_app.speech"):
        return None
    return next((r for r in SPEECH_ROOMS if module == r or module.startswith(f"{r}.")), "")


def across_rooms(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, imported in graph.items()
        for target in imported
        if room_of(module) is not None and room_of(target) not in (None, "", room_of(module))
    )


def test_speech_s_rooms_import_only_themselves_and_the_live_path() -> None:
    graph = import_graph()
    for room in SPEECH_ROOMS:
        assert any(room_of(name) == room for name in graph), room
    assert across_rooms(graph) == []
    assert across_rooms(
        {
            "serve_app.speech.service": {"serve_app.speech.longform.jobs"},
            "serve_app.speech.longform.work": {"serve_app.speech.pipeline"},
            "serve_app.speech.streams.text_stream": {"serve_app.speech.longform.ssml"},
        }
    ) == [
        "serve_app.speech.service -> serve_app.speech.longform.jobs",
        "serve_app.speech.streams.text_stream -> serve_app.speech.longform.ssml",
    ]


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {
        "serve_app.speech.service": {"serve_app.surfaces.native.protocol", "serve_app.http.errors"},
        "serve_app.surfaces.compat": {"serve_app.speech.catalog"},
        "serve_app.accounts.admin": {"deployments.messages"},
        "deployments.messages": {"deployments.normaliser.pronunciation", "deployments.reading"},
        "deployments.normaliser.normaliser": {"deployments.synthesis.voices"},
        "deployments.synthesis.deployment": {"deployments.synthesis.runner"},
        "deployments.synthesis.runner": {"deployments.synthesis.deployment"},
    }
    assert against_layers(graph) == [
        "deployments.messages -> deployments.normaliser.pronunciation",
        "deployments.normaliser.normaliser -> deployments.synthesis.voices",
        "deployments.synthesis.runner -> deployments.synthesis.deployment",
        "serve_app.speech.service -> serve_app.surfaces.native.protocol",
    ]


def test_no_module_imports_itself_round_a_cycle() -> None:
    graph = import_graph()
    assert {"deployments.messages", "serve_app.http.errors"} <= graph["serve_app.speech.pipeline"]
    assert cycles(graph) == []


def test_type_only_imports_count(tmp_path: Path) -> None:
    module = tmp_path / "typed.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a import B\n"
        "def f():\n    import c\n"
    )
    assert module_imports(module, "typed", in_functions=False) == {
        "typing",
        "typing.TYPE_CHECKING",
        "a",
        "a.B",
    }
    assert module_imports(module, "typed") == {"typing", "typing.TYPE_CHECKING", "a", "a.B", "c"}


def test_stage_code_imports_without_ray() -> None:
    """Engines, normaliser and encoder are plain Python; only each stage's
    ``deployment.py`` (its Serve shim) imports Ray."""
    with_ray = {
        name
        for name, path in modules().items()
        if name.startswith("deployments.")
        and any(
            m == "ray" or m.startswith("ray.")
            for m in module_imports(path, name, in_functions=False)
        )
    }
    assert with_ray == {
        "deployments.encoding.deployment",
        "deployments.normaliser.deployment",
        "deployments.synthesis.deployment",
    }


# Where Ray's private modules may be used: one adapter module a need (its docstring).
RAY_ADAPTERS = "deployments.ray_adapters"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")  # __version__ is public


def ray_private_uses(path: Path) -> list[str]:
    """Where the file at ``path`` imports or reaches a private part of Ray (a module
    or attribute of ``ray`` whose name begins with ``_``), inside functions too."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            names = [ast.unparse(node)]
        for name in names:
            parts = name.split(".")
            if parts[0] == "ray" and any(_private(part) for part in parts[1:]):
                found.append((node.lineno, f"{path.name}:{node.lineno} {name}"))
                break
    return [where for _, where in sorted(found)]


def test_ray_s_private_parts_only_through_their_adapters() -> None:
    files = [path for name, path in modules().items() if not name.startswith(RAY_ADAPTERS)]
    files += list((ROOT / "tests").rglob("*.py"))
    adapters = [path for name, path in modules().items() if name.startswith(RAY_ADAPTERS)]
    assert len(files) > 300 and len(adapters) >= 5
    assert [where for path in files for where in ray_private_uses(path)] == []
    assert all(ray_private_uses(path) for path in adapters if path.name != "__init__.py")


def test_the_private_use_finder_finds_them(tmp_path: Path) -> None:
    module = tmp_path / "private.py"
    module.write_text(
        "import ray\nimport ray._private.services\nfrom ray.serve._private import replica\n"
        "def f():\n    from ray._common import tls_utils\n    return ray._private.worker\n"
        "print(ray.__version__)\nfrom ray.serve import _private\n"
    )
    assert ray_private_uses(module) == [
        "private.py:2 ray._private.services",
        "private.py:3 ray.serve._private",
        "private.py:5 ray._common",
        "private.py:6 ray._private",
        "private.py:8 ray.serve._private",
    ]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_modules_stay_a_readable_size() -> None:
    sizes = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    assert {name: size for name, size in sizes.items() if size > MAX_LINES} == {}


def test_serve_app_s_functions_fit_on_a_screen() -> None:
    """A route, a service method, a helper of the ingress: each read at one glance."""
    long = {
        f"{name}.{node.name}": node.end_lineno - node.lineno + 1
        for name, path in modules().items()
        if name.startswith("serve_app")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    }
    assert long == {}


# What waits on the clock: a call of one of these names, or an argument of these.
CLOCK_CALLS = {"sleep", "monotonic", "wait", "wait_for"}
CLOCK_ARGUMENTS = {"timeout", "timeout_s", "deadline", "deadline_s"}


def clock_waits(path: Path) -> list[str]:
    """Where the file at ``path`` waits on the clock (``file:line call``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else None
        called = node.func.id if isinstance(node.func, ast.Name) else called
        if called in CLOCK_CALLS or {k.arg for k in node.keywords} & CLOCK_ARGUMENTS:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_compute_tests_wait_on_no_clock() -> None:
    """`make test` runs the compute tests at the lowest priority beside the service
    tiers, where they may get no CPU for a minute: a deadline there would fail them by
    chance. They compute and compare; nothing in them waits on the clock."""
    from tests.tiers import COMPUTE_TESTS

    files = [
        path
        for prefix in COMPUTE_TESTS
        for path in ((ROOT / prefix).rglob("*.py") if prefix.endswith("/") else [ROOT / prefix])
    ]
    assert len(files) >= 10 and all(path.is_file() for path in files)
    assert [where for path in files for where in clock_waits(path)] == []


def test_the_clock_finder_finds_waits(tmp_path: Path) -> None:
    waiting = tmp_path / "waiting.py"
    waiting.write_text("import time\ntime.sleep(1)\nfuture.result(timeout=5)\nlen(x)\n")
    assert clock_waits(waiting) == ["waiting.py:2 time.sleep", "waiting.py:3 future.result"]
