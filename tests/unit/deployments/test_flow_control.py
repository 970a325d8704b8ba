"""Which Serve settings let a stream run ahead of its reader."""

from __future__ import annotations

import logging

import pytest

from deployments import flow_control
from deployments.flow_control import flow_control_gaps, warn_without_flow_control


def serve_runs_with(monkeypatch: pytest.MonkeyPatch, **settings: bool) -> None:
    monkeypatch.setattr(flow_control, "serve_setting", settings.__getitem__)


def test_throughput_optimised_serve_holds_streams_back(monkeypatch: pytest.MonkeyPatch) -> None:
    serve_runs_with(
        monkeypatch,
        RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD=False,
        RAY_SERVE_USE_GRPC_BY_DEFAULT=True,
    )
    assert flow_control_gaps() == []


def test_serve_defaults_are_named_in_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    serve_runs_with(
        monkeypatch,
        RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD=True,
        RAY_SERVE_USE_GRPC_BY_DEFAULT=False,
    )
    with caplog.at_level(logging.WARNING, logger="deployments"):
        warn_without_flow_control()
    assert "RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD" in caplog.text
    assert "RAY_SERVE_USE_GRPC_BY_DEFAULT" in caplog.text
    assert "RAY_SERVE_THROUGHPUT_OPTIMIZED=1" in caplog.text
