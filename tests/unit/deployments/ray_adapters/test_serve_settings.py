"""Serve still reports, as module constants, the settings flow control rests on."""

from __future__ import annotations

import pytest

from deployments.ray_adapters.serve_settings import serve_setting


@pytest.mark.parametrize(
    "name", ["RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD", "RAY_SERVE_USE_GRPC_BY_DEFAULT"]
)
def test_this_serve_has_the_setting(name: str) -> None:
    assert serve_setting(name) in (True, False)


def test_a_setting_serve_does_not_have_is_an_error() -> None:
    with pytest.raises(AttributeError):
        serve_setting("RAY_SERVE_NO_SUCH_SETTING")
