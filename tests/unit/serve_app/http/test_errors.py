"""Reading JSON and writing errors: hostile documents get the API's 400s, never a 500."""

from __future__ import annotations

import json

import pytest

from serve_app.http.body import read_json
from serve_app.http.errors import InvalidRequest, ServiceError


@pytest.mark.parametrize("digits", [65, 4_301, 100_000])
def test_a_number_of_thousands_of_digits_is_out_of_range_not_a_crash(digits: int) -> None:
    assert read_json(b'{"n": ' + b"9" * digits + b"}") == {"n": float("inf")}
    assert read_json(b'{"n": -' + b"9" * digits + b"}") == {"n": float("-inf")}
    assert read_json(b'{"n": 123}') == {"n": 123}


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        read_json(f'{{"speed": {constant}}}'.encode())
    assert refused.value.code == "invalid_json"


@pytest.mark.parametrize(
    ("document", "param"),
    [
        (b'{"language": "\\ud800"}', "language"),
        (b'{"voice_settings": {"x": ["ok", "\\udfff"]}}', "voice_settings.x.1"),
        (b'{"\\ud83d": 1}', "\\ud83d"),
    ],
)
def test_a_lone_surrogate_anywhere_is_refused_with_where(document: bytes, param: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        read_json(document)
    error = refused.value
    assert (error.code, error.param) == ("invalid_value", param)
    json.dumps(error.body("r"), ensure_ascii=False).encode("utf-8")  # writable as UTF-8
    assert "surrogate" in error.message


def test_an_error_quoting_a_surrogate_is_escaped() -> None:
    error = ServiceError("x", "No voice 'a\ud800'.", "v\udc00")
    assert error.message == "No voice 'a\\ud800'." and error.param == "v\\udc00"
