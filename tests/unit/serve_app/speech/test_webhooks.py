"""Jobs' webhooks sent over real sockets to a receiver on 127.0.0.1: signed so that the
OpenAI SDK's verifier (Standard Webhooks) accepts them, tried again until the receiver
answers 2xx, and URLs the service will not call refused when the job is submitted."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import openai
import pytest
import uvicorn
from fastapi import FastAPI, Request, Response

from serve_app.http.sockets import free_port
from serve_app.ingress.state import IngressState
from serve_app.speech.webhooks import WebhookSender
from tests.unit.serve_app.conftest import ESPEAK, make_state, serving
from tests.unit.serve_app.surfaces.native.test_jobs import JOBS, finished, service


class Receiver:
    """A webhook receiver: answers each POST with the next of ``statuses`` (then 200)
    and keeps what it was sent."""

    def __init__(self, statuses: tuple[int, ...] = ()) -> None:
        self.statuses = list(statuses)
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.app = FastAPI()

        @self.app.post("/hooks/tts")
        async def hook(request: Request) -> Response:
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
