"""Every request sample in the docs, run against the serve tier's service: a sample
that stops working fails here, not in a reader's terminal.

A request sample is a shell block that calls the service (`curl` and `$URL`) or a
Python block that names the service's address (`127.0.0.1:8000`). A page's samples
run in order in one folder of their own, as a reader follows the page:

- shell: bash with `set -euo pipefail`, `$URL` and `$KEY` set, and `curl` told to
  fail on an HTTP error (`--fail-with-body`); a variable a block assigns
  (`ID=$(...)`) is there for the page's later blocks. A block's own `KEY=`/`URL=`
  lines (what a reader types once) are left out.
- Python: the service's address and the key placeholder `sk-proj-...` replaced by
  the tier's; `https://tts.example.com` (a deployment behind TLS) by a TLS
  terminator in front of the service, its certificate trusted.

Files a sample reads as the reader's own are made first: `me.wav`, a recording of
a voice (the service's own male Hindi voice).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ADDRESS = "127.0.0.1:8000"
KEY_PLACEHOLDER = "sk-proj-..."
TLS_PLACEHOLDER = "https://tts.example.com"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)
ASSIGNED = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=", re.M)
READER_SETS = re.compile(r"^\s*(?:export\s+)?(?:KEY|URL)=.*$", re.M)
SAMPLE_TIMEOUT_S = 240


@dataclass(frozen=True)
class Sample:
    page: str
    line: int
    language: str  # "sh" or "python"
    code: str


def samples_of(path: Path) -> list[Sample]:
    """The request samples of one page, in order."""
    text = path.read_text()
    found = []
    for match in FENCE.finditer(text):
        language, code = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        page = str(path.relative_to(DOCS))
        if language in ("sh", "bash") and "curl " in code and "$URL" in code:
            found.append(Sample(page, line, "sh", code))
        elif language == "python" and (ADDRESS in code or TLS_PLACEHOLDER in code):
            found.append(Sample(page, line, "python", code))
    return found


PAGES = {
    str(path.relative_to(DOCS)): found
    for path in sorted(DOCS.rglob("*.md"))
    if (found := samples_of(path))
}


def test_the_docs_have_request_samples_to_run() -> None:
    """The collector finds the samples (a changed fence style would silently find none)."""
    counts = {page: len(found) for page, found in PAGES.items()}
    assert counts.get("getting-started.md", 0) >= 1
    assert counts.get("api/websocket.md", 0) >= 1
    assert counts.get("compat/recipes.md", 0) >= 2
    assert sum(counts.values()) >= 20, counts


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_request_sample_runs(
    page: str, service: Service, tmp_path: Path, tls_url: str
) -> None:
    env = {**os.environ, "URL": service.url, "KEY": service.key}
    for sample in PAGES[page]:
        if "me.wav" in sample.code and not (tmp_path / "me.wav").exists():
            (tmp_path / "me.wav").write_bytes(recording(service))
        if sample.language == "sh":
            command = ["bash", "-c", shell_script(sample.code)]
        else:
            tls = tls_url if TLS_PLACEHOLDER in sample.code else None
            code = python_script(sample.code, service, tls)
            (tmp_path / "sample.py").write_text(code)
            command = [sys.executable, "sample.py"]
        done = subprocess.run(
            command,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=SAMPLE_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"docs/{sample.page}, the sample at line {sample.line} failed "
            f"({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )


def shell_script(code: str) -> str:
    """``code`` as bash runs it here: strict, curl failing on HTTP errors, the page's
    earlier variables read and its own kept for the next block."""
    own = sorted(set(ASSIGNED.findall(code)) - {"KEY", "URL"})
    keep = f"declare -p {' '.join(own)} >> .vars\n" if own else ""
    return (
        "set -euo pipefail\n"
        'curl() { command curl --fail-with-body "$@"; }\n'
        "if [ -f .vars ]; then source .vars; fi\n" + READER_SETS.sub("", code) + "\n" + keep
    )


def python_script(code: str, service: Service, tls_url: str | None) -> str:
    ws = service.url.replace("http://", "ws://")
    code = code.replace(f"http://{ADDRESS}", service.url).replace(f"ws://{ADDRESS}", ws)
    code = code.replace(f'"{KEY_PLACEHOLDER}"', repr(service.key))
    if tls_url is not None:
        code = code.replace(TLS_PLACEHOLDER, tls_url)
    return code


def recording(service: Service) -> bytes:
    """A few seconds of a man's voice as WAV: the reader's own recording in the samples."""
    response = httpx.post(
        f"{service.url}/v1/audio/speech",
        headers=service.auth,
        json={
            "input": "नमस्ते, मेरा नाम अर्जुन है। मैं आज आपसे बात करके बहुत ख़ुश हूँ।",
            "voice": "hi-male-omega",
            "response_format": "wav",
            "stream": False,
        },
        timeout=120,
    )
    response.raise_for_status()
    return response.content


@pytest.fixture(scope="module")
def tls_url(service: Service, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service behind TLS (a self-signed certificate that the samples' processes
    trust through SSL_CERT_FILE), for the samples written for a deployment behind TLS."""
    from tests.serve.test_clients import self_signed_certificate, tls_terminator

    folder = tmp_path_factory.mktemp("tls")
    cert = self_signed_certificate(folder)
    port = urlsplit(service.url).port
    assert port is not None
    with contextlib.ExitStack() as stack:
        tls_port = stack.enter_context(tls_terminator(cert, folder / "key.pem", port))
        previous = os.environ.get("SSL_CERT_FILE")
        os.environ["SSL_CERT_FILE"] = str(cert)
        try:
            yield f"https://127.0.0.1:{tls_port}"
        finally:
            if previous is None:
                os.environ.pop("SSL_CERT_FILE", None)
            else:
                os.environ["SSL_CERT_FILE"] = previous
