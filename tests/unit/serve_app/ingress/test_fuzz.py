"""Hostile input, generated: every POST route of the OpenAPI document and the first
messages of the WebSockets get JSON with numbers of thousands of digits, lone
surrogates, invisible and combining characters, deep and wide nesting, and
documents that are not JSON at all. Whatever comes in, the answer is the API's:
no 5xx and no 1011, and every error has the API's shape with a stable code."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from serve_app.ingress.api import create_app
from tests.unit.serve_app.conftest import DEV_KEY, make_state

AUTH = {"Authorization": f"Bearer {DEV_KEY}", "xi-api-key": DEV_KEY}
FAST_VOICE = "hi-espeak-aditi"  # what a valid request speaks: eSpeak, in milliseconds
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class Raw(str):
    """JSON text written as it is: a number no Python value serialises to."""


def dumps(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # a lone surrogate: invalid UTF-8 on the wire


INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u202e\u0301\u0308\u094d\ufe0f\U000e0001\U000f0000"
huge_numbers = st.builds(
    lambda sign, digits, tail: Raw(sign + "9" * digits + tail),
    st.sampled_from(["", "-"]),
    st.integers(20, 6000),
    st.sampled_from(["", ".5", "e999", "e-999", "E+400"]),
)
hostile_text = st.one_of(
    st.text(max_size=12),
    st.text(st.characters(categories=["Cs", "Co", "Cn", "Cf", "Mn"]), max_size=12),
    st.builds(lambda w, n, c: w + c * n, st.sampled_from(["hello", "नमस्ते", ""]),
              st.integers(1, 3000), st.sampled_from(list(INVISIBLE))),
)  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    huge_numbers,
    hostile_text,
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12,
)
deep = st.integers(50, 3000).map(lambda n: Raw("[" * n + "1" + "]" * n))
wide = st.integers(1000, 20000).map(lambda n: Raw("[" + ",".join(["0"] * n) + "]"))
not_json = st.sampled_from(
    ["", "{", "[1,]", "{'a': 1}", "NaN", '{"speed": NaN}', '{"speed": Infinity}', "\x00", "null"]
)


def bodies(fields: list[str], valid: dict[str, Any]) -> st.SearchStrategy[str]:
    """A route's body: its own fields, some valid and some hostile, and extra keys;
    or a document that is deep, wide or no JSON at all."""
    good = st.sampled_from(list(valid.values()) or [None])
    field_values = st.one_of(values, good, good)
    documents = st.fixed_dictionaries(
        {},
        optional=dict.fromkeys(fields, field_values)
        | dict.fromkeys(["input", "text"], hostile_text),
    ).map(lambda d: {**valid, **d})
    return st.one_of(
        *[documents.map(dumps)] * 4,  # mostly near-valid: where the checks are
        st.tuples(documents, st.sampled_from(fields), deep | wide).map(
            lambda t: dumps({**t[0], t[1]: t[2]})
        ),
        st.dictionaries(hostile_text, values, max_size=3).map(dumps),
        deep.map(str),
        wide.map(str),
        not_json,
    )


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    return TestClient(create_app(make_state(Path(tmp_path_factory.mktemp("fuzz")))))


def post_routes(client: TestClient) -> list[tuple[str, list[str]]]:
    document = client.app.openapi()  # type: ignore[attr-defined]
    schemas = document["components"]["schemas"]
    routes = []
    for path, operations in document["paths"].items():
        body = operations.get("post", {}).get("requestBody", {}).get("content", {})
        schema = body.get("application/json", {}).get("schema", {})
        if "$ref" in schema:
            schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
        routes.append((path.replace("{voice_id}", FAST_VOICE), list(schema.get("properties", {}))))
    return [route for route in routes if route[1]]


def assert_api_answer(status: int, body: bytes) -> None:
    assert status < 500, body[:300]
    if status >= 400:
        error = json.loads(body)["error"]
        assert error["code"] and set(error["code"]) <= set(string.ascii_lowercase + "_"), error


POST_ROUTES = 7  # with a JSON body; a new one: raise this, and it is fuzzed too


def test_every_post_route_is_fuzzed(client: TestClient) -> None:
    assert len(post_routes(client)) == POST_ROUTES


@pytest.mark.parametrize("route", range(POST_ROUTES))
def test_hostile_bodies_get_the_api_answer(client: TestClient, route: int) -> None:
    path, fields = post_routes(client)[route]
    valid = {"voice": FAST_VOICE, "input": "नमस्ते", "text": "नमस्ते"}

    @SETTINGS
    @given(body=bodies(fields, {k: v for k, v in valid.items() if k in fields}))
    def fuzz(body: str) -> None:
        headers = {**AUTH, "Content-Type": "application/json"}
        response = client.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
        assert_api_answer(response.status_code, response.content)

    fuzz()


def _as_sent(query: dict[str, str]) -> dict[str, str]:
    """``query`` as the client sends it (lone surrogates replaced)."""
    return {
        k: v.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for k, v in query.items()
    }


def _sendable(query: dict[str, str]) -> bool:
    """Whether the test client will send ``query``: httpx refuses a query component
    over 64 KiB before any request leaves (a client error, not the API's answer)."""
    return len(urlencode(_as_sent(query))) < 60_000


@SETTINGS
@given(voice=hostile_text, query=st.dictionaries(st.sampled_from(
    ["output_format", "sample_rate", "optimize_streaming_latency", "enable_logging"]),
    st.one_of(hostile_text, huge_numbers.map(str)), max_size=3).filter(_sendable))  # fmt: skip
def test_hostile_paths_and_queries_get_the_api_answer(
    client: TestClient, voice: str, query: dict[str, str]
) -> None:
    voice_id = quote(voice.encode("utf-8", "surrogatepass"), safe="") or "x"
    response = client.post(
        f"/v1/text-to-speech/{voice_id}",
        params=_as_sent(query),
        json={"text": "नमस्ते"},
        headers=AUTH,
    )
    assert_api_answer(response.status_code, response.content)


SOCKETS = {
    "native": (f"/v1/audio/speech/stream-input/{FAST_VOICE}", {"text": ""}),
    "elevenlabs": (f"/v1/text-to-speech/{FAST_VOICE}/stream-input", {"text": ""}),
    "multi": (f"/v1/text-to-speech/{FAST_VOICE}/multi-stream-input", {"close_socket": True}),
}
FIRST_FIELDS = [
    "text", "voice_settings", "generation_config", "context_id", "xi_api_key",
    "authorization", "try_trigger_generation", "flush", "language", "sample_rate",
]  # fmt: skip


@pytest.mark.parametrize("socket", SOCKETS)
def test_hostile_first_messages_never_end_a_session_with_1011(
    client: TestClient, socket: str
) -> None:
    url, goodbye = SOCKETS[socket]

    @SETTINGS
    @given(first=bodies(FIRST_FIELDS, {"text": " "}))
    def fuzz(first: str) -> None:
        with client.websocket_connect(url, headers=AUTH) as ws:
            ws.send_text(first.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
            ws.send_text(json.dumps(goodbye))
            try:
                while True:
                    message = ws.receive_json()
                    if "error" in message:
                        assert message["error"]["code"] != "internal_error", message
                    if message.get("isFinal"):
                        break
            except WebSocketDisconnect as closed:
                assert closed.code != 1011, closed

    fuzz()
