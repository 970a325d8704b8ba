"""An S3-compatible server on 127.0.0.1 for the tests of long-form audio stores:
moto's, served over real HTTP, so boto3 talks to it over a socket as to any S3."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

BUCKET = "longform-audio"
# The credentials a deployment gives through the environment (any are taken here).
ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "test-key-id",
    "AWS_SECRET_ACCESS_KEY": "test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextlib.contextmanager
def s3_server() -> Iterator[str]:
    """The server's endpoint URL, with :data:`BUCKET` made and :data:`ENVIRONMENT` set
    in this process's environment (so processes started meanwhile have it too)."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    before = {name: os.environ.get(name) for name in ENVIRONMENT}
    os.environ.update(ENVIRONMENT)
    try:
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        yield endpoint
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()
