"""Long-form jobs in the accounts database (SQLite and PostgreSQL alike): the worst
case reserved, each chunk charged once whoever speaks it, cancelling releases the rest."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from serve_app.accounts import AccountStore, InsufficientFunds
from serve_app.accounts.longform.claims import Completion, charge_id
from serve_app.accounts.longform.jobs import ChapterTally, JobNotFound, NewChunk, TooManyJobs

CHUNKS = [NewChunk(0, "पहला भाग।", "", "दूसरा", 900), NewChunk(1, "दूसरा भाग।", "पहला", "", 1_000)]
SETTINGS = json.dumps({"voice": "default", "response_format": "mp3"})
CHAPTERS = json.dumps(["एक", "दो"])


def new_job(store: AccountStore, project: str, max_running: int = 2) -> str:
    return store.create_job(project, SETTINGS, CHAPTERS, CHUNKS, max_running).id


def test_a_job_reserves_its_worst_case_or_is_refused(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 3_000)
    job = store.create_job(project, SETTINGS, CHAPTERS, CHUNKS, max_running=1)
    assert (job.state, job.held, job.chunks, job.characters) == ("running", 1_900, 2, 19)
    assert store.usage(project).held == 1_900
    with pytest.raises(TooManyJobs):
        new_job(store, project, max_running=1)
    with pytest.raises(InsufficientFunds):  # 1,100 available
        new_job(store, project, max_running=2)
    assert store.usage(project).held == 1_900  # a refusal reserves nothing
    other = store.create_project("other", 10_000)
    with pytest.raises(JobNotFound):
        store.job(job.id, other)
    with pytest.raises(JobNotFound):
        store.cancel_job(job.id, other)
    assert [r.job.id for r in store.records(project)] == [job.id] and store.records(other) == []
    with pytest.raises(JobNotFound):
        store.record(job.id, other)


def test_each_chunk_is_claimed_once_and_charged_once(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    first, second = stores
    project = first.create_project("acme", 10_000)
    job_id = new_job(first, project)
    a, b = first.claim_chunk(60, 30), second.claim_chunk(60, 30)
    assert a is not None and b is not None and (a.index, b.index) == (0, 1)
    assert a.settings == SETTINGS and (a.text, a.after) == ("पहला भाग।", "दूसरा")
    assert first.claim_chunk(lease_s=60, owner_lease_s=30) is None  # both are claimed
    assert not first.complete_chunk(job_id, 1, 10, 1_000, 500)  # second's claim, not first's
    charged = second.complete_chunk(job_id, 1, 10, 1_000, 5_000)  # at most its reserve
    assert charged is Completion.CHARGED
    assert not second.complete_chunk(job_id, 1, 10, 1_000, 500)  # once
    assert first.job(job_id, project).state == "running"
    assert first.complete_chunk(job_id, 0, 9, 800, 700) is Completion.JOB_DONE  # its last
    job = first.job(job_id, project)
    assert (job.state, job.held, job.cost, job.chunks_done, job.audio_ms) == (
        "done", 0, 1_700, 2, 1_800,
    )  # fmt: skip
    usage = first.usage(project)
    assert (usage.held, usage.balance, usage.characters, usage.requests) == (0, 8_300, 19, 1)
    assert first.ledger_sum(project) == usage.balance
    assert [c.state for c in first.chunks(job_id, project)] == ["done", "done"]


def test_a_chunk_whose_lease_ran_out_is_spoken_again_and_charged_once(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    """A process that stops mid-chunk (its lease runs out): another claims the chunk,
    and the first, if it comes back, can no longer charge it."""
    first, second = stores
    project = first.create_project("acme", 10_000)
    job_id = new_job(first, project)
    lost = first.claim_chunk(lease_s=0.05, owner_lease_s=30)
    assert lost is not None and lost.index == 0
    time.sleep(0.1)
    again = second.claim_chunk(lease_s=60, owner_lease_s=30)
    assert again is not None and (again.job_id, again.index) == (job_id, 0)
    assert not first.renew_claim(job_id, 0, lease_s=60)
    assert not first.fail_chunk(job_id, 0, "gone", max_attempts=1)  # not first's to fail
    assert not first.complete_chunk(job_id, 0, 9, 800, 700)
    assert second.complete_chunk(job_id, 0, 9, 800, 700)
    assert first.usage(project).balance == 10_000 - 700
    assert first.ledger_sum(project) == 10_000 - 700
    assert charge_id(job_id, 0) == f"{job_id}/0"


def test_a_silent_process_s_chunks_are_claimed_again_and_a_stopping_one_gives_them_back(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    """A process that stops heartbeating (killed) loses its claims once its holds would
    be recovered, whatever their leases; one that stops cleanly gives its chunk back."""
    first, second = stores
    project = first.create_project("acme", 10_000)
    job_id = new_job(first, project)
    killed = first.claim_chunk(lease_s=600, owner_lease_s=30)
    assert killed is not None and killed.index == 0
    released = second.claim_chunk(lease_s=600, owner_lease_s=30)
    assert released is not None and released.index == 1
    assert second.claim_chunk(lease_s=600, owner_lease_s=30) is None  # both are live
    time.sleep(0.2)
    second.heartbeat()  # first is silent from here
    again = second.claim_chunk(lease_s=600, owner_lease_s=0.1)
    assert again is not None and again.index == 0
    assert second.claim_chunk(lease_s=600, owner_lease_s=0) is None  # its own are live
    second.release_claim(job_id, released.index)
    back = first.claim_chunk(lease_s=600, owner_lease_s=30)
    assert back is not None and back.index == 1
    assert not first.complete_chunk(job_id, 0, 9, 800, 700)  # its claim was taken


def test_a_failed_chunk_waits_before_it_is_tried_again(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, other = stores
    project = store.create_project("acme", 10_000)
    job_id = new_job(store, project)
    failed = store.claim_chunk(60, 30)
    assert failed is not None and failed.index == 0
    assert not store.fail_chunk(job_id, 0, "a stage died", max_attempts=3, retry_after_s=0.3)
    later = other.claim_chunk(60, 30)
    assert later is not None and later.index == 1  # not the failed one, yet
    assert other.claim_chunk(60, 30) is None
    time.sleep(0.4)
    again = other.claim_chunk(60, 30)
    assert again is not None and again.index == 0


def test_cancelling_releases_what_is_not_done_and_keeps_what_is(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 10_000)
    job_id = new_job(store, project)
    done, working = store.claim_chunk(60, 30), store.claim_chunk(60, 30)
    assert done is not None and working is not None
    assert store.complete_chunk(job_id, done.index, 9, 800, 700)
    job = store.cancel_job(job_id, project)
    assert (job.state, job.held, job.cost) == ("cancelled", 0, 700)
    dropped = store.complete_chunk(job_id, working.index, 10, 900, 600)
    assert dropped is Completion.LOST
    usage = store.usage(project)
    assert (usage.held, usage.balance) == (0, 9_300)
    assert store.cancel_job(job_id, project).state == "cancelled"  # as it was
    assert [c.state for c in store.chunks(job_id, project)] == ["done", "cancelled"]
    assert store.claim_chunk(60, 30) is None


def test_deleting_a_running_job_cancels_it_and_the_charges_stay(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, other = stores
    project = store.create_project("acme", 10_000)
    job_id = new_job(store, project)
    done, working = store.claim_chunk(60, 30), other.claim_chunk(60, 30)
    assert done is not None and working is not None
    assert store.complete_chunk(job_id, done.index, 9, 800, 700)
    last = store.delete_job(job_id, project)
    assert (last.state, last.cost, last.chunks_done) == ("cancelled", 700, 1)
    assert store.job_state(job_id) is None and store.records(project) == []
    with pytest.raises(JobNotFound):
        store.job(job_id, project)
    assert other.complete_chunk(job_id, working.index, 10, 900, 600) is Completion.JOB_GONE
    usage = store.usage(project)
    assert (usage.held, usage.balance, usage.requests) == (0, 9_300, 1)
    assert store.ledger_sum(project) == usage.balance


def test_ended_jobs_are_found_by_when_they_ended(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 10_000)
    running, ended = new_job(store, project), new_job(store, project)
    store.cancel_job(ended, project)
    assert store.job_state(running) == "running" and store.job_state(ended) == "cancelled"
    assert store.ended_jobs(before=time.time() - 60) == []
    assert store.ended_jobs(before=time.time() + 1) == [(ended, project)]


def test_processes_claiming_at_once_take_different_chunks(database_url: str) -> None:
    """Eight claims at once (each a process of its own): eight chunks, none twice, none
    missed (on PostgreSQL a claim skips the chunks other claims hold, not waits)."""
    stores = [AccountStore.open(database_url) for _ in range(8)]
    try:
        project = stores[0].create_project("acme", 100_000)
        many = [NewChunk(0, f"वाक्य {i}।", "", "", 1_000) for i in range(8)]
        stores[0].create_job(project, SETTINGS, CHAPTERS, many, max_running=1)
        with ThreadPoolExecutor(8) as pool:
            claims = list(pool.map(lambda store: store.claim_chunk(60, 30), stores))
        assert sorted(c.index for c in claims if c is not None) == list(range(8))
    finally:
        for store in stores:
            store.close()


def test_a_job_s_record_counts_its_chunks_by_chapter_and_state(
    stores: tuple[AccountStore, AccountStore],
) -> None:
    store, _ = stores
    project = store.create_project("acme", 100_000)
    older, newer = new_job(store, project), new_job(store, project)
    chunk = store.claim_chunk(60, 30)
    assert chunk is not None and (chunk.job_id, chunk.index) == (older, 0)
    assert store.complete_chunk(older, 0, 9, 800, 700)
    working = store.claim_chunk(60, 30)
    assert working is not None and (working.job_id, working.index) == (older, 1)
    records = store.records(project)
    assert [r.job.id for r in records] == [newer, older]  # newest first
    assert records[1].tallies == [
        ChapterTally(0, "done", 1, 9, 800),
        ChapterTally(1, "working", 1, 10, 0),
    ]
    assert records[0].tallies == [
        ChapterTally(0, "pending", 1, 9, 0),
        ChapterTally(1, "pending", 1, 10, 0),
    ]
    assert records[1] == store.record(older, project) and records[1].webhook is None


def test_projects_take_turns_at_job_work(stores: tuple[AccountStore, AccountStore]) -> None:
    """A's two jobs were submitted first, B's one chunk after: B's chunk is spoken
    second, not after all of A's (first come, first served kept B waiting 28 s to
    200 s). One process speaking a chunk at a time, then two side by side."""
    store, other = stores
    a, b = store.create_project("a", 10**9), store.create_project("b", 10**9)
    five = [NewChunk(0, f"भाग {i}।", "", "", 100) for i in range(5)]
    first = store.create_job(a, SETTINGS, CHAPTERS, five, 10).id
    store.create_job(a, SETTINGS, CHAPTERS, five, 10)
    store.create_job(b, SETTINGS, CHAPTERS, five[:1], 10)
    turns = []
    for _ in range(3):  # one at a time: each claimed, spoken, done
        claimed = store.claim_chunk(lease_s=60, owner_lease_s=30)
        assert claimed is not None
        turns.append(claimed.project_id)
        store.complete_chunk(claimed.job_id, claimed.index, 5, 100, 10)
    assert turns == [a, b, a]
    assert claimed.job_id == first and claimed.index == 1  # A's oldest job goes on

    c = store.create_project("c", 10**9)
    store.create_job(c, SETTINGS, CHAPTERS, five[:2], 10)
    side_by_side = [store.claim_chunk(60, 30), other.claim_chunk(60, 30)]
    # C has had no turn yet and A none working: each of them one, not A two
    assert sorted(str(x and x.project_id) for x in side_by_side) == sorted([a, c])
