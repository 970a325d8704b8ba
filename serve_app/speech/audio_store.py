"""Where long-form jobs, and the speech cache's shared tier, keep their audio: a
folder (one machine, or a volume every ingress replica mounts) or an S3-compatible
object store (a cluster whose nodes share no disk).

Both hold objects by key (``<job id>/<chunk:06d>.pcm``, ``<job id>/audio.mp3``),
each written whole or not at all, read whole or by a byte range (an HTTP Range
request is served from either), and deleted a job at a time or by key. The speech cache keeps
its entries in a store of its own beside the jobs' (``cache/shared.py``). Calls block: the
service makes them on threads.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import ObjectIdentifierTypeDef

# Bytes a ranged read hands over at a time.
READ_BLOCK = 256 * 1024
# Objects one S3 DeleteObjects call takes, at most.
DELETE_BATCH = 1000


class AudioStore(Protocol):
    """Objects by key, each whole or absent."""

    def put(self, key: str, data: bytes) -> None: ...

    def put_file(self, key: str, path: Path) -> None:
        """The file ``path`` (made under :meth:`scratch`) as ``key``; the file is
        gone after."""
        ...

    def get(self, key: str) -> bytes: ...

    def find(self, key: str) -> bytes | None:
        """The object ``key``; None if there is none."""
        ...

    def size(self, key: str) -> int | None:
        """The object's size in bytes; None if there is none."""
        ...

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start`` to ``stop`` (exclusive) of the object, in blocks."""
        ...

    def delete_job(self, job_id: str) -> None:
        """Every object of ``job_id`` (none: nothing happens)."""
        ...

    def listed(self) -> Iterator[tuple[str, float]]:
        """Every object's key, and when it was written (seconds since the epoch)."""
        ...

    def delete(self, keys: list[str]) -> None:
        """The objects ``keys`` (one that is not there: nothing happens)."""
        ...

    def scratch(self, name: str) -> contextlib.AbstractContextManager[Path]:
        """A local path to make a file in before :meth:`put_file` (removed after the
        block if it is still there)."""
        ...


def open_store(location: str, root: Path, endpoint_url: str | None = None) -> AudioStore:
    """The store at ``location``: ``s3://bucket/prefix`` (credentials from the
    environment, as boto3 finds them; ``endpoint_url`` for a store other than AWS's),
    else a folder (relative to ``root``)."""
    if location.startswith("s3://"):
        return S3Store.from_url(location, endpoint_url)
    return FolderStore(root / location)


def job_key(job_id: str, name: str) -> str:
    return f"{job_id}/{name}"


class FolderStore:
    """Objects as files under ``root`` (a folder per job)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, key: str, data: bytes) -> None:
        with self.scratch(key) as partial:
            partial.write_bytes(data)
            self.put_file(key, partial)

    def put_file(self, key: str, path: Path) -> None:
        target = self.root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        path.replace(target)  # atomic: a reader never sees half a file

    def get(self, key: str) -> bytes:
        return (self.root / key).read_bytes()

    def find(self, key: str) -> bytes | None:
        try:
            return self.get(key)
        except FileNotFoundError:
            return None

    def size(self, key: str) -> int | None:
        try:
            return (self.root / key).stat().st_size
        except FileNotFoundError:
            return None

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        with (self.root / key).open("rb") as file:
            file.seek(start)
            while start < stop and (block := file.read(min(READ_BLOCK, stop - start))):
                start += len(block)
                yield block

    def delete_job(self, job_id: str) -> None:
        shutil.rmtree(self.root / job_id, ignore_errors=True)

    def listed(self) -> Iterator[tuple[str, float]]:
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = Path(folder, name)
                with contextlib.suppress(FileNotFoundError):  # deleted meanwhile
                    yield path.relative_to(self.root).as_posix(), path.stat().st_mtime

    def delete(self, keys: list[str]) -> None:
        for key in keys:
            (self.root / key).unlink(missing_ok=True)

    @contextlib.contextmanager
    def scratch(self, name: str) -> Iterator[Path]:
        # beside where it goes: the move into place is a rename on one file system
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        try:
            yield partial
        finally:
            partial.unlink(missing_ok=True)


class S3Store:
    """Objects in an S3 bucket under ``prefix``. A PUT is atomic: an object is whole
    or absent."""

    def __init__(self, client: S3Client, bucket: str, prefix: str = "") -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""

    @classmethod
    def from_url(cls, url: str, endpoint_url: str | None = None) -> S3Store:
        import boto3
        from botocore.config import Config

        parts = urlsplit(url)
        # path-style addressing: what S3-compatible servers (MinIO, Ceph, ...) take
        config = Config(s3={"addressing_style": "path"}, retries={"mode": "standard"})
        client = boto3.client("s3", endpoint_url=endpoint_url, config=config)
        return cls(client, parts.netloc, parts.path)

    def _key(self, key: str) -> str:
        return self.prefix + key

    def put(self, key: str, data: bytes) -> None:
        self._client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def put_file(self, key: str, path: Path) -> None:
        self._client.upload_file(str(path), self.bucket, self._key(key))
        path.unlink(missing_ok=True)

    def get(self, key: str) -> bytes:
        return self._client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()

    def find(self, key: str) -> bytes | None:
        try:
            return self.get(key)
        except self._client.exceptions.ClientError as e:
            if _absent(e):
                return None
            raise

    def size(self, key: str) -> int | None:
        try:
            head = self._client.head_object(Bucket=self.bucket, Key=self._key(key))
        except self._client.exceptions.ClientError as e:
            if _absent(e):
                return None
            raise
        return head["ContentLength"]

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        if start >= stop:
            return
        answer = self._client.get_object(
            Bucket=self.bucket, Key=self._key(key), Range=f"bytes={start}-{stop - 1}"
        )
        with contextlib.closing(answer["Body"]) as body:
            yield from body.iter_chunks(READ_BLOCK)

    def delete_job(self, job_id: str) -> None:
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self._key(f"{job_id}/")
        )
        for page in pages:
            self._delete([item["Key"] for item in page.get("Contents", [])])

    def listed(self) -> Iterator[tuple[str, float]]:
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix
        )
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix) :], item["LastModified"].timestamp()

    def delete(self, keys: list[str]) -> None:
        for start in range(0, len(keys), DELETE_BATCH):
            self._delete([self._key(key) for key in keys[start : start + DELETE_BATCH]])

    def _delete(self, names: list[str]) -> None:
        """The objects named ``names`` (their whole keys, at most :data:`DELETE_BATCH`)."""
        if names:
            objects: list[ObjectIdentifierTypeDef] = [{"Key": name} for name in names]
            self._client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects})

    @contextlib.contextmanager
    def scratch(self, name: str) -> Iterator[Path]:
        with tempfile.TemporaryDirectory(prefix="job-audio-") as folder:
            yield Path(folder) / Path(name).name


def _absent(error: Exception) -> bool:
    """Whether an S3 client's error says the object is not there."""
    code = getattr(error, "response", {}).get("Error", {}).get("Code")
    return code in ("404", "NoSuchKey", "NotFound")
