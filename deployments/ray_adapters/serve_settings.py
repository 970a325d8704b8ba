"""Serve's settings as this process read them (``ray.serve._private.constants``).

Serve reads its environment once, when it is imported, into module constants,
``RAY_SERVE_THROUGHPUT_OPTIMIZED`` setting the defaults of several others. No public
API reports the values in force, and reading the environment again would write
Ray's rules for those defaults a second time.
"""

from __future__ import annotations


def serve_setting(name: str) -> bool:
    """The value Serve runs with for the boolean setting ``name`` (its variable's name,
    ``RAY_SERVE_...``); AttributeError where this Serve has no such setting."""
    from ray.serve._private import constants

    return bool(getattr(constants, name))
