"""Long-form jobs on the real Serve application: spoken by both ingress replicas'
workers through the Synthesiser deployment, and finished whole when that deployment's
replica is killed mid-job, each chunk charged once."""

from __future__ import annotations

import contextlib
import sqlite3
import time

import httpx
import pytest

from tests.conftest import decode
from tests.serve.conftest import Service
from tests.serve.test_faults import sigkill, speaks_again

pytestmark = pytest.mark.serve

# English for the Piper voice (spoken by the Synthesiser deployment, fast on a CPU):
# about 2,700 characters, three chunks.
TEXT = "\n\n".join(
    " ".join(
        f"Paragraph {p}, sentence {s}: the river rose slowly through the long night."
        for s in range(6)
    )
    for p in range(6)
)


def charges(service: Service, job_id: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(service.ledger, timeout=10)) as db:
        rows = db.execute(
            "SELECT request_id FROM ledger WHERE kind = 'charge' AND request_id LIKE ?",
            (f"{job_id}/%",),
        )
        return sorted(row[0] for row in rows)


def test_a_job_finishes_whole_when_its_synthesiser_is_killed_mid_job(service: Service) -> None:
    speaks_again(service)  # whatever the test before did
    with httpx.Client(base_url=service.url, headers=service.auth, timeout=60) as api:
        body = {"input": TEXT, "voice": "en-us-joe", "response_format": "wav"}
        created = api.post("/v1/speech/jobs", json=body)
        assert created.status_code == 202, created.text
        job = created.json()
        assert job["chunks"] == 3
        deadline = time.monotonic() + 60
        while True:  # kill the Synthesiser while a chunk is being spoken
            now = api.get(f"/v1/speech/jobs/{job['id']}").json()
            if now["chapters"][0]["state"] == "running":
                break
            assert time.monotonic() < deadline, now
            time.sleep(0.1)
        sigkill("Synthesiser")
        deadline = time.monotonic() + 240
        while (now := api.get(f"/v1/speech/jobs/{job['id']}").json())["state"] == "running":
            assert time.monotonic() < deadline, now
            time.sleep(1)
        assert now["state"] == "done", now
        assert now["chunks_done"] == 3 and now["characters_done"] == now["characters"]
        assert charges(service, job["id"]) == [f"{job['id']}/{i}" for i in range(3)]
        audio = api.get(f"/v1/speech/jobs/{job['id']}/audio")
        assert audio.status_code == 200
        samples, rate = decode(audio.content)
        assert rate == 22050 and abs(samples.size / rate - now["audio_seconds"]) < 0.01
        assert now["audio_seconds"] > 60  # every chunk's speech, none cut short
        assert api.delete(f"/v1/speech/jobs/{job['id']}").json()["deleted"]
    speaks_again(service)
