"""previous_text / next_text and previous_request_ids, as ElevenLabs' SDK sends them:
the default voice reads them for its prosody; only the request's own text is spoken
and billed."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from elevenlabs.client import AsyncElevenLabs

from deployments.messages import NormalisedText, Surroundings
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.speech.continuity import RecentTexts
from tests.conftest import pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY

FIRST = "आज सुबह से लगातार बारिश हो रही है।"
SECOND = "इसलिए दफ़्तर पहुँचने में देर हो सकती है।"
THIRD = "कृपया घर से थोड़ा पहले निकलें।"


@pytest.fixture
def http(state: IngressState) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(state)))


async def spoken(http: httpx.AsyncClient, **body: object) -> httpx.Response:
    response = await http.post(
        "http://test/v1/text-to-speech/default/stream?output_format=pcm_24000",
        headers={"xi-api-key": DEV_KEY},
        json={"text": SECOND, **body},
    )
    assert response.status_code == 200, response.text
    return response


async def usage(http: httpx.AsyncClient) -> dict[str, int]:
    response = await http.get(
        "http://test/v1/account/usage", headers={"Authorization": f"Bearer {DEV_KEY}"}
    )
    totals: dict[str, int] = response.json()["usage"]
    return totals


async def test_surrounding_text_changes_the_reading_not_the_words_or_the_bill(
    http: httpx.AsyncClient,
) -> None:
    alone = await spoken(http)
    before = await usage(http)
    read = await spoken(http, previous_text=FIRST, next_text=THIRD)
    after = await usage(http)
    assert read.content != alone.content
    assert 0.75 < pcm_seconds(read.content, 24000) / pcm_seconds(alone.content, 24000) < 1.25
    assert after["characters"] - before["characters"] == len(SECOND)


async def test_a_request_and_the_text_around_it_go_to_the_normaliser_in_one_call(
    http: httpx.AsyncClient, state: IngressState, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline = state.speech.pipeline
    normalise, calls = pipeline.normalise, []

    async def counted(*args: Any, **kwargs: Any) -> NormalisedText:
        calls.append(args)
        return await normalise(*args, **kwargs)

    monkeypatch.setattr(pipeline, "normalise", counted)
    await spoken(http, previous_text=FIRST, next_text=THIRD)
    assert len(calls) == 1  # one hop: was three (the text, then each side)
    text, _, around = calls[0]
    assert text == SECOND and around == Surroundings(FIRST, THIRD)


async def test_previous_request_ids_name_the_project_s_own_requests(
    http: httpx.AsyncClient,
) -> None:
    sdk = AsyncElevenLabs(api_key=DEV_KEY, base_url="http://test", httpx_client=http)
    async with sdk.text_to_speech.with_raw_response.stream(
        "default", text=FIRST, output_format="pcm_24000"
    ) as first:
        request_id = first.headers["request-id"]
        _ = [chunk async for chunk in first.data]
    short = "देर होगी।"  # spoken four times: only its reading matters
    by_id = await spoken(http, text=short, previous_request_ids=[request_id])
    by_text = await spoken(http, text=short, previous_text=FIRST)
    unknown = await spoken(http, text=short, previous_request_ids=["req_unknown"])
    alone = await spoken(http, text=short)
    assert by_text.content != alone.content  # the text before changed the reading
    assert by_id.content == by_text.content  # the id stood for its text
    assert unknown.content == alone.content  # an id not remembered is ignored


def test_recent_texts_are_bounded_per_project_and_in_projects() -> None:
    recent = RecentTexts(per_project=2, projects=2)
    for i in range(3):
        recent.remember("p", f"r{i}", f"text {i}")
    assert recent.joined("p", ["r0", "r1", "r2"]) == "text 1 text 2"
    recent.remember("q", "r", "q's")
    recent.remember("s", "r", "s's")  # a third project: the least recent goes
    assert recent.joined("p", ["r1"]) == "" and recent.joined("q", ["r"]) == "q's"
    assert recent.joined("q", ["r", "x"]) == "q's"


def test_a_long_text_is_remembered_by_its_ends() -> None:
    """What is read around a request is the end of the text before it and the start of
    the text after it: a long request is kept as those, not whole."""
    recent = RecentTexts()
    recent.remember("p", "r", "आरंभ " + "बीच " * 2000 + "अंत")
    kept = recent.joined("p", ["r"])
    assert kept.startswith("आरंभ") and kept.endswith("अंत") and len(kept) <= 1001


async def test_more_request_ids_than_allowed_is_a_400_naming_the_field(
    http: httpx.AsyncClient,
) -> None:
    """Four ids where three are allowed: the client's mistake, named in ElevenLabs'
    terms (it was a 500: our request refused what their body had let through)."""
    response = await http.post(
        "http://test/v1/text-to-speech/default",
        headers={"xi-api-key": DEV_KEY},
        json={"text": SECOND, "next_request_ids": ["a", "b", "c", "d"]},
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_value" and error["param"] == "next_request_ids"
