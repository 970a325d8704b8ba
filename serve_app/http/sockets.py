"""The kernel's send buffer of the sockets this process serves clients on.

Linux grows a TCP socket's send buffer on its own, up to megabytes (``tcp_wmem``):
for a reader that stops reading, that is a minute of audio spoken, sent and billed
for nobody. A buffer set on the listening socket holds for every connection it
accepts (the kernel copies it, and stops growing it); connections accepted
before it was set (a proxy keeps its first ones open for all later requests) are
set too. The server that listens is Serve's (or uvicorn's), which offers no
socket options, so its sockets are found among this process's own.
"""

from __future__ import annotations

import logging
import socket
import threading

import psutil

logger = logging.getLogger("serve_app")


SERVING = (psutil.CONN_LISTEN, psutil.CONN_ESTABLISHED)


def limit_send_buffer(port: int, size: int) -> int:
    """Sets ``SO_SNDBUF`` to ``size`` on this process's TCP sockets that listen on
    ``port`` or were accepted there; how many there were (none when another process
    listens, as Serve's proxy does when requests do not come straight to the replica)."""
    try:
        connections = psutil.Process().net_connections(kind="tcp")
    except psutil.Error as e:
        logger.warning("cannot list this process's sockets (%r): send buffers unlimited", e)
        return 0
    changed = 0
    for connection in connections:
        if connection.laddr.port != port or connection.status not in SERVING:
            continue
        try:
            # a second socket object on the same descriptor, detached so as not to close it
            served = socket.socket(fileno=connection.fd)
        except OSError:  # closed since it was listed
            continue
        try:
            served.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
            changed += 1
        except OSError:
            pass
        finally:
            served.detach()
    return changed


_HANDED_OUT: set[int] = set()
_HANDING_OUT = threading.Lock()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and that this process has
    not handed out before: callers that bind theirs later (a cluster's nodes, each
    with a dozen ports, started one after another) never get the same one."""
    with _HANDING_OUT:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in _HANDED_OUT:
                _HANDED_OUT.add(port)
                return port


def port_is_free(port: int) -> bool:
    """Whether nothing listens on TCP ``port`` (on any address: a server that binds every
    interface and one on the loopback block each other)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True
