"""Pronunciation dictionaries applied to requests: named per request (at a version or
the latest), or the project's defaults; what the voice is given, what is billed."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from deployments.normaliser.normaliser import heard_characters, heard_phonemes
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.conftest import pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK

TEXT = "आपका SBI खाता Zomato से जुड़ा है।"
BRANDS = [
    {"type": "alias", "string_to_replace": "SBI", "alias": "स्टेट बैंक ऑफ़ इंडिया"},
    {
        "type": "alias",
        "string_to_replace": "zomato",
        "alias": "ज़ोमैटो",
        "case_sensitive": False,
    },
]


async def dictionary(
    client: httpx.AsyncClient, auth: dict[str, str], rules: list[dict[str, Any]]
) -> dict[str, Any]:
    made = await client.post(
        "/v1/pronunciation-dictionaries/add-from-rules",
        headers=auth,
        json={"name": "brands", "rules": rules},
    )
    assert made.status_code == 200, made.text
    body: dict[str, Any] = made.json()
    return body


async def normalize(
    client: httpx.AsyncClient, auth: dict[str, str], **body: object
) -> httpx.Response:
    return await client.post("/v1/text/normalize", headers=auth, json={"input": TEXT, **body})


async def test_a_named_dictionary_changes_what_the_voice_is_given(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await dictionary(client, auth, BRANDS)
    plain = (await normalize(client, auth)).json()
    said = (await normalize(client, auth, pronunciation_dictionaries=[{"id": made["id"]}])).json()
    assert "स्टेट बैंक ऑफ़ इंडिया" in said["text"] and "ज़ोमैटो" in said["text"]
    assert "स्टेट बैंक" not in plain["text"] and plain["rules"] == []
    assert [(TEXT[r["start"] : r["end"]], r["type"], r["alias"]) for r in said["rules"]] == [
        ("SBI", "alias", "स्टेट बैंक ऑफ़ इंडिया"),
        ("Zomato", "alias", "ज़ोमैटो"),
    ]
    # the segments still point into the text as sent
    assert said["segments"][0]["start"] == 0 and said["segments"][-1]["end"] == len(TEXT)


async def test_speech_says_the_alias_and_bills_what_it_adds_to_the_text_as_sent(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await dictionary(client, auth, BRANDS)
    body = {"input": TEXT, "voice": ESPEAK, "sample_rate": 24000}
    plain = await client.post("/v1/audio/speech", headers=auth, json=body)
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    said = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={**body, "pronunciation_dictionaries": [{"id": made["id"]}]},
    )
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    assert said.status_code == plain.status_code == 200
    # "State Bank of India" takes longer to say than "S B I"
    assert pcm_seconds(said.content, 24000) > pcm_seconds(plain.content, 24000) + 0.5
    # the text as sent, and the letters each alias says beyond the word it replaces
    added = sum(
        heard_characters(rule["alias"]) - heard_characters(word)
        for rule, word in zip(BRANDS, ("SBI", "Zomato"), strict=True)
    )
    assert added > 0
    assert after["characters"] - before["characters"] == len(TEXT) + added


async def test_a_version_named_is_heard_as_it_was(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await dictionary(client, auth, BRANDS[:1])
    changed = await client.post(
        f"/v1/pronunciation-dictionaries/{made['id']}/set-rules",
        headers=auth,
        json={"rules": [{"type": "alias", "string_to_replace": "SBI", "alias": "एस बी आई"}]},
    )
    first = {"id": made["id"], "version_id": made["version_id"]}
    then = (await normalize(client, auth, pronunciation_dictionaries=[first])).json()
    now = (await normalize(client, auth, pronunciation_dictionaries=[{"id": made["id"]}])).json()
    assert changed.status_code == 200
    assert "स्टेट बैंक ऑफ़ इंडिया" in then["text"] and "एस बी आई" in now["text"]


async def test_the_project_s_defaults_apply_unless_the_request_names_its_own(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await dictionary(client, auth, BRANDS)
    marked = await client.patch(
        f"/v1/pronunciation-dictionaries/{made['id']}", headers=auth, json={"by_default": True}
    )
    assert marked.status_code == 200 and marked.json()["by_default"] is True
    assert "स्टेट बैंक ऑफ़ इंडिया" in (await normalize(client, auth)).json()["text"]
    none = (await normalize(client, auth, pronunciation_dictionaries=[])).json()
    assert "स्टेट बैंक" not in none["text"] and none["rules"] == []


async def test_dictionaries_that_cannot_be_used_are_named(
    state: IngressState, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await dictionary(client, auth, BRANDS)
    other = {"Authorization": f"Bearer {state.store.create_key(state.store.create_project('b'))}"}
    cases: list[tuple[dict[str, str], list[dict[str, Any]], int, str]] = [
        (other, [{"id": made["id"]}], 404, "pronunciation_dictionaries[0]"),  # not theirs
        (auth, [{"id": made["id"]}, {"id": "pd_none"}], 404, "pronunciation_dictionaries[1]"),
        (auth, [{"id": made["id"], "version_id": "v_none"}], 404, "pronunciation_dictionaries[0]"),
        (auth, [{"id": made["id"]}] * 4, 400, "pronunciation_dictionaries"),  # at most three
        (auth, [{"id": made["id"], "version": "x"}], 400, "pronunciation_dictionaries.0.version"),
    ]
    for headers, located, status, param in cases:
        for path, body in (
            ("/v1/text/normalize", {"input": TEXT}),
            ("/v1/audio/speech", {"input": TEXT, "voice": ESPEAK}),
        ):
            refused = await client.post(
                path, headers=headers, json={**body, "pronunciation_dictionaries": located}
            )
            assert refused.status_code == status, (path, located, refused.text)
            assert refused.json()["error"]["param"] == param, refused.json()


@pytest.mark.parametrize(
    ("url", "field", "locator"),
    [
        (f"/v1/audio/speech/stream-input/{ESPEAK}", "pronunciation_dictionaries", "id"),
        (
            f"/v1/text-to-speech/{ESPEAK}/stream-input?output_format=pcm_24000",
            "pronunciation_dictionary_locators",
            "pronunciation_dictionary_id",
        ),
    ],
    ids=["ours", "elevenlabs"],
)
def test_a_websocket_takes_dictionaries_in_its_first_message(
    state: IngressState, url: str, field: str, locator: str
) -> None:
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    with TestClient(create_app(state)) as client:
        made = client.post(
            "/v1/pronunciation-dictionaries/add-from-rules",
            headers=auth,
            json={"name": "brands", "rules": BRANDS},
        ).json()

        def session(**first: object) -> float:
            with client.websocket_connect(url, headers=auth) as ws:
                ws.send_json({"text": " ", **first})
                ws.send_json({"text": TEXT + " "})
                ws.send_json({"text": ""})
                audio = b""
                while not (message := ws.receive_json()).get("isFinal"):
                    assert "error" not in message, message
                    audio += base64.b64decode(message["audio"])
            return pcm_seconds(audio, 24000)

        plain = session()
        said = session(**{field: [{locator: made["id"]}]})
        assert said > plain + 0.5
        # a locator without its id: the client's mistake, an error message and 1008
        with client.websocket_connect(url, headers=auth) as ws:
            ws.send_json({"text": " ", field: [{}]})
            error = ws.receive_json()["error"]
            assert error["code"] == "missing_field", error
            assert error["param"].startswith(field), error
            assert ws.receive()["code"] == 1008


async def test_a_phoneme_rule_reaches_the_default_voice(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """A Hindi name fixed by an IPA rule: /v1/text/normalize shows where its phonemes go,
    and the default (Kokoro) voice says it differently."""
    made = await dictionary(
        client, auth, [{"type": "phoneme", "string_to_replace": "राहुल", "phoneme": "ʃjaːm"}]
    )
    text = "मेरा नाम राहुल है।"
    located = [{"id": made["id"]}]
    shown = await client.post(
        "/v1/text/normalize",
        headers=auth,
        json={"input": text, "pronunciation_dictionaries": located},
    )
    (segment,) = shown.json()["segments"]
    assert segment["phonemes"] == [{"start": 9, "end": 14, "phonemes": "ʃjaːm", "alphabet": "ipa"}]
    assert shown.json()["rules"][0]["phoneme"] == "ʃjaːm"
    body = {"input": text, "stream": False}
    plain = await client.post("/v1/audio/speech", headers=auth, json=body)
    said = await client.post(
        "/v1/audio/speech", headers=auth, json={**body, "pronunciation_dictionaries": located}
    )
    assert said.status_code == plain.status_code == 200
    assert said.content != plain.content


def test_a_rule_matches_across_a_websocket_s_messages(state: IngressState) -> None:
    """``Dr. `` then ``Iyer``: the session's buffer would end a sentence after ``Dr.``;
    with a rule for ``Dr. Iyer`` it waits, and the alias is heard."""
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    rule = {"type": "alias", "string_to_replace": "Dr. Iyer", "alias": "डॉक्टर वेंकटरमण सुब्रमण्यम अय्यर"}
    with TestClient(create_app(state)) as client:
        made = client.post(
            "/v1/pronunciation-dictionaries/add-from-rules",
            headers=auth,
            json={"name": "titles", "rules": [rule]},
        ).json()

        def session(located: list[dict[str, str]]) -> float:
            url = f"/v1/audio/speech/stream-input/{ESPEAK}"
            with client.websocket_connect(url, headers=auth) as ws:
                ws.send_json({"text": " ", "pronunciation_dictionaries": located})
                for text in ("मिलिए Dr. ", "Iyer से।", ""):
                    ws.send_json({"text": text})
                audio = b""
                while not (message := ws.receive_json()).get("isFinal"):
                    assert "error" not in message, message
                    audio += base64.b64decode(message["audio"])
            return pcm_seconds(audio, 24000)

        assert session([{"id": made["id"]}]) > session([]) + 0.5


async def test_an_alias_cannot_speak_more_than_is_billed(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """A one-letter rule whose alias is 150 letters long, used forty times: the
    request is billed for at least every letter, mark and digit the voice is given."""
    alias = " ".join(["नमस्ते"] * 25)
    made = await dictionary(
        client, auth, [{"type": "alias", "string_to_replace": "Q", "alias": alias}]
    )
    text = "Q " * 40
    located = {"pronunciation_dictionaries": [{"id": made["id"]}]}
    shown = await normalize(client, auth, input=text, **located)
    heard = heard_characters(shown.json()["text"])
    assert heard >= 40 * heard_characters(alias)
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    said = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": text, "voice": ESPEAK, "stream": False, **located},
    )
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    assert said.status_code == 200, said.text
    assert after["characters"] - before["characters"] >= heard


async def test_phonemes_are_billed_as_heard(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """A one-letter rule whose phonemes are 40 IPA symbols (30 sounds): each use is billed
    for the sounds it makes (a 200-symbol rule was billed its one letter: 44.7 s of
    audio for 5 characters), and a request of thousands of them is over the spoken
    limit before any synthesis (it ran 62 s of Synthesiser time for nothing billed)."""
    phonemes = "aːbɪ" * 10
    assert heard_phonemes(phonemes) == 30  # the length marks are no sounds
    made = await dictionary(
        client, auth, [{"type": "phoneme", "string_to_replace": "x", "phoneme": phonemes}]
    )
    located = {"pronunciation_dictionaries": [{"id": made["id"]}]}
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    said = await client.post(
        "/v1/audio/speech", headers=auth, json={"input": "x x x", "stream": False, **located}
    )
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    assert said.status_code == 200, said.text
    assert after["characters"] - before["characters"] == len("x x x") + 3 * (30 - 1)
    flood = await client.post(
        "/v1/audio/speech", headers=auth, json={"input": "x " * 2048, **located}
    )
    assert flood.status_code == 400 and flood.json()["error"]["code"] == "input_too_long"
