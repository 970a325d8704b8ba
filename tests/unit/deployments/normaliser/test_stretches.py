"""SSML through the normaliser: each element's effect on what the voice is given, the
segments' pauses and prosody, offsets into the markup, dictionaries beside it."""

from __future__ import annotations

import pytest

from deployments.messages import NormalisedText, Prosody
from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.ssml import SsmlError, parse
from deployments.normaliser.stretches import said_as, stretches
from deployments.reading import PronunciationRule, ReadingOptions

NORMALISER = TextNormaliser()


def read(
    markup: str, language: str = "hi", rules: tuple[PronunciationRule, ...] = ()
) -> NormalisedText:
    return NORMALISER.normalise(markup, ReadingOptions(language, rules=rules, ssml=True))


@pytest.mark.parametrize(
    ("markup", "language", "said"),
    [
        ('<sub alias="स्टेट बैंक ऑफ़ इंडिया">SBI</sub> में', "hi", "स्टेट बैंक ऑफ़ इंडिया में"),
        ('OTP <say-as interpret-as="digits">4821</say-as>', "en", "O T P four eight two one"),
        ('<say-as interpret-as="characters">ATM</say-as>', "en", "A T M"),
        ('<say-as interpret-as="cardinal">4821</say-as>', "en",
         "four thousand eight hundred and twenty one"),
        ('the <say-as interpret-as="ordinal">2</say-as> floor', "en", "the second floor"),
        ('आप <say-as interpret-as="ordinal">2</say-as> हैं', "hi", "आप दूसरा हैं"),
        ('<say-as interpret-as="telephone">+91 98765-43210</say-as>', "en",
         "plus nine one, nine eight seven six five, four three two one zero"),
        ('<say-as interpret-as="date" format="mdy">12/25/2026</say-as>', "en",
         "twenty fifth December twenty twenty six"),
        ('<say-as interpret-as="time">10:30</say-as>', "hi", "साढ़े दस बजे"),
        ('<say-as interpret-as="currency">₹50</say-as>', "hi", "पचास रुपये"),
        ('दूरी <lang xml:lang="en-IN">25 km</lang> है', "hi",
         "दूरी ट्वेंटी फ़ाइव किलमीटर्स है"),
        ('<emphasis level="strong">बहुत</emphasis> अच्छा<mark name="m1"/>', "hi", "बहुत अच्छा"),
        ("<speak>a &lt;b&gt; &amp; c</speak>", "en", "a <b> and c"),
    ],
)  # fmt: skip
def test_each_element_changes_what_the_voice_is_given(
    markup: str, language: str, said: str
) -> None:
    # (commas: where the reader pauses between a phone number's groups)
    assert read(markup, language).text.replace(",", "") == said.replace(",", "")


def test_phoneme_gives_the_engine_phonemes_for_the_words_read_in_their_place() -> None:
    markup = '<speak>नमस्ते <phoneme alphabet="ipa" ph="əjjər">Iyer</phoneme> जी</speak>'
    result = read(markup)
    (segment,) = result.segments
    (span,) = segment.phonemes
    assert segment.text[span.start : span.end] == "अय्यर"  # the words' own reading
    assert (span.phonemes, span.alphabet) == ("əjjər", "ipa")
    (applied,) = result.applied
    assert markup[applied.start : applied.end] == "Iyer" and applied.rule.type == "phoneme"


def test_segments_point_into_the_markup_and_pauses_fall_between_them() -> None:
    markup = (
        '<speak><break time="300ms"/><p>पहला वाक्य।<break time="2s"/>दूसरा '
        '<prosody rate="slow" volume="-6dB" pitch="+2st">धीरे</prosody> वाक्य।</p></speak>'
    )
    segments = read(markup).segments
    assert [markup[s.start : s.end] for s in segments] == [
        "पहला वाक्य।",
        "दूसरा",
        "धीरे",
        "वाक्य।",
    ]
    assert segments[0].pause_before_ms == 300 and segments[0].pause_after_ms == 2000
    assert segments[-1].pause_after_ms == 500  # the paragraph's end
    slow = segments[2].prosody
    assert slow.speed == pytest.approx(0.8) and slow.pitch == pytest.approx(2 / 12)
    assert slow.volume == pytest.approx(0.501, abs=0.001)
    assert segments[1].prosody == segments[3].prosody == Prosody()


def test_nested_prosody_composes() -> None:
    markup = '<speak><prosody rate="150%"><prosody rate="slow">a b</prosody></prosody></speak>'
    (segment,) = read(markup, "en").segments
    assert segment.prosody.speed == pytest.approx(1.2)


def test_dictionary_rules_apply_outside_the_elements_that_respell_their_text() -> None:
    rules = (PronunciationRule("SBI", "alias", alias="एस बी आई"),)
    markup = '<speak>SBI और <sub alias="स्टेट बैंक">SBI</sub></speak>'
    result = read(markup, rules=rules)
    assert result.text == "एस बी आई और स्टेट बैंक"
    assert [(markup[a.start : a.end], a.rule.alias) for a in result.applied] == [
        ("SBI", "एस बी आई"),
        ("SBI", "स्टेट बैंक"),
    ]


def test_plain_text_is_never_markup() -> None:
    said = NORMALISER.normalise("a <break time='1s'/> b", ReadingOptions("en"))
    assert said.text.count("break") == 1


def test_broken_markup_raises_with_where() -> None:
    with pytest.raises(SsmlError, match="line 1"):
        read("<speak><p>a</speak>")


def test_stretches_cut_at_pauses_prosody_and_language() -> None:
    document = parse(
        '<speak>a<break/>b<prosody rate="fast">c</prosody><lang xml:lang="en">d</lang></speak>'
    )
    assert [(s.start, s.end, s.language) for s in stretches(document, "hi")] == [
        (0, 1, None),
        (1, 2, None),
        (2, 3, None),
        (3, 4, "en"),
    ]


def test_said_as() -> None:
    assert said_as("ordinal", "11", "en") == "11th" and said_as("ordinal", "23", "en") == "23rd"
    assert said_as("ordinal", "5", "hi") == "5वाँ" and said_as("ordinal", "x", "hi") is None
    assert said_as("cardinal", "12", "en") is None
    assert said_as("date", "12-25-2026", "en", "mdy") == "25-12-2026"
