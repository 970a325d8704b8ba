"""HAProxy's config as Serve renders it from its own template
(``ray.serve._private.haproxy``).

The ingress's HAProxy wrapper (``serve_app.ingress.haproxy``) rewrites the config
Serve writes; its tests need one written by Serve's own template, which Serve renders
only inside its proxy actor. Serve has no public way to render it.
"""

from __future__ import annotations

from pathlib import Path


def rendered_config(state: Path, app: str = "speech", port: int = 30000) -> str:
    """The config Serve writes for one application of one replica on ``port``, its
    files under ``state``."""
    from ray.serve._private.haproxy import BackendConfig, HAProxyApi, HAProxyConfig, ServerConfig

    config = HAProxyConfig(
        socket_path=f"{state}/admin.sock",
        server_state_base=str(state),
        server_state_file=f"{state}/server-state",
        stats_port=8404,
        metrics_port=9101,
        error_file_path=f"{state}/500.http",
        has_received_routes=True,
        has_received_servers=True,
    )
    server = ServerConfig("replica", "127.0.0.1", port)
    backend = BackendConfig(name=f"http-{app}", path_prefix="/", servers=[server], app_name=app)
    api = HAProxyApi(config, {app: backend}, config_file_path=str(state / "haproxy.cfg"))
    api._generate_config_file_internal()
    return (state / "haproxy.cfg").read_text()
