"""The repository speaks of itself alone: every document and module it names is one it
holds, no path climbs out of it, and the README's links land on pages the docs site has."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# A Markdown document named anywhere (`docs/api/http.md`, "see GUIDE.md"), and a
# relative path that climbs (`../x/y.md`, `../../z`).
NAMED_DOCUMENT = re.compile(r"[\w./-]*?([\w-]+\.md)\b")
CLIMBING = re.compile(r"(?<![\w.])((?:\.\./)+[\w.-]+(?:/[\w.-]+)*)")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def tracked_text_files() -> dict[Path, str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    texts = {}
    for name in filter(None, listed):
        path = ROOT / name.decode()
        try:
            texts[path] = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
    return texts


def outside_references(path: Path, text: str, documents: set[str]) -> list[str]:
    """What ``text`` (the file ``path``) names that the repository does not hold:
    Markdown documents by name, and relative paths that lead out of it."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for name in NAMED_DOCUMENT.findall(line):
            if name not in documents:
                found.append(f"{path.relative_to(ROOT)}:{number}: {name}")
        for climb in CLIMBING.findall(line):
            if not (path.parent / climb).resolve().is_relative_to(ROOT):
                found.append(f"{path.relative_to(ROOT)}:{number}: {climb}")
    return found


def test_nothing_points_outside_the_repository() -> None:
    texts = tracked_text_files()
    texts.pop(Path(__file__), None)  # its own examples name documents that do not exist
    documents = {path.name for path in texts if path.suffix == ".md"}
    found = [
        ref for path, text in texts.items() for ref in outside_references(path, text, documents)
    ]
    assert found == []


def test_the_check_finds_an_outside_reference() -> None:
    here = ROOT / "docs" / "index.md"
    documents = {"index.md", "http.md"}
    assert outside_references(here, "see NOWHERE.md for the fields", documents)
    assert outside_references(here, "as ../../elsewhere/notes.md decides", documents)
    assert not outside_references(here, "[HTTP](api/http.md), [x](../docs/index.md)", documents)


# A module named by its path from the repository's root (`serve_app/speech/service.py`,
# `tests/unit/test_docs.py`): the folders the project's code lives in.
NAMED_MODULE = re.compile(r"(?<![\w./-])((?:serve_app|deployments|loadtest|tests)/[\w/]+\.py)\b")


def missing_modules(texts: dict[Path, str]) -> list[str]:
    """The modules ``texts`` name by their path that the repository does not hold: a
    file moved or gone and the text that names it left behind."""
    return sorted(
        f"{path.relative_to(ROOT)}: {named}"
        for path, text in texts.items()
        for named in set(NAMED_MODULE.findall(text))
        if not (ROOT / named).is_file()
    )


def test_every_module_named_by_its_path_exists() -> None:
    texts = tracked_text_files()
    texts.pop(Path(__file__), None)  # its own examples
    assert missing_modules(texts) == []
    example = {ROOT / "docs" / "x.md": "see `serve_app/speech/gone.py` and serve_app/app.py"}
    assert missing_modules(example) == ["docs/x.md: serve_app/speech/gone.py"]


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
