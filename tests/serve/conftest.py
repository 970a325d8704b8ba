"""The real Serve application on 127.0.0.1, started once for the serve tier."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

KEY = "sk-proj-servetest01-abcdefghijklmnopqrstuvwxyz012345"


@dataclass(frozen=True)
class Service:
    url: str
    key: str
    database_url: str
    metrics_url: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ.setdefault("RAY_SERVE_THROUGHPUT_OPTIMIZED", "1")  # as make run serves
    import ray
    from ray import serve

    from serve_app.app import build_app

    database = Path(tmp_path_factory.mktemp("ledger")) / "ledger.sqlite3"
    metrics_port = free_port()
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _metrics_export_port=metrics_port,
        runtime_env={"env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}},
    )
    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    database_url = f"sqlite:///{database}"
    app = build_app({"ingress": {"database_url": database_url, "dev_api_key": KEY}})
    serve.run(app, name="speech", route_prefix="/")
    try:
        yield Service(
            f"http://127.0.0.1:{port}",
            KEY,
            database_url,
            f"http://127.0.0.1:{metrics_port}/metrics",
        )
    finally:
        serve.shutdown()
        ray.shutdown()


@pytest.fixture
def client(service: Service) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=60) as c:
        yield c
