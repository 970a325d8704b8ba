"""Accounts: projects, API keys, and the balance ledger (SQLite or PostgreSQL)."""

from serve_app.accounts.keys import SCOPES, new_key, split_key
from serve_app.accounts.records import (
    ApiKey,
    InsufficientFunds,
    KeyRecord,
    KeyRevoked,
    Project,
    RateExceeded,
    RateLimit,
    UnknownProject,
    Usage,
)
from serve_app.accounts.speech_cache import AS_THE_SERVICE, SpeechCacheSetting
from serve_app.accounts.store import AccountStore, ensure_dev_project

__all__ = [
    "AS_THE_SERVICE",
    "SCOPES",
    "AccountStore",
    "ApiKey",
    "InsufficientFunds",
    "KeyRecord",
    "KeyRevoked",
    "Project",
    "RateExceeded",
    "RateLimit",
    "SpeechCacheSetting",
    "UnknownProject",
    "Usage",
    "ensure_dev_project",
    "new_key",
    "split_key",
]
