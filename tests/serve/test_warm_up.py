"""Warm means warm: every ingress replica has served a request through the whole path
(catalog, ledger, normaliser, encoder, Synthesiser) before Serve routes a client to it."""

from __future__ import annotations

import httpx
import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve


@pytest.mark.parametrize("app", ["graph", "folded"])
def test_every_ingress_replica_answers_warm(service: Service, app: str) -> None:
    url = service.url if app == "graph" else service.folded_url
    with httpx.Client(timeout=30) as client:
        # HAProxy spreads new connections over the replicas: each is asked several times
        answers = [
            client.get(url + "/ready", headers={**service.auth, "Connection": "close"})
            for _ in range(8)
        ]
    warm = [answer.json()["replica"]["warm_up_s"] for answer in answers]
    assert all(seconds is not None and seconds > 0 for seconds in warm), warm
