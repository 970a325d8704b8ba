"""What the account store hands out and refuses with: keys, projects, usage, and the
exceptions of holds and rates."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel


class RateExceeded(Exception):
    """A key has made its requests for this minute, or (``unproductive``) spent its
    budget of synthesis that made no audio."""

    def __init__(self, retry_after_s: int, unproductive: bool = False) -> None:
        super().__init__(f"retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s
        self.unproductive = unproductive


@dataclass(frozen=True)
class RateLimit:
    """At most ``per_minute`` requests of key ``key_id`` in each clock minute (0: no
    count), and synthesis that made no audio at most ``unproductive_ms_per_minute`` on
    average (0: no budget), in bursts of one minute's worth."""

    key_id: str
    per_minute: int
    unproductive_ms_per_minute: int = 0


class InsufficientFunds(Exception):
    """The available balance (balance minus open holds) cannot cover a hold."""

    def __init__(self, available: int, needed: int) -> None:
        super().__init__(f"available {available}, needed {needed}")
        self.available = available
        self.needed = needed


class UnknownProject(LookupError):
    pass


class KeyRevoked(Exception):
    """The key a hold is being extended for has been revoked since it was shown."""


@dataclass(frozen=True)
class ApiKey:
    """An authenticated key: which project it spends for and what it may do."""

    key_id: str
    project_id: str
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class KeyRecord:
    key_id: str
    project_id: str
    scopes: tuple[str, ...]
    created_at: float
    revoked_at: float | None


@dataclass(frozen=True)
class Usage:
    balance: int
    held: int
    requests: int
    characters: int
    audio_ms: int
    spent: int


@dataclass(frozen=True)
class Project:
    id: str
    name: str
    usage: Usage


class UsageTotals(BaseModel):
    requests: int
    characters: int
    audio_ms: int
    spent_deci_micros: int


class UsageResponse(BaseModel):
    balance_deci_micros: int
    usage: UsageTotals

    @classmethod
    def of(cls, usage: Usage) -> UsageResponse:
        """The API's usage object for a project's ledger totals."""
        return cls(
            balance_deci_micros=usage.balance,
            usage=UsageTotals(
                requests=usage.requests,
                characters=usage.characters,
                audio_ms=usage.audio_ms,
                spent_deci_micros=usage.spent,
            ),
        )
