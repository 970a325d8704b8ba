"""The project's webhook signing secret: what a receiver of its jobs' webhooks checks
their signatures with (``serve_app.speech.longform.webhooks``)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from serve_app.surfaces.dependencies import State, UsageKey

router = APIRouter(prefix="/v1/account", tags=["Long-form jobs"])


class WebhookSecret(BaseModel):
    object: Literal["webhook_secret"] = "webhook_secret"
    secret: str = Field(
        description="whsec_ and 32 bytes in base64: the key of every webhook signature "
        "(Standard Webhooks' HMAC-SHA256) of this project's jobs."
    )


@router.get("/webhook_secret")
async def webhook_secret(key: UsageKey, state: State) -> WebhookSecret:
    """The project's webhook signing secret, made on first asking; a project key only
    (its `usage` scope), as the usage is."""
    return WebhookSecret(secret=await state.jobs.webhook_secret(key.project_id))
