"""A project's speech cache settings: its budget in each replica's cache and how long
its audio is heard (``serve_app.speech.cache``)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from serve_app.accounts import SpeechCacheSetting
from serve_app.http.errors import NotFound
from serve_app.surfaces.dependencies import State, UsageKey
from serve_app.surfaces.services import Services

router = APIRouter(prefix="/v1/account", tags=["Speech cache"])

MAX_TTL_S = 30 * 86_400.0


class SpeechCacheSettings(BaseModel):
    """What a project sets of the speech cache (null: as the service is set)."""

    model_config = ConfigDict(extra="forbid")

    budget_mb: int | None = Field(
        None,
        strict=True,  # a number, not true or "5"
        ge=0,
        le=1_000_000,
        description="The most of each ingress replica's speech cache (MB) the project's "
        "audio may take, its least recently used out first past it; 0: the project's "
        "speech is never cached (nor read from the cache).",
    )
    ttl_s: float | None = Field(
        None,
        strict=True,
        gt=0,
        le=MAX_TTL_S,
        description="How long the project's audio is heard from the cache (at most 30 days).",
    )


class SpeechCacheView(SpeechCacheSettings):
    object: Literal["speech_cache"] = "speech_cache"
    service_budget_mb: int = Field(description="Each replica's whole cache (MB).")
    service_ttl_s: float = Field(description="The service's time to live.")
    bytes: int = Field(description="What the project's audio takes in the replica that answered.")


def _view(state: Services, project: str, setting: SpeechCacheSetting) -> SpeechCacheView:
    cache = state.speech.cache
    if cache is None:
        raise NotFound("not_found", "This service has no speech cache (speech_cache_mb 0).")
    return SpeechCacheView(
        budget_mb=setting.budget_mb,
        ttl_s=setting.ttl_s,
        service_budget_mb=state.config.speech_cache_mb,
        service_ttl_s=state.config.speech_cache_ttl_s,
        bytes=cache.memory.project_bytes(project),
    )


@router.get("/speech_cache")
async def speech_cache_settings(key: UsageKey, state: State) -> SpeechCacheView:
    """The project's speech cache settings; a project key only (its `usage` scope)."""
    cache = state.speech.cache
    setting = await cache.setting_of(key.project_id) if cache is not None else None
    return _view(state, key.project_id, setting or SpeechCacheSetting())


@router.put("/speech_cache")
async def set_speech_cache_settings(
    body: SpeechCacheSettings, key: UsageKey, state: State
) -> SpeechCacheView:
    """Set the project's speech cache settings (both fields, null for the service's).
    Heard at once through the replica that answers, within 30 s through the others; a
    budget of 0 forgets the project's audio at once."""
    cache = state.speech.cache
    if cache is None or cache.projects is None:
        raise NotFound("not_found", "This service has no speech cache (speech_cache_mb 0).")
    setting = SpeechCacheSetting(body.budget_mb, body.ttl_s)
    await cache.projects.set(key.project_id, setting)
    if setting.budget_mb == 0:
        cache.forget(key.project_id)
    return _view(state, key.project_id, setting)
