"""One byte range of a Range header, as RFC 9110 reads it."""

from __future__ import annotations

import pytest

from serve_app.http.ranges import RangeNotSatisfiable, byte_range


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("bytes=0-99", (0, 100)),
        ("bytes=100-", (100, 1000)),
        ("bytes=-100", (900, 1000)),
        ("bytes=-5000", (0, 1000)),  # more than there is: all of it
        ("bytes=900-5000", (900, 1000)),  # the end past the size: up to the end
        (" Bytes = 10-19", (10, 20)),
        ("bytes=0-0,10-19", None),  # several ranges: the whole, as the RFC allows
        ("items=0-9", None),  # another unit
        ("bytes=9-0", None),  # not a range
        ("bytes=a-b", None),
        ("bytes", None),
        # not RFC 9110's digits, though Python's int() reads them: the whole, as unparsed
        ("bytes=1_0-2_0", None),
        ("bytes=+1-+3", None),
        ("bytes=--5", None),
        ("bytes=-+5", None),
        ("bytes= 1 - 3", None),
        ("bytes=\u0661-\u0663", None),  # Arabic-Indic digits
        ("bytes=-", None),
        ("bytes=0x10-", None),
    ],
)
def test_a_range_is_the_bytes_it_names(header: str | None, expected: object) -> None:
    assert byte_range(header, 1000) == expected


@pytest.mark.parametrize("header", ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
def test_a_range_past_the_end_is_416_with_the_size(header: str) -> None:
    with pytest.raises(RangeNotSatisfiable) as refused:
        byte_range(header, 1000)
    assert refused.value.status == 416 and refused.value.code == "range_not_satisfiable"
    assert refused.value.headers == {"Content-Range": "bytes */1000"}
