"""What the stream-input session tests share: the app in process and its routes."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from serve_app.ingress.api import create_app
from tests.unit.serve_app.conftest import DEV_KEY, make_state

URL = "/v1/audio/speech/stream-input/default"
MULTI = "/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/multi-stream-input"
XI = {"xi-api-key": DEV_KEY}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(make_state(tmp_path)))


def usage(client: TestClient) -> dict[str, int]:
    response = client.get("/v1/account/usage", headers={"Authorization": f"Bearer {DEV_KEY}"})
    result: dict[str, int] = response.json()["usage"]
    return result
