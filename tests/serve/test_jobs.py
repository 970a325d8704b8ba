"""Long-form jobs on the real Serve application: spoken by both ingress replicas'
workers through the Synthesiser deployment, and finished whole when that deployment's
replica is killed mid-job, or the whole service is killed and started again, each
chunk charged once."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from ray import serve

from loadtest.texts import long_hindi
from tests.conftest import decode
from tests.serve.conftest import ROOT, Service, espeak_voices
from tests.serve.test_faults import sigkill, speaks_again
from tests.waiting import HANG_S, wait_until

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


class Watch:
    """A job's state, read through the API until it shows what a test waits for."""

    def __init__(self, api: httpx.Client, job_id: str, interval_s: float = 0.1) -> None:
        self.api, self.job_id, self.interval_s = api, job_id, interval_s
        self.now: dict[str, Any] = {}

    def until(
        self, shows: Callable[[dict[str, Any]], bool], what: str, timeout_s: float = HANG_S
    ) -> dict[str, Any]:
        """The job's state once ``shows`` it (fails the test past ``timeout_s``, with it)."""

        def read() -> bool:
            self.now = self.api.get(f"/v1/speech/jobs/{self.job_id}").json()
            return shows(self.now)

        wait_until(read, what, timeout_s, self.interval_s, status=lambda: self.now)
        return self.now


def charges(service: Service, job_id: str) -> list[str]:
    return charges_in(service.ledger, job_id)


def charges_in(ledger: Path | str, job_id: str) -> list[str]:
    """The request ids of ``job_id``'s charges in the SQLite ledger at path ``ledger``."""
    with contextlib.closing(sqlite3.connect(ledger, timeout=10)) as db:
        rows = db.execute(
            "SELECT request_id FROM ledger WHERE kind = 'charge' AND request_id LIKE ?",
            (f"{job_id}/%",),
        )
        return sorted(row[0] for row in rows)


# Long-form work runs at the idle priority: beside a busy neighbour this test took
# 221-300 s (quiet: ~40 s), so pytest's 300 s hang guard is widened for it.
@pytest.mark.timeout(900)
def test_a_job_finishes_whole_when_its_synthesiser_is_killed_mid_job(service: Service) -> None:
    speaks_again(service)  # whatever the test before did
    with httpx.Client(base_url=service.url, headers=service.auth, timeout=60) as api:
        body = {"input": TEXT, "voice": "en-us-joe", "response_format": "wav"}
        created = api.post("/v1/speech/jobs", json=body)
        assert created.status_code == 202, created.text
        job = created.json()
        assert job["chunks"] == 3
        watch = Watch(api, job["id"])
        # kill the Synthesiser while a chunk is being spoken
        watch.until(lambda now: now["chapters"][0]["state"] == "running", "a chunk spoken")
        sigkill("Synthesiser")
        now = watch.until(lambda now: now["state"] != "running", "the job ended", 600)
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


def test_a_job_cancelled_mid_way_is_billed_the_chunks_made_and_no_more(
    service: Service,
) -> None:
    """DELETE while both replicas' workers speak a book: the answer is the job's last
    state, nothing held, and its charges are the chunks made by then: the chunks being
    spoken at that moment end uncharged."""
    with httpx.Client(base_url=service.url, headers=service.auth, timeout=60) as api:
        body = {"input": long_hindi(20_000), "voice": "hi-espeak-aditi", "response_format": "mp3"}
        created = api.post("/v1/speech/jobs", json=body)
        assert created.status_code == 202, created.text
        job = created.json()
        now = Watch(api, job["id"], interval_s=0.05).until(
            lambda now: now["state"] != "running" or now["chunks_done"] >= 2, "two chunks made"
        )
        assert now["state"] == "running", now
        last = api.delete(f"/v1/speech/jobs/{job['id']}").json()
        assert last["deleted"] and last["state"] == "cancelled", last
        assert 2 <= last["chunks_done"] < last["chunks"] and last["held_deci_micros"] == 0
        time.sleep(3)  # the chunks being spoken when it was cancelled end meanwhile
        assert api.get(f"/v1/speech/jobs/{job['id']}").status_code == 404
    with contextlib.closing(sqlite3.connect(service.ledger, timeout=10)) as db:
        count, amount = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(amount), 0) FROM ledger"
            " WHERE kind = 'charge' AND request_id LIKE ?",
            (f"{job['id']}/%",),
        ).fetchone()
    assert (count, amount) == (last["chunks_done"], last["cost_deci_micros"])


def sigkill_app(name: str) -> None:
    """SIGKILL every replica process of app ``name``."""
    killed = [
        process.kill()
        for process in psutil.Process().children(recursive=True)
        if " ".join(process.cmdline()).startswith(f"ray::ServeReplica:{name}:")
    ]
    assert killed, f"no process of {name}"


def test_a_job_resumes_from_its_made_chunks_when_the_service_is_killed_and_restarted(
    service: Service, tmp_path: Path
) -> None:
    """A service of its own (its own ledger and audio folder, eSpeak in one process)
    killed mid-job and started again: the job finishes from the chunks already made
    (their files untouched), each chunk charged once, the audio whole."""
    from serve_app.app import from_config
    from serve_app.run import add_dev_key
    from serve_app.settings import IngressConfig

    ledger = tmp_path / "ledger.sqlite3"
    voices = tmp_path / "voices.yaml"
    voices.write_text((ROOT / "configs" / "voices.yaml").read_text())
    add_dev_key(IngressConfig(database_url=f"sqlite:///{ledger}"), service.key)
    args = {
        "ingress": {
            "database_url": f"sqlite:///{ledger}",
            "longform_audio_path": str(tmp_path / "audio"),
            "longform_chunks_at_once": 1,
            "hold_lease_s": 3.0,  # a killed process's claims are free 3 s on
            "rate_limit_per_minute": 0,
        },
        "synthesiser": {"voices_path": str(espeak_voices(voices))},
        "ingress_replicas": 1,
        "placement": {"normaliser": "ingress", "encoder": "ingress", "synthesiser": "ingress"},
    }
    api = httpx.Client(base_url=f"{service.url}/restart", headers=service.auth, timeout=60)
    with api:
        serve.run(from_config(args=args), name="restart", route_prefix="/restart")
        body = {"input": long_hindi(20_000), "text_type": "markdown", "voice": "hi-espeak-aditi"}
        created = api.post("/v1/speech/jobs", json={**body, "response_format": "wav"})
        assert created.status_code == 202, created.text
        job = created.json()
        watch = Watch(api, job["id"])
        watch.until(lambda now: now["chunks_done"] >= 2, "two chunks made")
        sigkill_app("restart")
        serve.delete("restart")
        made = {
            p.name: p.stat().st_mtime_ns for p in (tmp_path / "audio").rglob("*") if p.is_file()
        }
        assert 2 <= len(charges_in(ledger, job["id"])) < job["chunks"]

        serve.run(from_config(args=args), name="restart", route_prefix="/restart")
        now = watch.until(lambda now: now["state"] != "running", "the job ended", 600)
        assert now["state"] == "done", now
        assert charges_in(ledger, job["id"]) == sorted(
            f"{job['id']}/{i}" for i in range(job["chunks"])
        )
        kept = {
            p.name: p.stat().st_mtime_ns for p in (tmp_path / "audio").rglob("*") if p.is_file()
        }
        assert {name: kept.get(name) for name in made} == made
        samples, rate = decode(api.get(f"/v1/speech/jobs/{job['id']}/audio").content)
        # each chunk's length is kept in whole milliseconds
        assert abs(samples.size / rate - now["audio_seconds"]) <= 0.001 * job["chunks"]
    serve.delete("restart")
