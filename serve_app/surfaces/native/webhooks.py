"""The project's webhook signing secret: what a receiver of its jobs' webhooks checks
their signatures with (``serve_app.speech.webhooks``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from serve_app.accounts import ApiKey
from serve_app.http.auth import key_with_scope
from serve_app.surfaces.native.jobs import services

router = APIRouter(prefix="/v1/account", tags=["Long-form jobs"])
UsageKey = Annotated[ApiKey, Depends(key_with_scope("usage", lambda r: services(r).auth))]


class WebhookSecret(BaseModel):
    object: Literal["webhook_secret"] = "webhook_secret"
    secret: str = Field(
        description="whsec_ and 32 bytes in base64: the key of every webhook signature "
        "(Standard Webhooks' HMAC-SHA256) of this project's jobs."
    )


@router.get("/webhook_secret")
async def webhook_secret(key: UsageKey, request: Request) -> WebhookSecret:
    """The project's webhook signing secret, made on first asking; a project key only
    (its `usage` scope), as the usage is."""
    store = services(request).store
    return WebhookSecret(secret=await store.call(store.webhook_secret, key.project_id))
