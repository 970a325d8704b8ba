"""Bearer (or xi-api-key) authentication and key scopes, as FastAPI dependencies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated

from fastapi import Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from serve_app.accounts import AccountStore, ApiKey
from serve_app.http.errors import AuthenticationFailed, PermissionDenied

# Documents the scheme only; the header is read and judged by Authenticator, so that
# every failure gets the API's own error codes.
BEARER = HTTPBearer(
    scheme_name="bearer",
    bearerFormat="sk-proj-<id>-<secret>",
    description="A project's key: `Authorization: Bearer sk-proj-...`",
    auto_error=False,
)


XI_API_KEY = APIKeyHeader(
    name="xi-api-key",
    scheme_name="xi-api-key",
    description="The same key as ElevenLabs' clients send it (accepted on every route)",
    auto_error=False,
)


def authorization_of(headers: Mapping[str, str]) -> str | None:
    """The key a request carries, as an ``Authorization`` value: that header, or
    ElevenLabs' ``xi-api-key`` (accepted wherever a bearer key is)."""
    authorization = headers.get("authorization")
    if authorization is None and (xi_key := headers.get("xi-api-key")):
        return f"Bearer {xi_key}"
    return authorization


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` value."""
    if not authorization or authorization.strip().lower() == "bearer":
        raise AuthenticationFailed(
            "missing_api_key", "Send your API key as 'Authorization: Bearer <API_KEY>'."
        )
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise AuthenticationFailed(
            "invalid_api_key", "The Authorization header must be 'Bearer <API_KEY>'."
        )
    return token


class Authenticator:
    """Checks keys against the account store; never echoes a key back."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store

    async def authenticate(self, authorization: str | None) -> ApiKey:
        token = bearer_token(authorization)
        key = await self._store.call(self._store.authenticate, token)
        if key is None:
            raise AuthenticationFailed("invalid_api_key", "The API key is not valid.")
        return key

    async def authorise(self, authorization: str | None, scope: str | None) -> ApiKey:
        """The caller's key if it has ``scope`` (None: any key): the one rule for HTTP
        and WebSocket alike."""
        key = await self.authenticate(authorization)
        if scope is not None and scope not in key.scopes:
            raise PermissionDenied(
                "key_scope", f"This API key lacks the '{scope}' scope this endpoint needs."
            )
        return key

    async def project_of(self, headers: Mapping[str, str]) -> str | None:
        """The project of the key ``headers`` carry, None if they carry none (a key
        that is sent must be valid)."""
        authorization = authorization_of(headers)
        if authorization is None:
            return None
        return (await self.authorise(authorization, None)).project_id

    def require(self, scope: str | None) -> Callable[..., Awaitable[ApiKey]]:
        """A dependency that yields the caller's key if it has ``scope`` (None: any key).
        The OpenAPI document shows it as bearer security (or xi-api-key)."""
        return key_with_scope(scope, lambda _: self)


def key_with_scope(
    scope: str | None, authenticator: Callable[[Request], Authenticator]
) -> Callable[..., Awaitable[ApiKey]]:
    """A dependency that yields the caller's key if it has ``scope``, judged by the
    ``authenticator`` of the request (a module-level route finds it in the app)."""

    async def dependency(
        request: Request,
        _: Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)],
        __: Annotated[str | None, Security(XI_API_KEY)],
    ) -> ApiKey:
        return await authenticator(request).authorise(authorization_of(request.headers), scope)

    return dependency
