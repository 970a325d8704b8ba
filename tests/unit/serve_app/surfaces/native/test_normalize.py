"""/v1/text/normalize: what the voice is given, and speech that follows it."""

import httpx

from tests.unit.serve_app.conftest import speak


async def test_normalize_shows_what_the_voice_is_given(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    text = "डॉ. शर्मा ने ₹1,250.50 दिए। मीटिंग 10:30 बजे है।"
    response = await client.post("/v1/text/normalize", headers=auth, json={"input": text})
    body = response.json()
    assert response.status_code == 200
    assert body["language"] == "hi" and body["representation"] == "devanagari"
    assert body["text"] == ("डॉक्टर शर्मा ने एक हज़ार दो सौ पचास रुपये पचास पैसे दिए। मीटिंग साढ़े दस बजे है।")
    assert [text[s["start"] : s["end"]] for s in body["segments"]] == [
        "डॉ. शर्मा ने ₹1,250.50 दिए।",
        "मीटिंग 10:30 बजे है।",
    ]
    romanised = await client.post(
        "/v1/text/normalize", headers=auth, json={"input": "aap kaise hain", "language": "hi-IN"}
    )
    assert romanised.json()["text"] == "आप कैसे हैं"
    assert romanised.json()["representation"] == "devanagari"
    bad = await client.post(
        "/v1/text/normalize", headers=auth, json={"input": "x", "language": "xx"}
    )
    assert bad.json()["error"]["code"] == "unsupported_language"
    assert (await client.post("/v1/text/normalize", json={"input": "x"})).status_code == 401


async def test_audio_follows_the_normalised_text(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    written = await speak(client, auth, input="₹1,250.50", stream=False)
    words = await speak(client, auth, input="एक हज़ार दो सौ पचास रुपये पचास पैसे", stream=False)
    assert abs(len(written.content) - len(words.content)) < 0.02 * len(words.content)
    romanised = await speak(client, auth, input="aap kaise hain", stream=False)
    assert romanised.headers["x-service-representation"] == "devanagari"
