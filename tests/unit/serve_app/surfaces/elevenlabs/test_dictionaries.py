"""ElevenLabs' pronunciation-dictionary endpoints, driven by the elevenlabs SDK itself."""

from __future__ import annotations

import io

import httpx
import pytest
from elevenlabs import pronunciation_dictionaries as pd
from elevenlabs.client import AsyncElevenLabs
from elevenlabs.core.api_error import ApiError
from elevenlabs.types import PronunciationDictionaryVersionLocator

from deployments.normaliser import pls
from serve_app.ingress.state import IngressState
from tests.conftest import pcm_seconds
from tests.unit.serve_app.conftest import ESPEAK
from tests.unit.serve_app.surfaces.elevenlabs.test_serving import sdk_for

LEXICON = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="ipa" xml:lang="hi-IN">
  <lexeme><grapheme>SBI</grapheme><alias>स्टेट बैंक ऑफ़ इंडिया</alias></lexeme>
  <lexeme><grapheme>Iyer</grapheme><phoneme>ˈəjjər</phoneme></lexeme>
</lexicon>
""".encode()
Alias = pd.BodyAddAPronunciationDictionaryV1PronunciationDictionariesAddFromRulesPostRulesItem_Alias
Phoneme = (
    pd.BodyAddAPronunciationDictionaryV1PronunciationDictionariesAddFromRulesPostRulesItem_Phoneme
)


async def download(sdk: AsyncElevenLabs, dictionary_id: str, version_id: str) -> bytes:
    return b"".join(
        [c async for c in sdk.pronunciation_dictionaries.download(dictionary_id, version_id)]
    )


async def test_a_dictionary_from_rules_changes_by_versions(state: IngressState) -> None:
    sdk = sdk_for(state)
    made = await sdk.pronunciation_dictionaries.create_from_rules(
        name="brands",
        description="what our customers hear",
        rules=[Alias(string_to_replace="Zomato", alias="ज़ोमैटो")],
    )
    assert made.version_rules_num == 1 and made.name == "brands"
    added = await sdk.pronunciation_dictionaries.rules.add(
        made.id, rules=[Phoneme(string_to_replace="Iyer", phoneme="ˈəjjər", alphabet="ipa")]
    )
    assert added.version_rules_num == 2 and added.version_id != made.version_id
    removed = await sdk.pronunciation_dictionaries.rules.remove(made.id, rule_strings=["Zomato"])
    assert removed.version_rules_num == 1
    got = await sdk.pronunciation_dictionaries.get(made.id)
    assert got.latest_version_id == removed.version_id
    assert [rule.string_to_replace for rule in got.rules] == ["Iyer"]
    # the first version is still what it was
    first = b"".join(
        [c async for c in sdk.pronunciation_dictionaries.download(made.id, made.version_id)]
    )
    assert [rule.string_to_replace for rule in pls.read(first)] == ["Zomato"]
    listed = await sdk.pronunciation_dictionaries.list()
    assert [d.id for d in listed.pronunciation_dictionaries] == [made.id] and not listed.has_more
    renamed = await sdk.pronunciation_dictionaries.update(made.id, name="names")
    assert renamed.name == "names" and renamed.latest_version_id == removed.version_id


async def test_a_pls_file_round_trips(state: IngressState) -> None:
    sdk = sdk_for(state)
    made = await sdk.pronunciation_dictionaries.create_from_file(
        name="bank", file=("bank.pls", io.BytesIO(LEXICON), "application/pls+xml")
    )
    assert made.version_rules_num == 2
    back = b"".join(
        [c async for c in sdk.pronunciation_dictionaries.download(made.id, made.version_id)]
    )
    assert pls.read(back) == pls.read(LEXICON)


async def test_dictionaries_of_one_project_are_invisible_to_another(state: IngressState) -> None:
    made = await sdk_for(state).pronunciation_dictionaries.create_from_rules(
        name="brands", rules=[Alias(string_to_replace="SBI", alias="एस बी आई")]
    )
    other = state.store.create_key(state.store.create_project("clinic"))
    clinic = sdk_for(state, other)
    for call in (
        clinic.pronunciation_dictionaries.get(made.id),
        clinic.pronunciation_dictionaries.rules.remove(made.id, rule_strings=["SBI"]),
    ):
        with pytest.raises(ApiError) as refused:
            await call
        assert refused.value.status_code == 404
        assert refused.value.body["error"]["code"] == "not_found"
    assert (await clinic.pronunciation_dictionaries.list()).pronunciation_dictionaries == []


@pytest.mark.parametrize(
    ("document", "code"),
    [
        (b"<!DOCTYPE x [<!ENTITY a 'b'>]><lexicon/>", "invalid_value"),
        (b"<lexicon><lexeme><grapheme>x</grapheme></lexeme></lexicon>", "invalid_value"),
    ],
)
async def test_a_bad_lexicon_is_a_400_that_says_where(
    state: IngressState, document: bytes, code: str
) -> None:
    with pytest.raises(ApiError) as refused:
        await sdk_for(state).pronunciation_dictionaries.create_from_file(
            name="x", file=("x.pls", io.BytesIO(document), "application/pls+xml")
        )
    assert refused.value.status_code == 400
    assert refused.value.body["error"]["code"] == code
    assert refused.value.body["error"]["param"] == "file"


async def test_a_bad_rule_is_named(state: IngressState) -> None:
    sdk = sdk_for(state)
    with pytest.raises(ApiError) as refused:
        await sdk.pronunciation_dictionaries.create_from_rules(
            name="x",
            rules=[
                Alias(string_to_replace="a", alias="b"),
                Phoneme(string_to_replace="c", phoneme="d", alphabet="cmu-arpabet"),
            ],
        )
    assert refused.value.status_code == 400
    error = refused.value.body["error"]
    assert error["param"] == "rules[1]" and "cmu-arpabet" in error["message"]


async def test_locators_on_text_to_speech_are_applied(state: IngressState) -> None:
    """The SDK's pronunciation_dictionary_locators (up to three) reach the text as ours
    do: 'State Bank of India' is longer to say than 'S B I'."""
    sdk = sdk_for(state)
    made = await sdk.pronunciation_dictionaries.create_from_rules(
        name="bank", rules=[Alias(string_to_replace="SBI", alias="स्टेट बैंक ऑफ़ इंडिया")]
    )

    async def seconds(*located: PronunciationDictionaryVersionLocator) -> float:
        stream = sdk.text_to_speech.convert(
            ESPEAK,
            text="मेरा SBI खाता।",
            output_format="pcm_24000",
            pronunciation_dictionary_locators=list(located) or None,
        )
        return pcm_seconds(b"".join([chunk async for chunk in stream]), 24000)

    plain = await seconds()
    latest = PronunciationDictionaryVersionLocator(pronunciation_dictionary_id=made.id)
    pinned = PronunciationDictionaryVersionLocator(
        pronunciation_dictionary_id=made.id, version_id=made.version_id
    )
    assert await seconds(latest) > plain + 0.5
    assert await seconds(pinned) > plain + 0.5
    with pytest.raises(ApiError) as refused:
        await seconds(PronunciationDictionaryVersionLocator(pronunciation_dictionary_id="pd_x"))
    assert refused.value.status_code == 404
    assert refused.value.body["error"]["param"] == "pronunciation_dictionary_locators[0]"


async def test_a_malformed_locator_is_a_400_naming_it(state: IngressState) -> None:
    """A locator without its dictionary's id is the client's mistake, said as such (it
    was a 500: the body's locators were checked only after the request was built)."""
    from serve_app.ingress.api import create_app
    from tests.unit.serve_app.conftest import DEV_KEY

    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            f"/v1/text-to-speech/{ESPEAK}",
            headers={"xi-api-key": DEV_KEY},
            json={"text": "नमस्ते", "pronunciation_dictionary_locators": [{}]},
        )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "missing_field"
    assert error["param"].startswith("pronunciation_dictionary_locators.0")
