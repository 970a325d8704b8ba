"""Request bodies read: JSON as the API reads it (depth-limited, NaN and huge
integers refused, no lone surrogates), then validated into a model, every problem an
:class:`~serve_app.http.errors.InvalidRequest` with the API's codes."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from serve_app.http.errors import InvalidRequest, from_validation_error
from serve_app.http.json_depth import MAX_DEPTH, nesting_depth

M = TypeVar("M", bound=BaseModel)


def parse_body(model: type[M], body: bytes) -> M:
    """``body`` parsed as JSON into ``model``; problems raise :class:`InvalidRequest`."""
    return validate(model, read_json(body))


# An integer with more digits than this is out of range of every field of ours. Past
# 4300 digits Python refuses to convert one at all (a ValueError, a 500): such a
# number is read as infinity, which every field's own check refuses with its name.
MAX_INTEGER_DIGITS = 64


def _integer(digits: str) -> int | float:
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        return float("-inf") if digits.startswith("-") else float("inf")
    return int(digits)


def _not_json(constant: str) -> float:
    raise InvalidRequest("invalid_json", f"{constant} is not a JSON number.")


def read_json(document: bytes | str, what: str = "request body") -> object:
    """``document`` as JSON (refused past ``MAX_DEPTH`` before parsing). Python's JSON
    reader is used, not pydantic's, so that problems get the API's codes: NaN and
    Infinity (which Python would accept) are not JSON; a number of thousands of
    digits is out of range; a lone surrogate escape is refused with where it was."""
    data = document.encode("utf-8", "surrogatepass") if isinstance(document, str) else document
    check_depth(data)
    try:
        parsed = json.loads(data, parse_int=_integer, parse_constant=_not_json)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InvalidRequest("invalid_json", f"The {what} is not valid JSON: {e}.") from None
    check_unicode(parsed)
    return parsed


def check_unicode(document: object, path: str = "") -> None:
    """Refuse a lone surrogate code point in any string of ``document``, key or value
    (400 ``invalid_value`` naming where): no text of ours can hold one, and it could
    not be written back in an error message or a header."""
    if isinstance(document, str):
        try:
            document.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidRequest(
                "invalid_value",
                f"Invalid value for '{path or 'body'}': text holds a lone surrogate code "
                f"point ({document!r:.80}); send valid Unicode.",
                path or None,
            ) from None
    elif isinstance(document, dict):
        for key, value in document.items():
            where = f"{path}.{key}" if path else str(key)
            check_unicode(key, where)
            check_unicode(value, where)
    elif isinstance(document, list):
        for i, value in enumerate(document):
            check_unicode(value, f"{path}.{i}" if path else str(i))


def validate(model: type[M], document: object) -> M:
    """``document`` as ``model``; problems raise :class:`InvalidRequest`."""
    try:
        return model.model_validate(document)
    except ValidationError as e:
        raise from_validation_error(e) from None


def check_depth(document: bytes) -> None:
    """Refuse a JSON document nested deeper than ``MAX_DEPTH`` (400 ``json_too_deep``)."""
    if nesting_depth(document) > MAX_DEPTH:
        raise InvalidRequest(
            "json_too_deep", f"The JSON nests deeper than {MAX_DEPTH} levels; ours never do."
        )
