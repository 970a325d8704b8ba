"""Requests refused at the door, over ASGI: the error shape for bad bodies, keys,
scopes, rates, origins and routes."""

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.unit.serve_app.conftest import DEV_KEY, HI, make_state


async def test_speech_only_key_cannot_read_usage(
    client: httpx.AsyncClient, state: IngressState
) -> None:
    project = state.store.ensure_project("scoped", 1_000_000)
    token = state.store.create_key(project, scopes=("speech",))
    response = await client.get("/v1/account/usage", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 403 and response.json()["error"]["code"] == "key_scope"


@pytest.mark.parametrize(
    ("body", "status", "code", "param"),
    [
        ({"input": "x", "foo": 1}, 400, "unknown_field", "foo"),
        ({"voice": "default"}, 400, "missing_field", "input"),
        ({"input": 5}, 400, "invalid_value", "input"),
        ({"input": "x", "stream": "yes"}, 400, "invalid_value", "stream"),
        ({"input": "x", "speed": 3}, 400, "invalid_value", "speed"),
        ({"input": "x", "response_format": "ogg"}, 400, "invalid_value", "response_format"),
        ({"input": "   \n"}, 400, "empty_input", "input"),
        ({"input": "\u200b"}, 400, "empty_input", "input"),
        ({"input": "।।।,,,...!?"}, 400, "empty_input", "input"),
        ({"input": "क" * 4097}, 400, "input_too_long", "input"),
        # within the input limit, but 23,000 characters once the numbers are words
        ({"input": "9999999 " * 500}, 400, "input_too_long", "input"),
        (
            {"input": "x", "response_format": "wav"},
            400,
            "unsupported_format_for_stream",
            "response_format",
        ),
        ({"input": "x", "language": "xx"}, 400, "unsupported_language", "language"),
        ({"input": "x", "language": "sa"}, 400, "unsupported_language", "language"),
        ({"input": "x", "voice": "nobody"}, 404, "voice_not_found", "voice"),
        ({"input": "x", "voice": "Bad Voice"}, 400, "invalid_value", "voice"),
        ({"input": "x", "model": "other"}, 404, "model_not_found", "model"),
        ({"input": "x", "model_id": "other"}, 404, "model_not_found", "model"),
        ({"input": "x", "sample_rate": 11025}, 400, "invalid_value", "sample_rate"),
        # Piper voices have neither voice-modelling mode
        (
            {"input": "x", "voice": "en-us-joe", "language": "en", "reference_audio": "UklGRg=="},
            400,
            "unsupported_feature",
            "reference_audio",
        ),
        (
            {"input": "x", "voice": "en-us-joe", "language": "en", "voice_description": "calm"},
            400,
            "unsupported_feature",
            "voice_description",
        ),
        (
            {"input": "x", "reference_audio": "UklGRg=="},
            400,
            "reference_audio_invalid",
            "reference_audio",
        ),
        ({"input": "x", "voice_description": " "}, 400, "invalid_value", "voice_description"),
        ([1, 2], 400, "invalid_json", None),
    ],
)
async def test_bad_requests_get_the_error_shape(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    body: object,
    status: int,
    code: str,
    param: str | None,
) -> None:
    response = await client.post("/v1/audio/speech", headers=auth, json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert (error["code"], error["param"]) == (code, param)
    assert set(error) == {"message", "type", "code", "param", "request_id"}
    assert error["request_id"] == response.headers["x-request-id"]


async def test_malformed_json_lone_surrogate_and_body_limit(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    bad = await client.post("/v1/audio/speech", headers=auth, content=b'{"input": ')
    assert bad.json()["error"]["code"] == "invalid_json"
    surrogate = await client.post(
        "/v1/audio/speech", headers=auth, content=b'{"input": "a\\ud800"}'
    )
    assert surrogate.json()["error"]["code"] == "invalid_value"
    assert "surrogate" in surrogate.json()["error"]["message"]
    huge = await client.post("/v1/audio/speech", headers=auth, content=b"x" * (2 << 20))
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "body_too_large"


@pytest.mark.parametrize("depth", [17, 1_000, 100_000])
@pytest.mark.parametrize("path", ["/v1/audio/speech", "/v1/text/normalize"])
async def test_deeply_nested_json_is_refused_before_parsing(
    client: httpx.AsyncClient, auth: dict[str, str], path: str, depth: int
) -> None:
    body = b'{"input": "hi", "x": ' + b"[" * depth + b"]" * depth + b"}"
    response = await client.post(path, headers=auth, content=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "json_too_deep"
    brackets_in_text = b'{"input": "hi ' + b"[" * 100 + b'"}'  # inside a string: text
    assert (await client.post(path, headers=auth, content=brackets_in_text)).status_code == 200


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "missing_api_key"),
        ({"Authorization": "Basic abc"}, "invalid_api_key"),
        ({"Authorization": "Bearer "}, "missing_api_key"),
        ({"Authorization": "Bearer sk-proj-nope0000-" + "z" * 40}, "invalid_api_key"),
    ],
)
async def test_authentication_errors(
    client: httpx.AsyncClient, headers: dict[str, str], code: str
) -> None:
    for path in ("/v1/models", "/v1/capabilities", "/ready", "/v1/account/usage"):
        response = await client.get(path, headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["type"] == "authentication_error"


async def test_xi_api_key_is_a_key_wherever_a_bearer_key_is(client: httpx.AsyncClient) -> None:
    """ElevenLabs' clients send their key as xi-api-key."""
    assert (await client.get("/v1/models", headers={"xi-api-key": DEV_KEY})).status_code == 200
    spoken = await client.post(
        "/v1/audio/speech", headers={"xi-api-key": DEV_KEY}, json={"input": HI}
    )
    assert spoken.status_code == 200
    wrong = await client.get("/v1/models", headers={"xi-api-key": "sk-proj-x-y"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"


async def test_unknown_route_and_models(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    missing = await client.get("/v1/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    models = (await client.get("/v1/models", headers=auth)).json()
    assert models == {
        "object": "list",
        "data": [{"id": "service-v1", "object": "model", "owned_by": "service"}],
    }


async def test_a_key_past_its_rate_gets_429_with_retry_after(tmp_path: Path) -> None:
    state = make_state(tmp_path, rate_limit_per_minute=2)
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        auth = {"Authorization": f"Bearer {DEV_KEY}"}
        body = {"input": "नमस्ते", "voice": "hi-espeak-aditi", "stream": False}
        if time.time() % 60 > 55:  # all in one clock minute
            await asyncio.sleep(60 - time.time() % 60 + 0.1)
        for _ in range(2):
            assert (await client.post("/v1/audio/speech", headers=auth, json=body)).is_success
        refused = await client.post("/v1/audio/speech", headers=auth, json=body)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused.json()["error"]["type"] == "rate_limit_error"
    assert 1 <= int(refused.headers["retry-after"]) <= 60


@pytest.mark.parametrize("configured", [[], ["https://app.example.com"]])
async def test_cors_answers_only_configured_origins_and_never_with_credentials(
    tmp_path: Path, configured: list[str]
) -> None:
    state = make_state(tmp_path, allowed_origins=configured)
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for origin in ("https://app.example.com", "https://evil.example"):
            preflight = await client.options(
                "/v1/audio/speech",
                headers={
                    "Origin": origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization,content-type",
                },
            )
            voices = await client.get("/v1/voices", headers={"Origin": origin})
            allowed = origin in configured
            for response in (preflight, voices):
                assert response.headers.get("access-control-allow-origin") == (
                    origin if allowed else None
                )
                assert "access-control-allow-credentials" not in response.headers
            if allowed:
                assert "x-request-id" in voices.headers["access-control-expose-headers"]


@pytest.mark.parametrize("origin", ["*", "https://*.example.com", "example.com"])
def test_an_origin_pattern_is_refused_at_start(origin: str) -> None:
    from pydantic import ValidationError

    from serve_app.settings import IngressConfig

    with pytest.raises(ValidationError):
        IngressConfig(allowed_origins=[origin])
    assert IngressConfig(allowed_origins="https://a.example, http://b.example:8080")


@pytest.mark.parametrize("param", ["api_key", "key", "authorization", "xi-api-key"])
async def test_a_key_in_the_url_is_never_read(client: httpx.AsyncClient, param: str) -> None:
    """Keys in URLs end up in proxies' and browsers' logs: only headers carry them."""
    response = await client.get(f"/v1/models?{param}={DEV_KEY}")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "missing_api_key"


SPEECH, ELEVEN = "/v1/audio/speech", "/v1/text-to-speech/default"
HUGE = b"9" * 5_000


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        (SPEECH, b'{"input": "hi", "sample_rate": ' + HUGE + b"}", "sample_rate"),
        (SPEECH, b'{"input": "hi", "speed": ' + HUGE + b"}", "speed"),
        (SPEECH, b'{"input": "hi", "speed": -' + HUGE + b"." + HUGE + b"}", "speed"),
        (SPEECH, b'{"input": "hi", "volume": 1e99999}', "volume"),
        (SPEECH, b'{"input": "hi", "stream": ' + HUGE + b"}", "stream"),
        (SPEECH, b'{"input": "hi", "language": "\\ud800"}', "language"),
        (SPEECH, b'{"input": "hi", "model": "\\udbff"}', "model"),
        (SPEECH, b'{"input": "hi", "voice_description": "a \\udc00"}', "voice_description"),
        (SPEECH, b'{"input": "hi", "\\ud800": 1}', "\\ud800"),
        (SPEECH, b'{"model": "tts-1", "input": "hi", "voice": "alloy", "speed": ' + HUGE + b"}",
         "speed"),
        ("/v1/text/normalize", b'{"input": "hi", "language": "\\ud800"}', "language"),
        (ELEVEN, b'{"text": "hi", "seed": ' + HUGE + b"}", "seed"),
        (ELEVEN, b'{"text": "hi", "voice_settings": {"speed": ' + HUGE + b"}}",
         "voice_settings.speed"),
        (ELEVEN, b'{"text": "hi", "language_code": "\\ud800"}', "language_code"),
        (ELEVEN, b'{"text": "hi", "model_id": "\\ud800"}', "model_id"),
    ],
)  # fmt: skip
async def test_huge_numbers_and_lone_surrogates_are_400_with_their_field(
    client: httpx.AsyncClient, auth: dict[str, str], path: str, body: bytes, param: str
) -> None:
    response = await client.post(path, headers=auth, content=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["code"], error["param"]) == ("invalid_value", param), error
