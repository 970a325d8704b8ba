"""The real Serve application on 127.0.0.1, started once for the serve tier."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.service_logs import LOGS_DIR, default_logs_dir
from tests.waiting import HANG_S, wait_until

KEY = "sk-proj-servetest01-abcdefghijklmnopqrstuvwxyz012345"
FOLDED_MAX_ACTIVE = 2
PROXY_HEADER_TIMEOUT_S = 3
PROXY_CONNECTIONS_PER_ADDRESS = 400
WS_AUTH_TIMEOUT_S = 2.0
SEND_TIMEOUT_S = 5.0
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Service:
    url: str
    key: str
    database_url: str
    metrics_url: str
    # The same service with every stage folded into the ingress replica (the placement
    # option for CPU-only eSpeak serving: eSpeak voices only) and room for only
    # FOLDED_MAX_ACTIVE requests at once.
    folded_url: str
    longform_path: str  # the long-form jobs' audio store (the speech cache's shared tier)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def ledger(self) -> str:
        """The SQLite ledger's path."""
        return self.database_url.removeprefix("sqlite:///")


def voices_with_vits(root: Path) -> Path:
    """The shipped voices plus a VITS voice on a tiny random checkpoint (if the vits
    extra is installed), so the whole graph serves a locally saved checkpoint."""
    document = yaml.safe_load((ROOT / "configs" / "voices.yaml").read_text())
    try:
        from deployments.synthesis.engines.vits.engine import build_random_checkpoint
    except ImportError:
        pass
    else:
        checkpoint = build_random_checkpoint(root / "tiny-hi-vits")
        document["voices"].append(
            {
                "id": "hi-vits-test",
                "name": "Hindi VITS (random weights)",
                "engine": "vits",
                "languages": ["hi"],
                "gender": "female",
                "sample_rate": 16000,
                "public": False,
                "params": {"model": str(checkpoint)},
            }
        )
    path = root / "voices.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


def espeak_voices(full: Path) -> Path:
    """The eSpeak voices of ``full``, ``hi-espeak-aditi`` also as ``default``: what a
    CPU-only eSpeak service registers."""
    document = yaml.safe_load(full.read_text())
    espeak = [v for v in document["voices"] if v["engine"] == "espeak"]
    aditi = next(v for v in espeak if v["id"] == "hi-espeak-aditi")
    document["voices"] = [{**aditi, "id": "default", "name": "Aditi (default)"}, *espeak]
    path = full.with_name("voices.espeak.yaml")
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


@pytest.fixture(scope="session")
def service(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[Service]:
    from serve_app.http.sockets import free_port
    from serve_app.ingress.haproxy import ProxyLimits, stop_haproxy, use_haproxy
    from serve_app.run import add_dev_key, local_serve_environment, start_ray
    from serve_app.settings import IngressConfig

    local_serve_environment()  # as make run serves; before Ray is imported
    # a failed test's report shows them (the session's own once Ray has started)
    pytestconfig.stash[LOGS_DIR] = default_logs_dir()
    # As make run serves, but a slow request's headers are cut off sooner (the test
    # waits for it), and fewer connections from one address are let in (the test
    # opens them all; the load test and 300 idle sockets stay below).
    haproxy = use_haproxy(
        ProxyLimits(
            header_timeout_s=PROXY_HEADER_TIMEOUT_S,
            max_connections_per_address=PROXY_CONNECTIONS_PER_ADDRESS,
        )
    )
    import ray
    from ray import serve
    from ray.serve.api import RunTarget

    from serve_app.app import from_config

    database = Path(tmp_path_factory.mktemp("ledger")) / "ledger.sqlite3"
    database_url = f"sqlite:///{database}"
    # As make run does: the key goes into the ledger here, never through Ray.
    add_dev_key(IngressConfig(database_url=database_url), KEY)
    # The VITS checkpoint is built (torch, transformers) while Ray starts.
    with ThreadPoolExecutor(1) as builder:
        voices_built = builder.submit(voices_with_vits, tmp_path_factory.mktemp("voices"))
        metrics_port = free_port()
        session = start_ray(2, metrics_port, log_to_driver=False)
        pytestconfig.stash[LOGS_DIR] = session / "logs"
        port = free_port()
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        voices = voices_built.result()
    # One key drives the whole tier, the load test included: a rate far above it, and a
    # budget of unproductive synthesis its fault and hang-up tests never reach.
    # A short hold lease: the fault tests wait for a killed ingress's holds to settle.
    longform = tmp_path_factory.mktemp("longform")
    ingress = {
        "database_url": database_url,
        "rate_limit_per_minute": 1_000_000,
        "unproductive_seconds_per_minute": 1_000_000,
        "hold_lease_s": 3.0,
        "ws_auth_timeout_s": WS_AUTH_TIMEOUT_S,
        "send_timeout_s": SEND_TIMEOUT_S,  # a reader that reads nothing is let go sooner
        "longform_audio_path": str(longform),
        # the docs' webhook sample names a host this machine may not resolve: taken
        # as given, not looked up (its tries fail later, in the background)
        "webhook_private_addresses": True,
    }
    synthesiser = {"voices_path": str(voices), "batch_wait_timeout_s": 0.02}
    # As make run serves on two cores (configs/local.yaml): the four-deployment graph
    # with eSpeak voices in the ingress, two ingress replicas that share one ledger.
    app = from_config(args={"ingress": ingress, "synthesiser": synthesiser, "ingress_replicas": 2})
    # The folded app as it is meant to serve (CPU-only eSpeak): its one process loads
    # no neural engine, and the tier's start does not pay for a second Kokoro.
    folded = from_config(
        args={
            # its eSpeak voices cannot speak the other app's jobs (one ledger for both)
            "ingress": {
                **ingress,
                "max_active_requests": FOLDED_MAX_ACTIVE,
                "longform_chunks_at_once": 0,
            },
            "synthesiser": {**synthesiser, "voices_path": str(espeak_voices(voices))},
            "ingress_replicas": 1,
            "placement": {"normaliser": "ingress", "encoder": "ingress", "synthesiser": "ingress"},
        }
    )
    # Both deployed at once: their replicas start side by side.
    serve.run_many(
        [
            RunTarget(app, name="speech", route_prefix="/"),
            RunTarget(folded, name="speech-folded", route_prefix="/folded"),
        ]
    )
    try:
        yield Service(
            f"http://127.0.0.1:{port}",
            KEY,
            database_url,
            f"http://127.0.0.1:{metrics_port}/metrics",
            f"http://127.0.0.1:{port}/folded",
            str(longform),
        )
    finally:
        # No graceful drain at the end of the tier (serve.shutdown waits seconds for
        # each replica): the local cluster goes down with its driver.
        ray.shutdown()
        if haproxy is not None:
            stop_haproxy(haproxy)


@pytest.fixture
def client(service: Service) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=60) as c:
        yield c


def speak_together(
    base_url: str, auth: dict[str, str], bodies: list[dict[str, object]]
) -> list[httpx.Response]:
    """POST /v1/audio/speech with every body at once (so a batching engine can batch them)."""

    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
            return await asyncio.gather(
                *(client.post("/v1/audio/speech", headers=auth, json=body) for body in bodies)
            )

    return asyncio.run(run())


def usage(base_url: str, auth: dict[str, str]) -> dict[str, int]:
    """The caller's project usage (GET /v1/account/usage)."""
    response = httpx.get(base_url + "/v1/account/usage", headers=auth, timeout=60)
    result: dict[str, int] = response.json()["usage"]
    return result


def usage_after(base_url: str, auth: dict[str, str], requests: int) -> dict[str, int]:
    """Usage once ``requests`` requests are settled: a stream is settled when the
    ingress sees its end, a moment after the client has gone."""
    seen: list[dict[str, int]] = [{}]

    def settled() -> bool:
        seen[0] = usage(base_url, auth)
        return seen[0]["requests"] >= requests

    wait_until(settled, f"{requests} requests settled", interval_s=0.1, status=lambda: seen[0])
    return seen[0]


def kokoro_stats(service: Service) -> dict[str, Any]:
    """Kokoro's stats in /ready (its calls, whether a call waits or runs now)."""
    ready = httpx.get(service.url + "/ready", headers=service.auth, timeout=60).json()
    stats: dict[str, Any] = next(e for e in ready["engines"] if e["name"] == "kokoro")["stats"]
    return stats


def kokoro_calls(service: Service) -> int:
    return int(kokoro_stats(service)["model_calls"])


def settled_calls(service: Service, timeout_s: float = HANG_S) -> int:
    """Kokoro's call count once nothing is being synthesised: no call waiting or
    running, seen twice a poll apart with no call made between (a stream asks for its
    next segment as its last one ends: one idle look may fall between the two)."""
    seen: list[dict[str, Any]] = [kokoro_stats(service)]

    def idle() -> bool:
        before, seen[0] = seen[0], kokoro_stats(service)
        unchanged = before["model_calls"] == seen[0]["model_calls"]
        return unchanged and not before["busy"] and not seen[0]["busy"]

    wait_until(idle, "Kokoro idle", timeout_s, interval_s=0.5, status=lambda: seen[0])
    return int(seen[0]["model_calls"])
