"""``make run``'s choice of the metrics port, with real sockets."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from serve_app import run
from serve_app.http.sockets import port_is_free


@pytest.fixture
def held() -> Iterator[int]:
    """A port another process would hold: listening on every interface."""
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        yield int(s.getsockname()[1])


def test_a_port_with_a_listener_is_not_free_and_one_without_is(held: int) -> None:
    assert not port_is_free(held)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    assert port_is_free(port)


def test_the_default_is_kept_while_free(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = int(s.getsockname()[1])
    monkeypatch.setattr(run, "DEFAULT_METRICS_PORT", free)
    assert run.metrics_port(None) == free


def test_a_second_instance_gets_a_free_port_and_says_so(
    held: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "DEFAULT_METRICS_PORT", held)
    chosen = run.metrics_port(None)
    assert chosen != held and port_is_free(chosen)
    assert f"metrics on {chosen} instead" in capsys.readouterr().out


def test_a_port_asked_for_by_name_must_be_free(held: int) -> None:
    with pytest.raises(run.PortTaken, match=f"{held}.*METRICS_PORT"):
        run.metrics_port(held)
