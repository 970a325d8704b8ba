"""The ledger's tables, the same statements on SQLite and PostgreSQL."""

from __future__ import annotations

SCHEMA_VERSION = "1"


# Each table and index, created where missing. ``SERIAL_KEY`` stands for the
# database's auto-numbered primary key (SQLite's and PostgreSQL's spell it apart).
SERIAL_KEY = "<serial key>"
STATEMENTS = (
    """CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        balance BIGINT NOT NULL DEFAULT 0,
        held BIGINT NOT NULL DEFAULT 0,
        requests BIGINT NOT NULL DEFAULT 0,
        characters BIGINT NOT NULL DEFAULT 0,
        audio_ms BIGINT NOT NULL DEFAULT 0,
        spent BIGINT NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        CHECK (held >= 0 AND balance >= held)
    )""",
    """CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        secret_sha256 TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        revoked_at DOUBLE PRECISION
    )""",
    f"""CREATE TABLE IF NOT EXISTS ledger (
        id {SERIAL_KEY},
        project_id TEXT NOT NULL REFERENCES projects(id),
        kind TEXT NOT NULL CHECK (kind IN ('credit', 'charge')),
        amount BIGINT NOT NULL CHECK (amount >= 0),
        characters BIGINT NOT NULL DEFAULT 0,
        audio_ms BIGINT NOT NULL DEFAULT 0,
        request_id TEXT,
        note TEXT,
        created_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE UNIQUE INDEX IF NOT EXISTS ledger_one_charge_per_request
        ON ledger (request_id) WHERE kind = 'charge'""",
    """CREATE INDEX IF NOT EXISTS ledger_by_project ON ledger (project_id)""",
    """CREATE TABLE IF NOT EXISTS holds (
        request_id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id),
        amount BIGINT NOT NULL CHECK (amount >= 0),
        owner TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('open', 'settled', 'released')),
        characters BIGINT NOT NULL DEFAULT 0,
        audio_ms BIGINT NOT NULL DEFAULT 0,
        cost BIGINT NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS holds_open ON holds (state, owner)""",
    # Speech requests per key per clock minute, shared by every replica.
    """CREATE TABLE IF NOT EXISTS request_counts (
        key_id TEXT NOT NULL,
        minute BIGINT NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (key_id, minute)
    )""",
    # Seconds of synthesis each key's requests spent without making audio that was
    # heard, as a debt that drains at the key's budget (ledger.py, Ledger.hold).
    """CREATE TABLE IF NOT EXISTS unproductive_time (
        key_id TEXT PRIMARY KEY,
        debt_ms DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS owners (
        id TEXT PRIMARY KEY,
        heartbeat_at DOUBLE PRECISION NOT NULL
    )""",
    # A project's own voices (POST /v1/voices): a JSON definition each.
    """CREATE TABLE IF NOT EXISTS custom_voices (
        project_id TEXT NOT NULL REFERENCES projects (id),
        voice_id TEXT NOT NULL,
        definition TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (project_id, voice_id)
    )""",
    # Pronunciation dictionaries (dictionaries.py): versions are only ever added.
    """CREATE TABLE IF NOT EXISTS pronunciation_dictionaries (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        description TEXT,
        by_default BIGINT NOT NULL DEFAULT 0,
        latest_version TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE INDEX IF NOT EXISTS pronunciation_dictionaries_by_project
        ON pronunciation_dictionaries (project_id)""",
    # Long-form jobs (longform/jobs.py): a job's worst case is in projects.held until
    # its chunks are charged (a ledger row each: request_id names job and chunk).
    """CREATE TABLE IF NOT EXISTS longform_jobs (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        state TEXT NOT NULL CHECK (state IN ('running', 'done', 'cancelled', 'failed')),
        settings TEXT NOT NULL,
        chapters TEXT NOT NULL,
        characters BIGINT NOT NULL,
        characters_done BIGINT NOT NULL DEFAULT 0,
        audio_ms BIGINT NOT NULL DEFAULT 0,
        cost BIGINT NOT NULL DEFAULT 0,
        held BIGINT NOT NULL CHECK (held >= 0),
        chunks BIGINT NOT NULL,
        chunks_done BIGINT NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        error TEXT
    )""",
    """CREATE INDEX IF NOT EXISTS longform_jobs_by_project
        ON longform_jobs (project_id, created_at)""",
    """CREATE TABLE IF NOT EXISTS longform_chunks (
        job_id TEXT NOT NULL REFERENCES longform_jobs (id),
        idx BIGINT NOT NULL,
        chapter BIGINT NOT NULL,
        text TEXT NOT NULL,
        before_text TEXT NOT NULL,
        after_text TEXT NOT NULL,
        reserve BIGINT NOT NULL CHECK (reserve >= 0),
        state TEXT NOT NULL CHECK (state IN ('pending', 'working', 'done', 'cancelled')),
        owner TEXT,
        lease_until DOUBLE PRECISION,
        attempts BIGINT NOT NULL DEFAULT 0,
        audio_ms BIGINT NOT NULL DEFAULT 0,
        cost BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (job_id, idx)
    )""",
    """CREATE INDEX IF NOT EXISTS longform_chunks_to_do ON longform_chunks (state)""",
    # Each project's last turn at long-form work: projects with chunks to speak take turns.
    """CREATE TABLE IF NOT EXISTS longform_turns (
        project_id TEXT PRIMARY KEY REFERENCES projects (id),
        claimed_at DOUBLE PRECISION NOT NULL
    )""",
    # Webhooks (longform/webhooks.py): a project's signing secret; a job's webhook from the
    # job's creation ('waiting') through its end ('pending') to its delivery.
    # A project's own speech cache settings (serve_app/speech/cache/): NULL, the service's.
    """CREATE TABLE IF NOT EXISTS speech_cache_settings (
        project_id TEXT PRIMARY KEY REFERENCES projects (id),
        budget_mb BIGINT CHECK (budget_mb >= 0),
        ttl_s DOUBLE PRECISION CHECK (ttl_s > 0),
        updated_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS webhook_secrets (
        project_id TEXT PRIMARY KEY REFERENCES projects (id),
        secret TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS job_webhooks (
        job_id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        url TEXT NOT NULL,
        state TEXT NOT NULL
            CHECK (state IN ('waiting', 'pending', 'delivered', 'failed')),
        event_id TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        next_at DOUBLE PRECISION NOT NULL,
        owner TEXT,
        last_status BIGINT,
        last_error TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        sent_at DOUBLE PRECISION
    )""",
    """CREATE INDEX IF NOT EXISTS job_webhooks_due ON job_webhooks (state, next_at)""",
    """CREATE INDEX IF NOT EXISTS job_webhooks_by_project
        ON job_webhooks (project_id, state)""",
    """CREATE TABLE IF NOT EXISTS pronunciation_versions (
        id TEXT PRIMARY KEY,
        dictionary_id TEXT NOT NULL REFERENCES pronunciation_dictionaries (id),
        number BIGINT NOT NULL,
        rules TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        UNIQUE (dictionary_id, number)
    )""",
)


def schema_statements(serial_key: str) -> list[str]:
    """The statements that make the ledger's schema, for a database whose
    auto-numbered primary key is spelt ``serial_key``."""
    return [statement.replace(SERIAL_KEY, serial_key) for statement in STATEMENTS]
