"""Jobs' webhooks sent over real sockets to a receiver on 127.0.0.1: signed so that the
OpenAI SDK's verifier (Standard Webhooks) accepts them, tried again until the receiver
answers 2xx, and URLs the service will not call refused when the job is submitted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import openai
import pytest
import uvicorn
from fastapi import FastAPI, Request, Response

from serve_app.accounts.longform.jobs import NewChunk
from serve_app.http.sockets import free_port
from serve_app.ingress.state import IngressState
from serve_app.speech.longform.webhooks import WebhookSender
from tests.unit.serve_app.conftest import ESPEAK, make_state, serving
from tests.unit.serve_app.speech.longform.test_work import SETTINGS
from tests.unit.serve_app.surfaces.native.test_jobs import JOBS, finished, service
from tests.waiting import HANG_S


class Receiver:
    """A webhook receiver: answers each POST with the next of ``statuses`` (then 200)
    and keeps what it was sent."""

    def __init__(self, statuses: tuple[int, ...] = ()) -> None:
        self.statuses = list(statuses)
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.arrived_at: list[float] = []  # time.monotonic() of each
        self.app = FastAPI()

        @self.app.post("/hooks/tts")
        async def hook(request: Request) -> Response:
            self.arrived_at.append(time.monotonic())
            self.received.append((dict(request.headers), await request.body()))
            return Response(status_code=self.statuses.pop(0) if self.statuses else 200)

    @contextlib.contextmanager
    def running(self) -> Iterator[str]:
        port = free_port()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning")
        with serving(config):
            yield f"http://127.0.0.1:{port}/hooks/tts"

    async def sent(self, count: int) -> None:
        for _ in range(600):
            if len(self.received) >= count:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{len(self.received)} of {count} webhooks arrived")


@contextlib.asynccontextmanager
async def sending(
    state: IngressState, receiver: Receiver, sender: WebhookSender
) -> AsyncIterator[tuple[str, httpx.AsyncClient]]:
    """The app and its replica's job worker, ``receiver`` listening at the URL given,
    ``sender`` sending."""
    with receiver.running() as url:
        async with service(state) as client:
            task = asyncio.create_task(sender.run())
            try:
                yield url, client
            finally:
                task.cancel()


@pytest.mark.parametrize("statuses", [(), (503, 500)])
async def test_a_job_s_end_reaches_its_webhook_signed_and_is_tried_until_2xx(
    tmp_path: Path, auth: dict[str, str], statuses: tuple[int, ...]
) -> None:
    state = make_state(tmp_path, webhook_private_addresses=True)
    receiver = Receiver(statuses)
    sender = WebhookSender(
        state.store, state.jobs.job, True, (0.1, 0.1, 0.1), idle_s=0.05, most_idle_s=0.2
    )
    async with sending(state, receiver, sender) as (url, client):
        body = {"input": "नमस्ते, यह एक छोटी किताब है।", "voice": ESPEAK, "webhook_url": url}
        created = (await client.post(JOBS, headers=auth, json=body)).json()
        assert created["webhook"] == {
            "url": url, "state": "waiting", "attempts": 0,
            "last_status": None, "last_error": None,
        }  # fmt: skip
        assert (await finished(client, auth, created["id"]))["state"] == "done"
        await receiver.sent(len(statuses) + 1)
        for _ in range(100):  # its outcome recorded
            job = (await client.get(f"{JOBS}/{created['id']}", headers=auth)).json()
            if job["webhook"]["state"] != "pending":
                break
            await asyncio.sleep(0.05)
        secret = await client.get("/v1/account/webhook_secret", headers=auth)
    assert job["webhook"]["state"] == "delivered" and job["webhook"]["last_status"] == 200
    assert job["webhook"]["attempts"] == len(statuses) + 1 == len(receiver.received)
    assert secret.json()["object"] == "webhook_secret"
    verifier = openai.OpenAI(api_key="unused").webhooks
    ids = set()
    for headers, payload in receiver.received:
        verifier.verify_signature(payload, headers, secret=secret.json()["secret"])
        with pytest.raises(openai.InvalidWebhookSignatureError):
            verifier.verify_signature(payload + b" ", headers, secret=secret.json()["secret"])
        assert headers["content-type"] == "application/json"
        ids.add(headers["webhook-id"])
        event = json.loads(payload)
        assert (event["object"], event["type"], event["id"]) == (
            "event", "speech.job.done", headers["webhook-id"],
        )  # fmt: skip
        assert event["data"]["id"] == created["id"] and event["data"]["state"] == "done"
    assert len(ids) == 1  # one event, however many tries: receivers drop repeats by its id


async def test_a_job_ending_here_wakes_this_replica_s_resting_sender(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """The sender rests a minute between looks, yet the webhook of a job that its own
    replica finished arrives at once: the job's end woke it."""
    state = make_state(tmp_path, webhook_private_addresses=True)
    receiver = Receiver()
    sender = WebhookSender(
        state.store, state.jobs.job, True, wakeup=state.jobs.ended, idle_s=60, most_idle_s=60
    )
    async with sending(state, receiver, sender) as (url, client):
        body = {"input": "नमस्ते।", "voice": ESPEAK, "webhook_url": url}
        created = (await client.post(JOBS, headers=auth, json=body)).json()
        assert (await finished(client, auth, created["id"]))["state"] == "done"
        await receiver.sent(1)  # 30 s at most, half the sender's rest
    assert json.loads(receiver.received[0][1])["data"]["id"] == created["id"]


async def test_urls_the_service_will_not_call_are_refused_with_the_job(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    state = make_state(tmp_path)  # webhooks only to public addresses, as by default
    async with service(state, worker=False) as client:
        for url, says in (
            ("http://127.0.0.1:8080/hook", "not a public address"),
            ("http://10.1.2.3/hook", "not a public address"),
            ("http://[::1]/hook", "not a public address"),
            ("http://localhost/hook", "not a public address"),
            ("ftp://example.com/hook", "http:// or https://"),
            ("https:///no-host", "http:// or https://"),
        ):
            body = {"input": "ठीक।", "voice": ESPEAK, "webhook_url": url}
            response = await client.post(JOBS, headers=auth, json=body)
            assert response.status_code == 400, (url, response.text)
            error = response.json()["error"]
            assert (error["code"], error["param"]) == ("invalid_value", "webhook_url")
            assert says in error["message"], error["message"]
        assert (await client.get(JOBS, headers=auth)).json()["data"] == []  # none was made
        # the secret is the project's: a key with the speech scope alone is refused
        project = (await state.auth.authorise(auth["Authorization"], None)).project_id
        speech_only = state.store.create_key(project, scopes=("speech",))
        refused = await client.get(
            "/v1/account/webhook_secret", headers={"Authorization": f"Bearer {speech_only}"}
        )
        assert refused.status_code == 403


def ended_job(state: IngressState, project: str, url: str) -> str:
    """A job of ``project`` with its webhook at ``url``, stored as it is (not checked as
    a submission is: a URL a former check let by) and cancelled: its webhook is due."""
    store = state.store
    chunk = NewChunk(0, "नमस्ते।", "", "", 0)
    job = store.create_job(project, SETTINGS, '["एक"]', [chunk], 100, url).id
    store.cancel_job(job, project)
    return job


def webhook(state: IngressState, job_id: str) -> dict[str, object]:
    row = state.store.job_webhook(job_id)
    assert row is not None
    return vars(row)


class SlowReceiver:
    """A receiver on a raw socket that, once sent a request, answers one byte of its
    status line every ``every_s`` and never finishes; notes when each connection came."""

    def __init__(self, every_s: float = 0.2) -> None:
        self.every_s = every_s
        self.connected_at: list[float] = []  # time.monotonic() of each connection

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connected_at.append(time.monotonic())
        try:
            await reader.readuntil(b"\r\n\r\n")
            for byte in b"HTTP/1.1 200 OK\r\n" * 1000:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(self.every_s)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            yield f"http://127.0.0.1:{port}/hooks/slow"


class HugeReceiver:
    """A receiver that answers 200 with a body of ``size`` bytes, sent as fast as it is
    taken; counts the bytes the sender took before it hung up."""

    def __init__(self, size: int = 2 << 30) -> None:
        self.size = size
        self.sent = 0
        self.hung_up = asyncio.Event()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        block = bytes(1 << 20)
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Length: {self.size}\r\n\r\n".encode())
            while self.sent < self.size:
                writer.write(block)
                await writer.drain()
                self.sent += len(block)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.hung_up.set()
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            yield f"http://127.0.0.1:{port}/hooks/huge"


async def until(condition: Callable[[], object], what: str, timeout_s: float = HANG_S) -> None:
    """Wait on the test's loop until ``condition()`` holds; a hang's guard only."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def sender_running(sender: WebhookSender) -> AsyncIterator[None]:
    task = asyncio.create_task(sender.run())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("spelling", ["\t", "\r", "\n", " ", "\x00"])
async def test_a_url_with_a_space_or_control_character_is_refused_and_one_stored_stops_nothing(
    tmp_path: Path, auth: dict[str, str], spelling: str
) -> None:
    """httpx refuses such a URL with an error of its own (not an HTTPError): once it
    ended the replica's sender, and every project's webhooks waited."""
    state = make_state(tmp_path, webhook_private_addresses=True)
    receiver = Receiver()
    sender = WebhookSender(state.store, state.jobs.job, True, (60.0,), idle_s=0.05)
    with receiver.running() as url:
        bad = url.replace("/hooks/", f"/ho{spelling}oks/")
        async with service(state, worker=False) as client:
            body = {"input": "ठीक।", "voice": ESPEAK, "webhook_url": bad}
            refused = await client.post(JOBS, headers=auth, json=body)
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert (error["code"], error["param"]) == ("invalid_value", "webhook_url")
        a, b = state.store.create_project("a", 10**9), state.store.create_project("b", 10**9)
        stored_bad = [ended_job(state, a, bad) for _ in range(2)]
        good = ended_job(state, b, url)
        async with sender_running(sender):
            await receiver.sent(1)
            await until(lambda: webhook(state, good)["state"] == "delivered", "b's recorded")
            for job in stored_bad:
                await until(lambda j=job: webhook(state, j)["state"] == "failed", "a's recorded")
    for job in stored_bad:
        assert "space or a control character" in str(webhook(state, job)["last_error"])


async def test_slow_receivers_hold_a_try_no_longer_than_its_timeout_nor_another_project_s(
    tmp_path: Path,
) -> None:
    """Two of A's receivers drip their answer a byte at a time: each try ends at the
    sender's timeout, however long the drip, and B's webhook goes out meanwhile
    (projects take turns: B's is sent before A's second)."""
    state = make_state(tmp_path, webhook_private_addresses=True)
    slow, receiver = SlowReceiver(), Receiver()
    sender = WebhookSender(
        state.store, state.jobs.job, True, (600.0,), idle_s=0.05, timeout_s=5.0, at_once=2
    )
    async with slow.running() as slow_url:
        with receiver.running() as url:
            a, b = state.store.create_project("a", 10**9), state.store.create_project("b", 10**9)
            dripped = [ended_job(state, a, slow_url) for _ in range(2)]
            good = ended_job(state, b, url)
            async with sender_running(sender):
                await receiver.sent(1)
                await until(
                    lambda: all(webhook(state, j)["attempts"] == 1 for j in dripped),
                    "both of A's tries end",
                )
    # A's first, then B's, then A's second: not A's two first
    assert len(slow.connected_at) == 2 and slow.connected_at[1] > receiver.arrived_at[0]
    assert webhook(state, good)["state"] == "delivered"
    for job in dripped:
        row = webhook(state, job)
        assert row["state"] == "pending" and row["last_status"] is None  # tried again later
        assert "did not answer within 5 s" in str(row["last_error"])


async def test_a_huge_answer_is_not_read(tmp_path: Path) -> None:
    """Only the receiver's status counts: its body (2 GiB here) is left unread."""
    state = make_state(tmp_path, webhook_private_addresses=True)
    huge = HugeReceiver()
    sender = WebhookSender(state.store, state.jobs.job, True, (600.0,), idle_s=0.05)
    async with huge.running() as url:
        project = state.store.create_project("a", 10**9)
        job = ended_job(state, project, url)
        async with sender_running(sender):
            await until(lambda: webhook(state, job)["state"] != "pending", "the try recorded")
            await asyncio.wait_for(huge.hung_up.wait(), HANG_S)
    assert webhook(state, job)["state"] == "delivered"
    assert huge.sent < 64 << 20, f"{huge.sent:,} bytes of the answer taken"
