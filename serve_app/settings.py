"""Startup settings of the ingress: limits, prices, paths, the model's name."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
ENV_PREFIX = "TTS_"

DEFAULT_MODEL_ID = "service-v1"
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)
QUALITY_MP3_KBPS = {"fast": 48, "balanced": 64, "high": 128}


class IngressConfig(BaseModel):
    """What the Ingress deployment starts with.

    Every field can be set in the Serve config's ``args`` or, when absent there,
    from the environment as ``TTS_<FIELD>`` (``TTS_DATABASE_URL``,
    ``TTS_DEV_API_KEY``, ...).
    """

    model_config = ConfigDict(extra="forbid")

    model_id: str = DEFAULT_MODEL_ID
    model_owner: str = "service"
    language_policy_path: str = str(CONFIGS / "language_policy.yaml")
    database_url: str = Field(
        "sqlite:///var/ledger.sqlite3",
        description="sqlite:///PATH (relative to the project root) or postgresql://...",
    )
    max_input_chars: int = Field(4096, gt=0)
    max_body_bytes: int = Field(1 << 20, gt=0)
    price_per_character_deci_micros: int = Field(150, ge=0)
    price_per_request_deci_micros: int = Field(0, ge=0)
    dev_api_key: str | None = None
    dev_starting_balance_deci_micros: int = Field(100_000_000, ge=0)
    max_active_requests: int = Field(
        96, gt=0, description="Speech requests and sessions one replica serves at once."
    )
    ws_max_message_bytes: int = Field(65_536, gt=0)
    ws_max_buffered_chars: int = Field(8_192, gt=0)
    hold_lease_s: float = Field(
        30.0, gt=0, description="A replica silent this long has its open holds settled."
    )
    progress_interval_s: float = Field(
        1.0, gt=0, description="How often a stream records what it has delivered."
    )

    @classmethod
    def from_env(cls, **overrides: object) -> IngressConfig:
        """Settings from ``overrides`` first, then ``TTS_*`` variables, then defaults."""
        values: dict[str, object] = {}
        for name in cls.model_fields:
            env = os.environ.get(ENV_PREFIX + name.upper())
            if env is not None:
                values[name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)
