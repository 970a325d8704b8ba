"""The service on a Ray cluster of several nodes, as a user deploys it: one ledger behind
every node's proxy, one speech cache heard through every proxy, replicas that
autoscale under Locust and back, a rolling update
that loses no request, a node lost mid-stream, and a Synthesiser that scales to zero
when idle and starts again for the next request.

The tests share one cluster and run in this file's order; the node is lost next to
last, and the idle Synthesiser is measured last. Each prints what it measured
(docs/deploying.md).
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil
import pytest
import yaml

from serve_app.accounts import AccountStore
from serve_app.settings import CONFIGS
from tests.cluster.conftest import (
    AUDIO_PREFIX,
    Cluster,
    all_running,
    at_capacity,
    locust_failures,
    locust_totals,
    serve_state,
    sse,
    start_locust,
    wait_for_holds_settled,
)
from tests.conftest import decode
from tests.s3_server import BUCKET
from tests.waiting import HANG_S, wait_until

# A test's hang guard: several times the slowest seen beside make test-busy's neighbour.
pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

ESPEAK = "hi-espeak-aditi"  # spoken in the Ingress (configs/gpu.yaml's placement)
# Long enough to be speaking when the node is lost (each stream has seconds of it
# left once all have begun), short enough that the streams left finish soon after.
LONG_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह भी।" for i in range(8))
# What the lost node and the idle Synthesiser's tests send: synthesised, not heard from
# the speech cache (a text an earlier request had spoken would never reach a node).
# Locust's users ask for synthesis unless told --speech-cache.
SYNTHESISED = {"cache": False}


def wait_for(
    cluster: Cluster, condition: Callable[[], object], what: str, timeout_s: float = HANG_S
) -> float:
    """Seconds until ``condition()`` holds; past ``timeout_s`` (a hang's guard), fails
    the test with what the cluster's deployments were doing."""
    return wait_until(condition, what, timeout_s, interval_s=1, status=lambda: serve_state(cluster))


def test_every_node_runs_its_own_proxy_on_the_loopback(cluster: Cluster) -> None:
    status = cluster.local.serve_status()
    assert len(status["proxies"]) == 4, status["proxies"]
    for node in ("head", "cpu-1", "gpu-1", "gpu-2"):
        response = httpx.get(cluster.state.proxy_url(node) + "/health", timeout=30)
        assert response.status_code == 200, (node, response.text)


def test_every_server_of_the_cluster_listens_on_the_loopback(cluster: Cluster) -> None:
    """Every node's GCS, raylet, agents, workers and proxy: 127.0.0.1 only (the nodes
    are started by this process; PostgreSQL has a Unix socket and no TCP port)."""
    servers = []
    for process in psutil.Process().children(recursive=True):
        try:
            listening = [c for c in process.net_connections("inet") if c.status == "LISTEN"]
            name = process.name()
        except psutil.Error:
            continue
        servers += [(name, process.pid, c.laddr.ip, c.laddr.port) for c in listening]
    names = {name for name, _, _, _ in servers}
    assert {"gcs_server", "raylet", "ray::ProxyActor"} <= names, names
    raylets = {pid for name, pid, _, _ in servers if name == "raylet"}
    assert len(raylets) == 4  # four nodes, each its own
    exposed = [s for s in servers if s[2] not in ("127.0.0.1", "::ffff:127.0.0.1")]
    assert not exposed, f"listening beyond the loopback: {exposed}"


def new_project(cluster: Cluster, name: str) -> dict[str, str]:
    """A project of USD 5 in the cluster's ledger: its key's headers."""
    store = AccountStore.open(cluster.state.database_url)
    try:
        project = store.create_project(name, starting_balance=50_000_000)
        return {"Authorization": f"Bearer {store.create_key(project)}"}
    finally:
        store.close()


def test_requests_through_two_nodes_proxies_share_one_ledger(cluster: Cluster) -> None:
    """A project's requests through the head's proxy and through a worker's, on one
    PostgreSQL ledger: both proxies report the same exact balance."""
    auth = new_project(cluster, "two-proxies")
    costs = []
    for i in range(6):
        node = ("head", "cpu-1")[i % 2]
        stream = sse(cluster.state.proxy_url(node), auth, {"input": f"नमस्ते {i}।", "voice": ESPEAK})
        assert stream.ended == "done", (node, stream)
        costs.append(stream.cost)
    assert all(costs)
    seen = [
        httpx.get(
            cluster.state.proxy_url(node) + "/v1/account/usage", headers=auth, timeout=60
        ).json()
        for node in ("head", "cpu-1", "gpu-2")
    ]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0]["balance_deci_micros"] == 50_000_000 - sum(costs)
    assert seen[0]["usage"]["requests"] == 6
    assert seen[0]["usage"]["spent_deci_micros"] == sum(costs)


def stored(cluster: Cluster, job_id: str) -> list[str]:
    """The keys of ``job_id``'s audio in the cluster's S3-compatible store."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=cluster.s3_endpoint)
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=f"{AUDIO_PREFIX}/{job_id}/")
    return [item["Key"] for item in listed.get("Contents", [])]


def test_a_long_form_job_is_spoken_by_the_cluster_and_read_through_any_proxy(
    cluster: Cluster,
) -> None:
    """A job submitted through the head's proxy, its chunks claimed from the PostgreSQL
    ledger by the Ingress replicas' workers, their audio kept in the S3-compatible
    store, watched and fetched through the workers' proxies: done, its audio every
    chunk's, charged as one request of its chunks; deleted, its audio gone."""
    auth = new_project(cluster, "long-form")
    paragraphs = [
        " ".join(f"अनुच्छेद {p} का वाक्य {s} यहाँ धीरे से पढ़ा जा रहा है।" for s in range(16))
        for p in range(4)
    ]
    body = {"input": "\n\n".join(paragraphs), "voice": ESPEAK, "response_format": "wav"}
    head, cpu, gpu = (cluster.state.proxy_url(n) for n in ("head", "cpu-1", "gpu-2"))
    created = httpx.post(head + "/v1/speech/jobs", headers=auth, json=body, timeout=60)
    assert created.status_code == 202, created.text
    job = created.json()
    assert job["chunks"] >= 3

    def ended() -> bool:
        now = httpx.get(f"{cpu}/v1/speech/jobs/{job['id']}", headers=auth, timeout=30).json()
        return bool(now["state"] != "running")

    took = wait_for(cluster, ended, "the job done", 240)
    done = httpx.get(f"{gpu}/v1/speech/jobs/{job['id']}", headers=auth, timeout=30).json()
    assert done["state"] == "done" and done["chunks_done"] == job["chunks"], done
    audio = httpx.get(f"{gpu}/v1/speech/jobs/{job['id']}/audio", headers=auth, timeout=60)
    samples, rate = decode(audio.content)
    assert abs(samples.size / rate - done["audio_seconds"]) < 0.01
    usage = httpx.get(f"{head}/v1/account/usage", headers=auth, timeout=30).json()["usage"]
    assert usage["requests"] == 1 and usage["spent_deci_micros"] == done["cost_deci_micros"] > 0
    assert len(stored(cluster, job["id"])) > job["chunks"]  # each chunk's, and the whole
    deleted = httpx.delete(f"{head}/v1/speech/jobs/{job['id']}", headers=auth, timeout=30)
    assert deleted.json()["deleted"] and not stored(cluster, job["id"])
    print(
        f"long-form job: {done['characters']} characters, {done['audio_seconds']:.1f} s of "
        f"audio in {took:.1f} s on the cluster"
    )


def test_a_prompt_spoken_through_one_node_is_heard_from_the_cache_through_another(
    cluster: Cluster,
) -> None:
    """Spoken through the head's proxy, its sentences kept in the speech cache's shared
    tier (the S3-compatible store beside the long-form audio): through each worker's
    proxy a hit, without synthesis."""
    import boto3

    store = AccountStore.open(cluster.state.database_url)
    try:
        project = store.create_project("speech-cache", starting_balance=50_000_000)
        auth = {"Authorization": f"Bearer {store.create_key(project)}"}
    finally:
        store.close()
    body = {"input": "नमस्ते, हमें कॉल करने के लिए धन्यवाद। बिल के लिए एक दबाएँ।", "voice": ESPEAK}

    def speak(node: str) -> httpx.Response:
        url = cluster.state.proxy_url(node) + "/v1/audio/speech"
        response = httpx.post(url, headers=auth, json=body, timeout=120)
        assert response.status_code == 200, (node, response.text)
        return response

    first = speak("head")
    assert first.headers["x-service-cache"] == "miss"
    s3 = boto3.client("s3", endpoint_url=cluster.s3_endpoint)
    prefix = f"{AUDIO_PREFIX}/speech-cache/{project}/"

    def entries() -> int:
        return int(s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("KeyCount", 0))

    wait_for(cluster, lambda: entries() == 2, "both sentences in the shared store")
    for node in ("cpu-1", "gpu-2"):
        again = speak(node)
        assert again.headers["x-service-cache"] == "hit", node
        assert again.content == first.content


def test_replicas_scale_up_under_locust_and_back_down_after(
    cluster: Cluster, tmp_path: Path
) -> None:
    """The bundled Locust users until the Ingress and the Synthesiser have more replicas
    than they started with, then no load until both are back down."""
    local = cluster.local
    minimum = local.replicas()
    # the Synthesiser starts with two and may be down to one already (it scales to
    # zero after 15 s idle: the last test)
    assert minimum["Ingress"] == 1 and 1 <= minimum["Synthesiser"] <= 2, minimum
    # the load lasts as long as the wait for its scale-up may (it stops once seen)
    locust = start_locust(cluster, tmp_path / "load", users=6, seconds=300)
    peak: dict[str, int] = {}

    def scaled_up() -> bool:
        now = local.replicas()
        for name, count in now.items():
            peak[name] = max(peak.get(name, 0), count)
        return now["Ingress"] > minimum["Ingress"] and now["Synthesiser"] > 2

    try:
        up_s = wait_for(cluster, scaled_up, "Ingress and Synthesiser scaled up", 280)
    finally:
        locust.terminate()
        output, _ = locust.communicate(timeout=60)

    def back_down() -> bool:
        now = local.replicas()
        return now["Ingress"] == 1 and now["Synthesiser"] <= 2

    down_s = wait_for(cluster, back_down, "scaled back down")
    print(f"\nscale-up {up_s:.0f} s under 6 users (peak {peak}); back down {down_s:.0f} s after")
    requests, failures = locust_totals(tmp_path / "load")
    # Two cores can start fewer streams than six users ask for while new replicas load
    # their models: a request whose audio cannot begin within the first-audio wait is
    # answered 503 overloaded, to retry (the API's word for it, what a client is built
    # to handle); none fails in any other way, and most are served.
    other = {e: n for e, n in locust_failures(tmp_path / "load").items() if not at_capacity(e)}
    assert requests > 2 * failures and not other, output


def test_a_rolling_update_under_load_fails_no_request(cluster: Cluster, tmp_path: Path) -> None:
    """``serve deploy`` of a changed voice list while Locust runs: every request served."""
    voices = yaml.safe_load((CONFIGS / "voices.gpu.yaml").read_text(encoding="utf-8"))
    voices["voices"].append(
        {
            "id": "hi-espeak-rolling",
            "name": "Rolling (Hindi, eSpeak)",
            "engine": "espeak",
            "languages": ["hi"],
            "gender": "male",
            "sample_rate": 22050,
            "params": {"variant": "m3", "rate_wpm": 160, "pitch": 40},
        }
    )
    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump(voices, allow_unicode=True), encoding="utf-8")
    locust = start_locust(cluster, tmp_path / "load", users=3, seconds=600)
    try:
        time.sleep(3)  # requests in flight on the old replicas
        started = time.monotonic()
        cluster.local.deploy(voices_path=str(path))
        deployed_s = time.monotonic() - started
        listed = httpx.get(
            cluster.state.url + "/v1/voices", headers=cluster.auth, timeout=60
        ).json()
        assert "hi-espeak-rolling" in {v["id"] for v in listed["data"]}
        time.sleep(3)  # requests to the new replicas, too
    finally:
        locust.terminate()
        output, _ = locust.communicate(timeout=90)
    requests, failures = locust_totals(tmp_path / "load")
    print(f"\nrolling update RUNNING in {deployed_s:.0f} s under 3 users: {requests} requests")
    assert locust.returncode == 0, output  # --max-fail-ratio 0: one failure fails the run
    assert requests and not failures, output


def test_a_lost_synthesis_node_ends_its_streams_in_band_and_the_service_recovers(
    cluster: Cluster,
) -> None:
    """``ray stop`` of a synthesis node's processes while streams speak there: the streams
    on it end with the API's in-band error, any on the other node finish, new requests
    succeed (on a replica started on the other node, if none was there), every hold
    is settled. The Synthesiser has one replica or two by now (it scales down when
    idle), and Serve places them and the streams as it will: the node stopped is the
    one whose Synthesiser is busy when it is chosen, of the replicas that were running
    when the streams were sent (four streams scale it up: a replica that starts
    meanwhile is busy loading its model and warming up, and holds no stream; taking
    its node once left every stream speaking, ['done'] * 4)."""
    url = cluster.state.url
    # a replica running (a request wakes one from zero) and none starting or stopping
    assert sse(url, cluster.auth, {"input": "नमस्ते।", **SYNTHESISED}, timeout=120).ended == "done"
    wait_for(cluster, lambda: all_running(cluster, "Synthesiser"), "the Synthesisers all running")
    serving = set(cluster.local.replica_states("Synthesiser"))
    firsts = [threading.Event() for _ in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        streams = [
            pool.submit(sse, url, cluster.auth, {"input": LONG_HI, **SYNTHESISED}, 300, first)
            for first in firsts
        ]

        def speaking() -> bool:
            silent = [
                f.result()
                for f, first in zip(streams, firsts, strict=True)
                if f.done() and not first.is_set()
            ]
            assert not silent, f"a stream ended before its first audio: {silent}"
            return all(first.is_set() for first in firsts)

        # The streams scale the Ingress and the Synthesiser up: on two busy cores the
        # new replicas' start (a model loaded and warmed up) takes the CPU the
        # streams' first audio needs, so the audio may wait for their start.
        wait_for(cluster, speaking, "every stream speaking before the node is lost", 300)
        # the node whose Synthesiser is speaking now: Serve may have put every stream
        # on one replica, or some may have ended, so the first node found may hold none
        busy = cluster.local.busy_nodes_of("Synthesiser", among=serving)
        assert {"gpu-1", "gpu-2"} & set(busy), busy  # on the synthesis nodes only
        assert set(busy) <= {"gpu-1", "gpu-2"}, busy
        lost = next(iter(busy))
        assert busy[lost] > 0.05, f"no Synthesiser is speaking: {busy}"
        cluster.local.stop_node(lost)
        stopped = time.monotonic()

        def speaks() -> bool:
            body = {"input": "नमस्ते।", **SYNTHESISED}
            return sse(url, cluster.auth, body, timeout=60).ended == "done"

        # New requests while the streams on the other node still speak.
        wait_for(cluster, speaks, "a request served after the node was lost")
        recovered_s = time.monotonic() - stopped
        ended = [s.result(timeout=HANG_S * 3) for s in streams]
    outcomes = sorted(s.ended for s in ended)
    # The API's in-band error for the streams whose Synthesiser was
    # on the lost node; the rest finish.
    assert all(o in ("done", "not_ready", "internal_error") for o in outcomes), ended
    # The router spreads concurrent streams over the replicas: some were on the node.
    assert any(o != "done" for o in outcomes), outcomes
    wait_for_holds_settled(cluster)
    print(f"\nnode lost: streams {outcomes}; a new request served {recovered_s:.1f} s after")


def test_an_idle_synthesiser_scales_to_zero_and_the_next_request_starts_it(
    cluster: Cluster,
) -> None:
    """After the last request the Synthesiser goes to zero replicas (15 s idle in the
    local cluster's config) and its GPU is free in ``ray status``; /ready says its
    voices are scaled to zero without waking it; the next request starts a replica
    and gets its audio."""
    local, url = cluster.local, cluster.state.url
    assert sse(url, cluster.auth, {"input": "नमस्ते।", **SYNTHESISED}).ended == "done"
    last = time.monotonic()
    in_use, _ = local.gpus()
    assert in_use > 0
    wait_for(cluster, lambda: local.replicas()["Synthesiser"] == 0, "Synthesiser at zero", 180)
    zero_s = time.monotonic() - last
    # the replica's actor exits, then the autoscaler's report (ray status) follows
    released_s = wait_for(cluster, lambda: local.gpus()[0] == 0, "its GPU free in ray status")
    in_use_at_zero, total = local.gpus()
    ready = httpx.get(url + "/ready", headers=cluster.auth, timeout=30)
    assert ready.status_code == 200
    states = {engine["name"]: engine["state"] for engine in ready.json()["engines"]}
    assert states["kokoro"] == "scaled_to_zero" and states["espeak"] == "running", states
    assert "default" in ready.json()["voices"]
    voices = httpx.get(url + "/v1/voices", headers=cluster.auth, timeout=30)
    assert "default" in {v["id"] for v in voices.json()["data"]}
    time.sleep(3)
    assert local.replicas()["Synthesiser"] == 0  # asking woke nothing

    first = threading.Event()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        body = {"input": "नमस्ते, आप कैसे हैं?", **SYNTHESISED}
        cold = pool.submit(sse, url, cluster.auth, body, 180, first)
        assert first.wait(120), "the request after scale to zero gets its audio"
        cold_s = time.monotonic() - started
        assert cold.result(timeout=120).ended == "done"
    assert local.replicas()["Synthesiser"] >= 1
    print(
        f"\nscale to zero: {zero_s:.0f} s after the last request; GPUs in use {in_use:g} -> "
        f"{in_use_at_zero:g} of {total:g} {released_s:.0f} s after that; cold first audio "
        f"{cold_s:.1f} s"
    )
