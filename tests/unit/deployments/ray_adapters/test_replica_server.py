"""A replica still binds its server with a function of its module that a wrapper can
take the place of."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from deployments.ray_adapters.replica_server import replica_server_bind, set_replica_server_bind


@pytest.fixture
def original() -> Iterator[Any]:
    bind = replica_server_bind()
    yield bind
    if bind is not None:
        set_replica_server_bind(bind)


def test_this_serve_binds_through_a_function_of_server_and_address(original: Any) -> None:
    assert original is not None, "Serve no longer binds with add_port_to_grpc_server"
    assert list(inspect.signature(original).parameters)[:2] == ["server", "address"]


def test_a_wrapper_takes_its_place(original: Any) -> None:
    """Whether replicas then bind through it: tests/serve/test_exposure.py."""

    def wrapper(server: Any, address: str) -> Any:
        return original(server, address)

    set_replica_server_bind(wrapper)
    assert replica_server_bind() is wrapper
