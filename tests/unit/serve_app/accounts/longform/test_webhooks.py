"""Jobs' webhooks in the accounts database (SQLite and PostgreSQL alike): due when
the job ends, in the transaction that ends it; sent by one process at a time; tried
again or failed for good; gone with the job."""

from __future__ import annotations

import base64
import time

from serve_app.accounts import AccountStore
from tests.unit.serve_app.accounts.longform.test_jobs import CHAPTERS, CHUNKS, SETTINGS

URL = "https://hooks.example.com/tts"


def speak_all(store: AccountStore, job_id: str) -> None:
    while (chunk := store.claim_chunk(60, 30)) is not None:
        assert store.complete_chunk(job_id, chunk.index, 9, 800, 700)


def test_a_webhook_is_due_once_its_job_is_done_and_one_process_sends_it(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    first, second = stores
    project = first.create_project("acme", 10_000)
    job_id = first.create_job(project, SETTINGS, CHAPTERS, CHUNKS, 2, URL).id
    waiting = first.job_webhook(job_id)
    assert waiting is not None and (waiting.url, waiting.state, waiting.attempts) == (
        URL, "waiting", 0,
    )  # fmt: skip
    assert first.claim_webhook(60) is None  # the job runs
    speak_all(first, job_id)
    due = second.claim_webhook(60)
    assert due is not None and (due.job_id, due.project_id, due.url) == (job_id, project, URL)
    assert due.event_id.startswith("evt_") and due.secret == first.webhook_secret(project)
    assert first.claim_webhook(60) is None  # claimed: one sender at a time
    first.webhook_sent(job_id, 200, None, None)  # not first's claim: nothing changes
    assert first.job_webhook(job_id).state == "pending"  # type: ignore[union-attr]
    second.webhook_sent(job_id, 204, None, None)
    sent = first.job_webhook(job_id)
    assert sent is not None and (sent.state, sent.attempts, sent.last_status) == (
        "delivered", 1, 204,
    )  # fmt: skip
    assert first.claim_webhook(60) is None and second.claim_webhook(60) is None


def test_a_failed_try_is_tried_again_after_its_wait_with_the_same_event_id(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 10_000)
    job_id = store.create_job(project, SETTINGS, CHAPTERS, CHUNKS, 2, URL).id
    store.cancel_job(job_id, project)  # a cancelled job's end is told too
    due = store.claim_webhook(60)
    assert due is not None
    store.webhook_sent(job_id, 503, "the receiver answered 503", time.time() + 0.5)
    assert store.claim_webhook(60) is None  # not before its wait
    time.sleep(0.6)
    again = store.claim_webhook(60)
    assert again is not None and again.event_id == due.event_id and again.attempts == 1
    store.webhook_sent(job_id, None, "ConnectError: refused", None)  # its last try
    failed = store.job_webhook(job_id)
    assert failed is not None and (failed.state, failed.attempts, failed.last_error) == (
        "failed", 2, "ConnectError: refused",
    )  # fmt: skip
    assert store.claim_webhook(60) is None


def test_a_claim_whose_lease_ran_out_is_anyone_s(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    first, second = stores
    project = first.create_project("acme", 10_000)
    job_id = first.create_job(project, SETTINGS, CHAPTERS, CHUNKS, 2, URL).id
    first.cancel_job(job_id, project)
    assert first.claim_webhook(0.2) is not None  # and its process stops
    time.sleep(0.3)
    assert second.claim_webhook(60) is not None
    first.webhook_sent(job_id, 200, None, None)  # the stopped one's late word: dropped
    assert second.job_webhook(job_id).state == "pending"  # type: ignore[union-attr]


def test_a_deleted_job_s_webhook_goes_with_it_and_jobs_without_have_none(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 10_000)
    job_id = store.create_job(project, SETTINGS, CHAPTERS, CHUNKS, 2, URL).id
    store.delete_job(job_id, project)
    assert store.job_webhook(job_id) is None and store.claim_webhook(60) is None
    plain = store.create_job(project, SETTINGS, CHAPTERS, CHUNKS, 2).id
    speak_all(store, plain)
    assert store.job_webhook(plain) is None and store.claim_webhook(60) is None


def test_each_project_has_its_own_secret_made_once(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    first, second = stores
    acme, other = first.create_project("acme", 0), first.create_project("other", 0)
    secret = first.webhook_secret(acme)
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    assert second.webhook_secret(acme) == secret != first.webhook_secret(other)
