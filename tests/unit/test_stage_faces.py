"""Each stage of deployments/ has a public face, its ``__init__.py``: the ingress
(serve_app) uses a stage through it (and its Serve shim, ``deployment.py``), so a
stage may rearrange its modules without the ingress noticing; a stage's own modules
import each other by their paths, never through their own face (which imports them)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACED = ("normaliser", "synthesis", "encoding", "voice_design")


def face(stage: str) -> set[str]:
    names: list[str] = importlib.import_module(f"deployments.{stage}").__all__
    return set(names)


def past_faces(path: Path) -> list[str]:
    """Where the module at ``path`` reaches past a stage's face: a module of the stage
    other than its Serve shim, or a name its face does not offer."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            modules, names = [node.module], [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "deployments" or len(parts) < 2 or parts[1] not in FACED:
                continue
            where = f"{path.name}:{node.lineno} {module}"
            if len(parts) > 2 and parts[2:] != ["deployment"]:
                found.append(where)
            elif len(parts) == 2:
                found += [f"{where}.{name}" for name in names if name not in face(parts[1])]
    return found


def own_face_uses(stage: str) -> list[str]:
    """Where a module of ``stage`` imports from its own face (even a module of the
    stage, ``from deployments.<stage> import <module>``: the import graph reads that
    as the package's ``__init__``): a circle through the face."""
    folder = ROOT / "deployments" / stage
    found = []
    for path in folder.rglob("*.py"):
        if path.parent == folder and path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module == f"deployments.{stage}":
                found += [f"{path.name}:{node.lineno} {alias.name}" for alias in node.names]
    return found


def test_the_ingress_uses_each_stage_through_its_face() -> None:
    files = list((ROOT / "serve_app").rglob("*.py"))
    assert len(files) > 100
    assert [where for path in files for where in past_faces(path)] == []


def test_a_stage_s_modules_do_not_import_its_face() -> None:
    assert [where for stage in FACED for where in own_face_uses(stage)] == []


def test_every_name_of_a_face_is_there() -> None:
    for stage in FACED:
        package = importlib.import_module(f"deployments.{stage}")
        assert all(hasattr(package, name) for name in face(stage)), stage


def test_the_finder_finds_a_reach_past_a_face(tmp_path: Path) -> None:
    module = tmp_path / "route.py"
    module.write_text(
        "from deployments.encoding.writers import content_type\n"
        "from deployments.encoding import StreamEncoder, AudioPath\n"
        "from deployments.encoding.deployment import AudioEncoderDeployment\n"
        "def f():\n    import deployments.synthesis.runner\n"
        "from deployments.messages import EncodedChunk\n"
    )
    assert past_faces(module) == [
        "route.py:1 deployments.encoding.writers",
        "route.py:2 deployments.encoding.AudioPath",
        "route.py:5 deployments.synthesis.runner",
    ]
