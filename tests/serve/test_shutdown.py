"""Graceful shutdown: an application taken down while a stream is playing lets the
stream finish, and then answers no more."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest
import yaml
from ray import serve

from tests.serve.conftest import ROOT, Service

pytestmark = pytest.mark.serve

TEXT = " ".join(f"यह वाक्य संख्या {i} है, और यह भी।" for i in range(2))


def kokoro_only(root: Path) -> Path:
    voices = yaml.safe_load((ROOT / "configs" / "voices.yaml").read_text())["voices"]
    path = root / "voices.yaml"
    path.write_text(
        yaml.safe_dump({"voices": [v for v in voices if v["id"] == "default"]}, allow_unicode=True)
    )
    return path


def test_a_stream_in_progress_finishes_while_its_app_shuts_down(
    service: Service, tmp_path: Path
) -> None:
    from serve_app.app import from_config

    app = from_config(
        args={
            "ingress": {"database_url": service.database_url, "rate_limit_per_minute": 0},
            "synthesiser": {"voices_path": str(kokoro_only(tmp_path))},
            "ingress_replicas": 1,
            "placement": {"normaliser": "ingress", "encoder": "ingress", "synthesiser": "ingress"},
        }
    )
    serve.run(app, name="drain", route_prefix="/drain")
    url = service.url + "/drain/v1/audio/speech"
    events: list[str] = []
    deleting = threading.Thread(target=serve.delete, args=("drain",))
    with httpx.stream(
        "POST", url, headers=service.auth, json={"input": TEXT, "stream_format": "sse"}, timeout=60
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line.removeprefix("data: ")).get("type", "error"))
                if len(events) == 1:
                    deleting.start()  # the app goes down while its stream plays
    deleting.join(timeout=60)
    assert events[0] == "audio.delta" and events[-1] == "audio.done", events
    assert len(events) > 2
    after = httpx.post(url, headers=service.auth, json={"input": "नमस्ते"}, timeout=30)
    assert after.status_code == 404
