"""The service's one exception hierarchy and its single mapping to the wire.

Every non-2xx body is ``{"error": {"message", "type", "code", "param", "request_id"}}``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

logger = logging.getLogger("serve_app")


class ServiceError(Exception):
    """An error the client sees; subclasses fix the HTTP status and the error type."""

    status: ClassVar[int] = 500
    type: ClassVar[str] = "server_error"

    def __init__(
        self,
        code: str,
        message: str,
        param: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        message = _writable(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.param = _writable(param) if param is not None else None
        self.headers = dict(headers or {})

    def body(self, request_id: str) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "code": self.code,
                "param": self.param,
                "request_id": request_id,
            }
        }


def _writable(text: str) -> str:
    """``text`` with lone surrogates written as escapes: a message or a param may quote
    what the client sent, and every error body must encode as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class InvalidRequest(ServiceError):
    status = 400
    type = "invalid_request_error"


class AuthenticationFailed(ServiceError):
    status = 401
    type = "authentication_error"


class InsufficientBalance(ServiceError):
    status = 402
    type = "billing_error"


class PermissionDenied(ServiceError):
    status = 403
    type = "permission_error"


class NotFound(ServiceError):
    status = 404
    type = "not_found_error"


class MethodNotAllowed(ServiceError):
    status = 405
    type = "invalid_request_error"


class BodyTooLarge(ServiceError):
    status = 413
    type = "invalid_request_error"


class RateLimited(ServiceError):
    status = 429
    type = "rate_limit_error"


class Overloaded(ServiceError):
    status = 503
    type = "overloaded_error"


class InternalError(ServiceError):
    status = 500
    type = "server_error"

    def __init__(self, message: str = "The server failed to process the request.") -> None:
        super().__init__("internal_error", message)


def proxy_error(status: int) -> ServiceError:
    """The error the proxy in front of the ingress answers for an HTTP status of its
    own (``serve_app.ingress.haproxy``): too many connections, no replica to take the request
    (502, 503, 504: ``not_ready``)."""
    retry = {"Retry-After": "1"}
    errors: dict[int, ServiceError] = {
        403: PermissionDenied("forbidden", "The request was refused."),
        404: NotFound("not_found", "No such path."),
        405: MethodNotAllowed("method_not_allowed", "Method not allowed on this path."),
        413: BodyTooLarge("body_too_large", "The request is too large."),
        429: RateLimited(
            "rate_limited",
            "Too many connections from your address at once; close some, then retry.",
            headers=retry,
        ),
    }
    if status in (502, 503, 504):
        return Overloaded(
            "not_ready",
            "No replica can take the request now (starting or restarting); retry shortly.",
            headers=retry,
        )
    return errors.get(status, InternalError())


def request_id_of(request: Request) -> str:
    return str(getattr(request.state, "request_id", ""))


def error_response(error: ServiceError, request_id: str) -> JSONResponse:
    headers = {"cache-control": "no-store", **error.headers}
    return JSONResponse(error.body(request_id), status_code=error.status, headers=headers)


_VALIDATION_CODES = {
    "json_invalid": "invalid_json",
    "extra_forbidden": "unknown_field",
    "missing": "missing_field",
}


def from_validation_error(exc: RequestValidationError | ValidationError) -> ServiceError:
    """The first problem pydantic found, as an ``invalid_request_error``."""
    first = exc.errors()[0]
    loc = [str(part) for part in first.get("loc", ())]
    if loc and loc[0] in ("body", "query", "path", "header"):  # the name as the client wrote it
        loc = loc[1:]
    param = ".".join(loc) or None
    kind = first.get("type", "")
    code = _VALIDATION_CODES.get(kind, "invalid_value")
    if kind == "json_invalid":
        return InvalidRequest(code, "The request body is not valid JSON.")
    if param is None:
        return InvalidRequest("invalid_json", "The request body must be a JSON object.")
    if kind == "extra_forbidden":
        return InvalidRequest(code, f"Unknown field '{param}'.", param)
    if kind == "missing":
        return InvalidRequest(code, f"The field '{param}' is required.", param)
    return InvalidRequest(
        code, f"Invalid value for '{param}': {first.get('msg', 'invalid')}.", param
    )


def allowed_methods(request: Request) -> list[str]:
    """The methods of every route whose path matches ``request``'s; where a route's
    path is the request's word for word (``/v1/pronunciation-dictionaries/add-from-file``),
    only those: a path is the literal route's, not a value of ``/{id}``'s."""
    matching = [
        route
        for route in _routes(request.app.router)
        if getattr(route, "methods", None) and route.matches(request.scope)[0] != Match.NONE
    ]
    literal = [r for r in matching if getattr(r, "path", None) == request.url.path]
    methods: set[str] = set()
    for route in literal or matching:
        methods.update(route.methods)
    return sorted(methods)


def _routes(router: Any) -> Iterator[Any]:
    """Every route of ``router``, those of the routers it includes too (FastAPI keeps an
    included router as one entry that holds it, as ``original_router``; ours are
    included without a prefix of their own)."""
    for route in router.routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _routes(included)
        else:
            yield route


def install_error_handlers(app: FastAPI, on_error: Callable[[str], None]) -> None:
    """Map every exception to the API's error shape; the only place that does.
    ``on_error`` hears the code of every error answered (for the metrics)."""

    def respond(error: ServiceError, request: Request) -> JSONResponse:
        on_error(error.code)
        return error_response(error, request_id_of(request))

    async def on_service_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServiceError)
        return respond(exc, request)

    async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return respond(from_validation_error(exc), request)

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        error: ServiceError
        if exc.status_code == 405:
            # Allow: every method the path has (RFC 9110), over all its routes (Starlette
            # names only the first route's)
            allowed = allowed_methods(request)
            error = MethodNotAllowed(
                "method_not_allowed",
                "Method not allowed on this path.",
                headers={"Allow": ", ".join(allowed)} if allowed else exc.headers,
            )
        elif exc.status_code == 404:
            error = NotFound("not_found", f"No route {request.url.path}.")
        elif exc.status_code == 400:  # a body Starlette could not parse (a broken form)
            error = InvalidRequest("invalid_value", f"The request could not be read: {exc.detail}")
        else:
            error = InternalError()
        return respond(error, request)

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error in request %s", request_id_of(request))
        return respond(InternalError(), request)

    app.add_exception_handler(ServiceError, on_service_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected)
