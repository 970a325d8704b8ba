"""Startup settings of the ingress: limits, prices, paths, the model's name."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
ENV_PREFIX = "TTS_"

DEFAULT_MODEL_ID = "service-v1"
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)
# pcm without a sample_rate: what OpenAI's clients (and most players of raw PCM) assume,
# whatever the voice's own rate (docs/api/http.md); other formats keep the voice's.
PCM_DEFAULT_RATE = 24000


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
    compat_path: str = Field(
        str(CONFIGS / "compat.yaml"),
        description="Model and voice names of other APIs' clients taken as ours.",
    )
    database_url: str = Field(
        "sqlite:///var/ledger.sqlite3",
        description="sqlite:///PATH (relative to the project root) or postgresql://...",
    )
    max_input_chars: int = Field(4096, gt=0)
    max_spoken_chars: int = Field(
        16_384,
        gt=0,
        description="Characters a voice may be given for one input after normalisation "
        "(numbers, dates, symbols read out in words can make a text several times longer).",
    )
    max_body_bytes: int = Field(1 << 20, gt=0)
    price_per_character_deci_micros: int = Field(150, ge=0)
    price_per_request_deci_micros: int = Field(0, ge=0)
    dev_api_key: str | None = None
    dev_starting_balance_deci_micros: int = Field(100_000_000, ge=0)
    rate_limit_per_minute: int = Field(
        600,
        ge=0,
        description="Speech requests and WebSocket sessions one key may start per clock "
        "minute, counted in the ledger (every replica shares the count); 0: no limit.",
    )
    unproductive_seconds_per_minute: int = Field(
        120,
        ge=0,
        description="Seconds of synthesis a key's requests may spend a minute on average "
        "without making audio the client receives (a request that makes no sound or is "
        "abandoned before its first audio spends the seconds it ran; a failure of the "
        "service's own spends nothing), in "
        "bursts of one minute's worth, shared by every replica; past it the key's new "
        "requests get 429 rate_limited until the debt drains. 0: no budget.",
    )
    max_active_requests: int = Field(
        96, gt=0, description="Speech requests and sessions one replica serves at once."
    )
    speech_cache_mb: int = Field(
        256,
        ge=0,
        description="Memory each ingress replica keeps spoken sentences in (the speech "
        "cache: a project's repeated prompts heard again without synthesis), least "
        "recently used out first; 256 holds about 45 minutes of 24 kHz speech. 0: no "
        "cache.",
    )
    speech_cache_ttl_s: float = Field(
        86_400.0, gt=0, description="How long a sentence's audio stays in the speech cache."
    )
    speech_cache_shared: bool = Field(
        True,
        description="Keep the speech cache's audio also in the long-form jobs' audio store "
        "(longform_audio_path, under speech-cache/): what one ingress replica spoke, every "
        "replica that reaches the store hears from the cache. False: each replica's "
        "memory only.",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Browser origins (https://app.example.com) allowed to call the API "
        "from their pages (CORS) and to open WebSockets; a page of the service itself "
        "always may. TTS_ALLOWED_ORIGINS: comma-separated. Empty: no other origin.",
    )
    ws_max_message_bytes: int = Field(65_536, gt=0)
    ws_max_messages_per_s: float = Field(
        100.0,
        gt=0,
        description="Client messages a WebSocket session may send a second on average "
        "(bursts of twice that); past it the session ends with rate_limited.",
    )
    ws_max_buffered_chars: int = Field(8_192, gt=0)
    ws_max_contexts: int = Field(
        8,
        gt=0,
        description="Contexts one multi-context WebSocket may have open at once (ElevenLabs "
        "allows 5); each past the first also takes an admission place, as a request does.",
    )
    ws_max_session_s: float = Field(
        3600.0,
        gt=0,
        description="How long a WebSocket session may last: past it no more text is taken, "
        "what was sent is spoken, and the socket closes (1000).",
    )
    ws_auth_timeout_s: float = Field(
        5.0,
        gt=0,
        description="A WebSocket without a key in its upgrade request must send it in a "
        "first message within this many seconds, or it is closed (401 missing_api_key).",
    )
    ws_max_unauthenticated_per_address: int = Field(
        32,
        gt=0,
        description="WebSockets one client address may have waiting for their key at once, "
        "per replica; more are closed (429 rate_limited). A socket costs no admission "
        "place until its key is shown.",
    )
    hold_lease_s: float = Field(
        30.0, gt=0, description="A replica silent this long has its open holds settled."
    )
    first_audio_wait_s: float = Field(
        60.0,
        gt=0,
        description="How long a live request waits for its first audio from the Synthesiser "
        "deployment, a replica starting from zero included (a GPU config lets it scale to "
        "zero when idle); past it: 503 overloaded with Retry-After, nothing billed. A "
        "long-form job's chunk waits its turn behind live requests as long as it takes.",
    )
    send_timeout_s: float = Field(
        30.0,
        gt=0,
        description="A client that takes none of the audio it is sent (HTTP) or of its "
        "messages (WebSocket) for this long is disconnected; what it took is billed.",
    )
    send_buffer_bytes: int = Field(
        131_072,
        ge=4096,
        description="The kernel's send buffer of each client socket: how far the service "
        "may run ahead of a reader that stops reading (Linux would grow it to megabytes).",
    )
    progress_interval_s: float = Field(
        1.0, gt=0, description="How often a stream records what it has delivered."
    )

    longform_max_characters: int = Field(
        500_000, gt=0, description="Characters of text one long-form job may hold."
    )
    longform_max_body_bytes: int = Field(
        4 << 20,
        gt=0,
        description="The largest body of a long-form job's request (its text, JSON-escaped).",
    )
    webhook_private_addresses: bool = Field(
        False,
        description="Whether jobs' webhooks may go to loopback, private and link-local "
        "addresses (a receiver on this machine or network). Off: a key's owner cannot make "
        "the service call into the network it runs in.",
    )
    longform_max_running_jobs: int = Field(
        2, gt=0, description="Long-form jobs one project may have running at once."
    )
    longform_chunks_at_once: int = Field(
        2,
        ge=0,
        description="Chunks of long-form jobs each ingress replica has spoken at once (by "
        "the Synthesiser replicas, behind live requests); 0: this replica speaks none.",
    )
    longform_audio_path: str = Field(
        "var/longform",
        description="Where long-form jobs keep their audio: a folder every ingress replica "
        "reaches (relative to the project root), or an S3-compatible store, "
        "s3://bucket/prefix (credentials from the environment: AWS_ACCESS_KEY_ID, "
        "AWS_SECRET_ACCESS_KEY, or what else boto3 reads).",
    )
    longform_s3_endpoint_url: str | None = Field(
        None,
        description="The S3-compatible server of an s3:// longform_audio_path other than "
        "AWS's (MinIO, Ceph, R2, ...), e.g. http://minio.storage:9000.",
    )
    longform_keep_s: float = Field(
        7 * 24 * 3600.0,
        gt=0,
        description="How long an ended long-form job and its audio are kept, then deleted.",
    )

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _exact_origins(cls, value: list[str]) -> list[str]:
        """Exact origins only: a wildcard would let any page spend a user's key."""
        for origin in value:
            if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:\d+)?", origin):
                raise ValueError(f"{origin!r} is not an origin (scheme://host[:port])")
        return value

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


# A reference fits a request body (1 MiB by default): 20 s of 16 kHz 16-bit mono WAV
# is 640 kB, 853 kB in base64.
MAX_REFERENCE_B64_CHARS = 900_000


REFERENCE_SECONDS = (1.0, 20.0)


REFERENCE_LIMITS = {
    "encoding": "base64 WAV (RIFF), any sample rate, mono or stereo",
    "min_seconds": REFERENCE_SECONDS[0],
    "max_seconds": REFERENCE_SECONDS[1],
    "max_base64_characters": MAX_REFERENCE_B64_CHARS,
}
