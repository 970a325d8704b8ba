"""Long-form audio stores, a folder and an S3-compatible server over HTTP: objects
whole or absent, read by range, listed with when they were written, deleted a job at
a time or by key."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import serve_app.speech.audio_store as audio_store
from serve_app.speech.audio_store import AudioStore, FolderStore, S3Store, open_store
from tests.s3_server import BUCKET


@pytest.fixture(params=["folder", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> AudioStore:
    if request.param == "folder":
        return open_store("audio", tmp_path)
    endpoint = request.getfixturevalue("s3_endpoint")
    return open_store(f"s3://{BUCKET}/{tmp_path.name}/", tmp_path, endpoint)


def test_a_store_is_chosen_by_its_location(tmp_path: Path) -> None:
    assert isinstance(open_store("var/longform", tmp_path), FolderStore)
    s3 = open_store("s3://bucket/some/prefix", tmp_path, "http://127.0.0.1:9")
    assert isinstance(s3, S3Store) and (s3.bucket, s3.prefix) == ("bucket", "some/prefix/")


def test_objects_are_kept_read_by_range_and_deleted_by_job(store: AudioStore) -> None:
    data = bytes(range(256)) * 4_000  # 1,024,000 bytes: several blocks
    store.put("job-a/000000.pcm", data)
    store.put("job-a/000001.pcm", b"second")
    store.put("job-b/000000.pcm", b"another job")
    assert store.size("job-a/000000.pcm") == len(data)
    assert store.get("job-a/000000.pcm") == data
    assert store.size("job-a/000002.pcm") is None
    assert store.find("job-a/000001.pcm") == b"second" and store.find("job-a/000002.pcm") is None
    assert b"".join(store.read("job-a/000000.pcm", 0, len(data))) == data
    assert b"".join(store.read("job-a/000000.pcm", 300_001, 700_003)) == data[300_001:700_003]
    assert b"".join(store.read("job-a/000000.pcm", 5, 5)) == b""

    store.delete_job("job-a")
    assert store.size("job-a/000000.pcm") is None and store.size("job-a/000001.pcm") is None
    assert store.get("job-b/000000.pcm") == b"another job"
    store.delete_job("no-such-job")


def test_a_file_made_in_scratch_becomes_an_object_whole(store: AudioStore) -> None:
    with store.scratch("job-a/audio.mp3") as made:
        made.write_bytes(b"ID3 and frames")
        assert store.size("job-a/audio.mp3") is None  # not there until put
        store.put_file("job-a/audio.mp3", made)
        assert not made.exists()
    assert store.get("job-a/audio.mp3") == b"ID3 and frames"


def test_objects_are_listed_with_when_they_were_written_and_deleted_by_key(
    store: AudioStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audio_store, "DELETE_BATCH", 2)  # S3 deletes in batches
    before = time.time()
    for key in ("a/1", "a/2", "a/3", "b/1"):
        store.put(key, key.encode())
    after = time.time()
    listed = dict(store.listed())
    assert sorted(listed) == ["a/1", "a/2", "a/3", "b/1"]
    # (S3 keeps whole seconds)
    assert all(before - 1 <= written <= after + 1 for written in listed.values())
    store.delete(["a/1", "a/3", "b/1", "no/such"])
    assert [key for key, _ in store.listed()] == ["a/2"]
    assert store.get("a/2") == b"a/2"
