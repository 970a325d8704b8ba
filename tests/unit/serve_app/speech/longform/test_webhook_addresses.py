"""Where a webhook may go: public unicast addresses in every spelling, and the try sent
to the address its check found, by the host's name (Host, TLS's server name), so a
name that answers elsewhere a moment later (DNS rebinding) reaches nothing else."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from pathlib import Path

import pytest
import uvicorn

from serve_app.http.sockets import free_port
from serve_app.speech.longform import webhooks
from serve_app.speech.longform.webhooks import WebhookSender, public
from tests.tls import self_signed_certificate
from tests.unit.serve_app.conftest import make_state, serving
from tests.unit.serve_app.speech.longform.test_webhooks import (
    Receiver,
    ended_job,
    sender_running,
    until,
    webhook,
)


@pytest.mark.parametrize(
    "address",
    [
        "::7f00:1", "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1",
        "::ffff:127.0.0.1", "224.0.0.1", "ff02::1", "ff0e::1", "64:ff9b:1::808:808",
        "fec0::1", "fe80::1", "100.64.0.1", "0.0.0.0", "255.255.255.255",
    ],
)  # fmt: skip
def test_addresses_that_are_not_public_in_any_spelling(address: str) -> None:
    assert not public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1"]
)
def test_public_addresses_and_the_ipv4_ones_that_ipv6_carries(address: str) -> None:
    assert public(ipaddress.ip_address(address))


async def test_a_name_that_resolves_elsewhere_after_the_check_reaches_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: a name that answers a public address to the check and a private
    one a moment later. The try connects to the address that was checked, naming the
    host in its Host header, so the second answer is never used. Here 127.0.0.1 stands
    for a public address and 127.0.0.2 for a private one (a listener on each)."""
    monkeypatch.setattr(webhooks, "public", lambda address: str(address) == "127.0.0.1")
    answers = iter(["127.0.0.1"])  # then 127.0.0.2, each time after

    def rebinding(host: object, port: object, *args: object, **kwargs: object) -> list:
        if host != "hooks.rebind.test":
            return real_getaddrinfo(host, port, *args, **kwargs)
        address = next(answers, "127.0.0.2")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(str(port))))]

    real_getaddrinfo = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    state = make_state(tmp_path)  # public addresses only, as by default
    receiver = Receiver()
    private_hits: list[bytes] = []

    async def private(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        private_hits.append(await reader.read(1000))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    sender = WebhookSender(state.store, state.jobs.job, False, (600.0,), idle_s=0.05)
    with receiver.running() as url:
        port = int(url.split(":")[2].split("/")[0])
        inside = await asyncio.start_server(private, "127.0.0.2", port)
        async with inside:
            project = state.store.create_project("a", 10**9)
            job = ended_job(state, project, f"http://hooks.rebind.test:{port}/hooks/tts")
            async with sender_running(sender):
                await until(lambda: webhook(state, job)["state"] != "pending", "the try")
    assert webhook(state, job)["state"] == "delivered", webhook(state, job)
    assert private_hits == [] and len(receiver.received) == 1
    assert receiver.received[0][0]["host"] == f"hooks.rebind.test:{port}"


async def test_an_https_receiver_reached_at_its_checked_address_is_verified_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection goes to the checked address, and TLS still names the host: the
    receiver's certificate (for hooks.tls.test, not for an address) is verified."""
    monkeypatch.setattr(webhooks, "public", lambda address: str(address) == "127.0.0.1")
    real_getaddrinfo = socket.getaddrinfo

    def resolving(host: object, port: object, *args: object, **kwargs: object) -> list:
        if host == "hooks.tls.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(str(port))))]
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolving)
    cert = self_signed_certificate(tmp_path, "hooks.tls.test")
    receiver = Receiver()
    port = free_port()
    config = uvicorn.Config(
        receiver.app, host="127.0.0.1", port=port, log_level="warning",
        ssl_certfile=str(cert), ssl_keyfile=str(tmp_path / "key.pem"),
    )  # fmt: skip
    state = make_state(tmp_path)
    trusted = ssl.create_default_context(cafile=str(cert))
    sender = WebhookSender(
        state.store, state.jobs.job, False, (600.0,), idle_s=0.05, verify=trusted
    )
    with serving(config):
        project = state.store.create_project("a", 10**9)
        job = ended_job(state, project, f"https://hooks.tls.test:{port}/hooks/tts")
        async with sender_running(sender):
            await until(lambda: webhook(state, job)["state"] != "pending", "the try")
    assert webhook(state, job)["state"] == "delivered", webhook(state, job)
    assert receiver.received[0][0]["host"] == f"hooks.tls.test:{port}"
