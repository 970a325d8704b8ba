import json

import pytest

from serve_app.http.json_depth import nesting_depth


@pytest.mark.parametrize(
    "document",
    [
        b"5",
        b'"[[[["',
        b'{"a": [1, {"b": "]]]}"}], "c": {}}',
        b'{"t": "\\"[[", "u": [[]]}',
        b"[" * 40 + b"]" * 40,
    ],
)
def test_depth_matches_the_parsed_document(document: bytes) -> None:
    def depth(value: object) -> int:
        if isinstance(value, dict):
            return 1 + max(map(depth, value.values()), default=0)
        if isinstance(value, list):
            return 1 + max(map(depth, value), default=0)
        return 0

    assert nesting_depth(document) == depth(json.loads(document))
