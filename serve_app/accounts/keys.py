"""API keys: their format, how they are made, and the digest that is stored.

A key is ``sk-proj-<id>-<secret>``. The id is stored in clear (it names the key in
listings and logs); of the secret only a SHA-256 digest is stored. Secrets come
from the CSPRNG with 256 bits of entropy, so a fast digest is enough.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

SCOPES = ("speech", "usage")
_KEY_FORMAT = re.compile(r"^sk-proj-([A-Za-z0-9]{8,64})-([A-Za-z0-9_]{16,256})$")
DUMMY_DIGEST = hashlib.sha256(b"no such key").hexdigest()


def split_key(token: str) -> tuple[str, str]:
    """``(key_id, secret)`` of a token.

    A token not in the ``sk-proj-`` form (a development key chosen by hand) is
    named by a digest of the whole token, which is also its secret.
    """
    match = _KEY_FORMAT.match(token)
    if match:
        return match.group(1), match.group(2)
    return "h" + hashlib.sha256(token.encode()).hexdigest()[:31], token


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(stored_digest: str, secret: str) -> bool:
    """Constant-time comparison of a stored digest with a presented secret."""
    return hmac.compare_digest(stored_digest, digest(secret))


def new_key(prefix: str = "") -> str:
    """A fresh ``sk-proj-`` key; ``prefix`` (letters and digits) starts its id."""
    key_id = prefix + secrets.token_hex(8)
    secret = secrets.token_urlsafe(32).replace("-", "_")
    return f"sk-proj-{key_id}-{secret}"


def check_scopes(scopes: tuple[str, ...]) -> tuple[str, ...]:
    unknown = set(scopes) - set(SCOPES)
    if unknown or not scopes:
        raise ValueError(f"scopes must be some of {SCOPES}, got {scopes}")
    return tuple(s for s in SCOPES if s in scopes)
