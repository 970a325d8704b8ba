"""The repository speaks of itself alone: nothing in it points at a file it does not
hold, and the README's links land on pages the docs site has."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# Documents that live beside a checkout, never in it: a reader of the repository
# has none of them.
OUTSIDE = re.compile(
    r"\.\./shared\b|\bshared/(SPEC|API|ARCHITECTURE|STYLE)\.md"
    r"|\b(SPEC|ARCHITECTURE|STYLE)\.md\b|(?<![\w/.-])API\.md\b"
)
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    paths = [ROOT / name.decode() for name in listed if name]
    return [p for p in paths if p.is_file() and p.suffix not in {".onnx", ".wav", ".bin"}]


def test_nothing_points_outside_the_repository() -> None:
    found = []
    for path in tracked_text_files():
        if path == Path(__file__):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_check_finds_an_outside_reference() -> None:
    assert OUTSIDE.search("see ../shared/SPEC.md for the fields")
    assert OUTSIDE.search("as API.md decides")
    assert not OUTSIDE.search("docs/api/http.md and docs/api/errors.md")


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target, _ in LINK.findall(path.read_text())
        if not re.match(r"[a-z]+:", target)  # http:, https:, mailto:
    ]


def test_the_readme_links_to_files_that_exist() -> None:
    links = relative_links(ROOT / "README.md")
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []


def test_every_docs_page_is_in_the_nav() -> None:
    """mkdocs --strict says so too; here it fails in the unit tier, before a build."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)

    def pages(nav: object) -> set[str]:
        if isinstance(nav, str):
            return {nav}
        if isinstance(nav, list):
            return set().union(*(pages(item) for item in nav))
        if isinstance(nav, dict):
            return set().union(*(pages(item) for item in nav.values()))
        return set()

    docs = ROOT / "docs"
    written = {str(p.relative_to(docs)) for p in docs.rglob("*.md")}
    assert written == pages(config["nav"])
