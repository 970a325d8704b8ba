"""What a route is given: the services of the app it is attached to (the ingress puts
them in ``app.state.services``) and the caller's key of a scope. Routes live at module
level on an ``APIRouter`` and ask for these as parameters, so each handler can be
imported, and called, on its own."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from serve_app.accounts import ApiKey
from serve_app.http.auth import Authenticator, key_with_scope
from serve_app.surfaces.services import Services


def services(connection: HTTPConnection) -> Services:
    """The services of the app that ``connection`` (a request or a WebSocket) reached."""
    found: Services = connection.app.state.services
    return found


def _authenticator(request: Request) -> Authenticator:
    return services(request).auth


State = Annotated[Services, Depends(services)]
SpeechKey = Annotated[ApiKey, Depends(key_with_scope("speech", _authenticator))]
UsageKey = Annotated[ApiKey, Depends(key_with_scope("usage", _authenticator))]
# a route that any valid key may call, and that does not use the key
ANY_KEY = Depends(key_with_scope(None, _authenticator))
