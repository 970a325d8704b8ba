"""Serve's HAProxy template still renders, with the sections the wrapper rewrites."""

from __future__ import annotations

from pathlib import Path

from deployments.ray_adapters.haproxy_template import rendered_config


def test_this_serve_renders_its_haproxy_config(tmp_path: Path) -> None:
    config = rendered_config(tmp_path)
    for section in ("global", "defaults", "frontend", "backend http-speech"):
        assert section in config
    assert "127.0.0.1:30000" in config
